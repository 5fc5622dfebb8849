"""Paper protocols: aggregate tables that reproduce the papers' reporting."""
