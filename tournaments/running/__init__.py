"""Running a tournament: preparing it, one match as a task, progress, the run's reporter and
snapshots, and the executors (local, Ray)."""
