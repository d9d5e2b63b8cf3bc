"""Executors: the engines that play a tournament's pending matches. `local` (one process,
asyncio) is the default; `ray` runs matches as Ray tasks and judges as Ray actors. Both
register through the `arena_executors` hook (`arena.tournaments.running.executors.plugin`)."""
