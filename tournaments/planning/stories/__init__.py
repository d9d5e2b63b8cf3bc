"""Built-in story sources beyond judge sampling: fixed published maps and local corpora."""
