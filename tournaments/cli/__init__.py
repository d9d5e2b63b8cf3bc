"""The tournaments wing's commands, mounted on `arena` through the `arena_cli_commands`
hook (`arena.tournaments.plugin`): `arena run` and `arena matches` (run.py), `arena demo`
(demo.py), `arena ratings`, `scores`, `import`, `export` (ratings.py) and `arena dashboard`
(dashboard.py). The scheduler's commands are `arena.tournaments.services.recurring.cli`."""
