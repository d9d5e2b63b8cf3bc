"""The judge pool: dynamic batching, deduplication and caching in front of any judge, with its
metrics."""
