"""`arena scope grow` end to end with the real transfer oracle on a tiny budget: a tiny GPT-2
is fine-tuned (reinforce) on each candidate that survives the pipeline, the values land in
the transfer_values table, the archive's decisions follow them and the thresholds, and a
rerun reads everything back (no fine-tuning) to the same scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.gamespace.transfer.measure import TransferSetting
from arena.storage import Store, sqlite_url, transfers
from arena.storage import scopes as store
from tests.gamespace import transfer_games as tg

pytestmark = pytest.mark.torch
ALPHA1, ALPHA2 = 0.2, 0.2


def test_grow_with_the_finetune_oracle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tg.save_long_context_model(tmp_path / "tiny")
    game = tmp_path / "plain.xgl"
    game.write_text(tg.PLAIN)
    db = sqlite_url(tmp_path / "a.db")
    args = [
        "scope", "grow", "--name", "real", "--from", str(game), "--sampler", "mutate",
        "--alpha1", str(ALPHA1), "--alpha2", str(ALPHA2), "--rounds", "1", "--budget", "4",
        "--batch", "4", "--judge", "ngram", "--player", tg.player_spec(model),
        "--finetuner", tg.FINETUNER, "--budget-tokens", "6000", "--maps", "4", "--fewshot", "arms",
        "--models-dir", str(tmp_path / "tuned"), "--db", db,
    ]
    main(args)
    first = capsys.readouterr()
    assert "fine-tuning" in first.err  # the real oracle tuned models

    engine = Store.open(db).engine
    scope = store.scope(engine, "real")
    assert scope is not None and scope.status == store.DONE
    rows = store.games(engine, scope.id)
    setting = TransferSetting(tg.player_spec(model), tg.FINETUNER, 6000, 4, seed=0,
                              judge="ngram")
    assert scope.setting_sha256 == setting.sha256
    measured = {(t.source_sha256, t.target_sha256): t.value
                for t in transfers.transfers(engine, setting.sha256)}
    engine.dispose()
    root = rows[0]
    kept = [r for r in rows[1:] if r.verdicts.get("kept")]
    assert kept, "no candidate survived the pipeline: nothing reached the oracle"
    for row in kept:
        # what the growth saw is what the oracle stored
        to_parent = row.verdicts["to_parent"]
        assert measured[(row.sha256, root.sha256)] == to_parent
        related = to_parent is not None and to_parent >= ALPHA1
        assert related == bool(row.verdicts.get("from_scope"))
        if row.accepted:
            assert related and (row.gamma is None or row.gamma <= 1 - ALPHA2)
        for source, value in row.verdicts.get("from_scope", {}).items():
            assert measured[(source, row.sha256)] == value

    main(args)  # a rerun replays the archive: no fine-tuning, the same scope
    again = capsys.readouterr()
    assert "fine-tuning" not in again.err and "evaluating" not in again.err
    assert again.out.splitlines()[-1].split(";")[0] == first.out.splitlines()[-1].split(";")[0]
