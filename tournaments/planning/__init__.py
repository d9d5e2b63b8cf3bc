"""Planning a tournament: its file (config, its errors), the pairings, the order a run plays
them in, what each seat sees of a map, and the map stories' sources."""
