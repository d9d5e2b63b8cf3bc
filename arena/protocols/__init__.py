"""The contracts between the arena and what plugs into it: players, judges, story sources.

`arena.lang` (which scores with a judge) and `arena.runtime` (which seats players) both
import these; this package imports neither, so the two layers stay acyclic.
"""
