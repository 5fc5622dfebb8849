"""Small embedded data sets (generated with Pillow, so the wheel stays tiny)."""
