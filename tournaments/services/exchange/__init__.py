"""Results in and out of the arena database: `arena import` (`importers`: GameBench and
generic tables) and `arena export` (`export`: CSV, JSON lines, Parquet)."""
