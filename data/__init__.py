"""Course datasets, shipped inside the package as memlib.data."""
