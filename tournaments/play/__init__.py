"""The play wing: people play seats in the browser (`arena play-server`, docs/play.md).

A front end of tournament runs like any other: a page match is prepared as a match of the
ladder tournament (`ladder.py`), played through `play_config` (the executor plugin the
config names), stored, and rated by snapshots; the server's desk (`desk.py`) reaches the
people's seats in their `PlayerContext` (`Registry.with_desk`). The dashboard only reads
what these runs store.

Modules: `app` (the aiohttp application and its life), `api` (the JSON endpoints),
`sockets` (one websocket per person), `server` (state, people, caps, the runs it starts),
`ladder` (page matches as ladder matches), `games` (names or pasted text, never paths),
`rules` (the rules a person reads, a failed rule explained), `frames` (all a person
receives), `desk`, `people`, `opponents`, `hosts`, `caps`, and `cli` (`arena play-server`).
"""
