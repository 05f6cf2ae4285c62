"""What the data say about themselves: data-quality warnings and file metadata."""
