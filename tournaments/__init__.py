"""Tournaments: plan matches (`pairings`), play them (`executor`, `match_task`), rate them
(`ratings`), run them on a timetable (`recurring`), move results in and out (`exchange`).

From Python: `arena.tournaments.services.run_config.run_file(path, db=...,
registry=Registry.load())`
does what `arena run` does.
"""
