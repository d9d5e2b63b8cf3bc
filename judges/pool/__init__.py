"""The judge pool: batches the score requests of many matches onto one judge, with metrics."""
