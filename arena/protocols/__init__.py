"""The contracts between the arena and what plugs into it: players, judges, story sources,
chat models, meta-samplers and fine-tuners. Their requests and results are plain data
(strings, numbers, paths and other contract types; tests/meta/test_contracts.py).

`arena.lang` (which scores with a judge) and `arena.runtime` (which seats players) both
import these; this package imports neither, so the two layers stay acyclic.
"""
