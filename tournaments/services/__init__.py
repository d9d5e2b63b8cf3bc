"""What runs tournaments for the user: a tournament file run end to end (run_config),
recurring schedules, and the exchange of results and configs (import, export)."""
