"""Seeds: public derivations for maps, and keyed ones for everything a player receives.

Map and play seeds are secrets of the arena (XGL.md section 8): whoever knows a map seed
can regenerate its stories. Anything seed-like a player gets (`MoveRequest.seed`,
`PlayerContext.seed`) and the game's own randomness (`sample`, `shuffle`) is therefore an
HMAC under a *seed key*: 32 random bytes the organiser keeps (per tournament in the
database; printed by `arena play`). Without the key a player cannot invert them, however
small the seeds; with it the organiser replays any match exactly. Map seeds follow publicly
from the tournament seed (they identify the maps), but the texts of a map are sampled from
`story_seed(key, map_seed)`, so a published tournament seed regenerates nothing.

Move seeds depend on the play seed, the role and the information set of the request, not on
the round: a memoryless NPC asked the same thing in two rounds gets the same seed (paper
4.1.3: repetitions keep the map and play seeds; only the main character remembers).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets

from arena.errors import ConfigError
from arena.protocols.player import MoveRequest

SEED_KEY_BYTES = 32


def derive_seed(*parts: object) -> int:
    """A non-negative 63-bit seed from any parts (public: only for what players never
    receive and what gives nothing hidden away, such as a map's seed)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def keyed_seed(key: bytes, *parts: object) -> int:
    """A non-negative 63-bit seed from `parts` under the secret `key` (HMAC-SHA256)."""
    message = "\x1f".join(map(str, parts)).encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def new_seed_key() -> bytes:
    """A fresh random seed key."""
    return secrets.token_bytes(SEED_KEY_BYTES)


def parse_seed_key(text: str) -> bytes:
    """A seed key from its hex form (as `arena play` prints it)."""
    cleaned = text.strip().lower()
    try:
        key = bytes.fromhex(cleaned)
    except ValueError:
        key = b""
    if len(key) != SEED_KEY_BYTES:
        raise ConfigError(
            f"Bad seed key '{text}': expected {2 * SEED_KEY_BYTES} hex digits, as printed by "
            "`arena play` after a match. Leave --seed-key out to draw a fresh one."
        )
    return key


def public_seed_key(seed: int) -> bytes:
    """A seed key anyone can compute from `seed`: only for the arena's own analysis runs
    (smoke checks, golden playthroughs, playability) between built-in players, which must
    replay from their seed alone. Never for matches between entrants."""
    return hashlib.sha256(f"xent-arena public seed key\x1f{seed}".encode()).digest()


def move_seed(key: bytes, play_seed: int, request: MoveRequest) -> int:
    """The seed of one move: keyed, and a function of the information set only."""
    unseeded = dataclasses.replace(request, seed=0)
    digest = hashlib.sha256(repr(unseeded).encode()).hexdigest()
    return keyed_seed(key, "move", play_seed, request.role, digest)


def seat_seed(key: bytes, play_seed: int, role: str) -> int:
    """`PlayerContext.seed` of the player in `role` (the same for every round)."""
    return keyed_seed(key, "seat", play_seed, role)


def story_seed(key: bytes, map_seed: int) -> int:
    """The seed a map's texts are sampled from. The map seed itself follows from the
    tournament seed, which organisers publish with their tournament files; keying it means
    knowing the tournament seed and the story source does not regenerate a hidden story,
    while the organiser (who holds the key) still reproduces every map."""
    return keyed_seed(key, "map", map_seed)


def game_seed(key: bytes, play_seed: int) -> int:
    """The seed of the game's own randomness (`sample`, `shuffle`): every round the same."""
    return keyed_seed(key, "play", play_seed)
