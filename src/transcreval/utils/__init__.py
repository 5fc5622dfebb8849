"""Small shared helpers: JSON Lines, threads, named tables, text tables, warnings."""
