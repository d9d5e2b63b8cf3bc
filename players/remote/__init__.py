"""Remote agents: the player that seats them and the loopback server they connect to."""
