from __future__ import annotations

import pytest

from arena.judges.ngram import NgramJudge


@pytest.fixture
def judge() -> NgramJudge:
    return NgramJudge()
