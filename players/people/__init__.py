"""People's seats: a terminal prompt (human) and the play page's desk (human:web)."""
