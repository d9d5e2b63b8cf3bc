"""Rating records read from the store: the one builder (from_store) and the rating inputs and
snapshots of stored tournaments (rating_store)."""
