"""The judge benchmarks' workloads: tournament-like match plans of the bundled games played by
seeded scripted players (judge_bench's "tournament" stream), and all-distinct requests (its
"distinct" stream and gpu_judge_bench's workload)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files

from arena.judges.hf.training.corpus import general_vocabulary, generate_stories, make_story
from arena.lang import ast
from arena.lang.loader import load_game
from arena.protocols.judge import ScoreRequest
from arena.protocols.player import GameView, MoveRequest
from arena.runtime.maps import GameMap, story_requests
from arena.runtime.match import active_players
from arena.runtime.seat import Seat


@dataclass(frozen=True)
class Game:
    name: str
    program: ast.Program
    view: GameView


@dataclass(frozen=True)
class MatchPlan:
    game: Game
    game_map: GameMap
    seats: Mapping[str, Seat]


def load_games(names: Sequence[str]) -> list[Game]:
    out = []
    for filename in names:
        source = files("arena.games").joinpath(filename).read_text(encoding="utf-8")
        program = load_game(source, filename=filename)
        view = GameView(name=filename.rsplit(".", 1)[0], code=source, dialect=program.dialect)
        out.append(Game(view.name, program, view))
    return out


def story_text(seed: int, max_words: int) -> str:
    """A corpus story cut after the last whole sentence within `max_words` words."""
    words = make_story(random.Random(f"judge-bench:{seed}")).text.split()
    cut = words[:max_words]
    ends = [i for i, w in enumerate(cut) if w.endswith((".", "!", "?", '."', '!"', '?"'))]
    return " ".join(cut[: ends[-1] + 1] if ends else cut)


def make_map(program: ast.Program, seed: int, max_words: int) -> GameMap:
    stories = {r.site: story_text(r.seed, max_words) for r in story_requests(program, seed)}
    return GameMap(seed=seed, stories=stories)


@dataclass
class ScriptedPlayer:
    """Fixed moves: words drawn from the corpus vocabulary, seeded by everything it sees."""

    participant: int
    words: Sequence[str]

    @property
    def name(self) -> str:
        return f"scripted-{self.participant}"

    async def move(self, request: MoveRequest) -> Mapping[str, str]:
        seen = repr(sorted(request.visible.items()))
        key = (
            f"{self.participant}|{request.game.name}|{request.role}|{request.round}|"
            f"{request.line}|{request.attempt}|{seen}"
        )
        seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
        rng = random.Random(seed)
        n_words = max(2, (request.max_len or 8) * 2 // 3)
        return {reg: " ".join(rng.sample(self.words, n_words)) for reg in request.registers}


def build_plan(games: Sequence[Game], maps: int, participants: int, words: int) -> list[MatchPlan]:
    vocab = general_vocabulary()
    players = [ScriptedPlayer(p, vocab) for p in range(participants)]
    plan = []
    for game in games:
        for m in range(maps):
            game_map = make_map(game.program, 1000 + m, words)
            for p, player in enumerate(players):
                seats = {
                    role: Seat(role=role, player=player, participant=f"p{p}")
                    for role in active_players(game.program)
                }
                plan.append(MatchPlan(game, game_map, seats))
    return plan


def distinct_requests(n: int, seed: int) -> list[ScoreRequest]:
    """`n` different requests: a corpus story scored after a numbered prefix of its words."""
    rng = random.Random(seed)
    out = []
    for i, story in enumerate(s.text for s in generate_stories(n, seed)):
        words = story.split()
        cut = rng.randint(3, min(12, len(words) - 1))
        out.append(ScoreRequest(" ".join(words[cut:]), f"{i}: " + " ".join(words[:cut]), "xgl"))
    return out
