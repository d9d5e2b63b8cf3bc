"""The LLM prompt builder: everything in the information set is shown, bounded."""

from __future__ import annotations

from arena.players.llm.prompting import (
    XGL_EXPLANATION,
    PromptOptions,
    build_messages,
    build_prompt_text,
    render_term,
)
from arena.players.llm.reply_parsing import parse_reply
from arena.protocols.player import (
    GameView,
    HistoryItem,
    MoveRequest,
    RevealedValue,
    RewardTermView,
    RoundMemory,
)

CODE = (
    'assign(a="the harbour at dawn", s=story())\n'
    "reveal(alice, s)\n"
    "elicit(alice, t, 6)\n"
    "reward(alice, xed(s | t))\n"
    'ensure(t != "boat")\n'
    "elicit(alice, x, y, 6)\n"
)
REVEAL = RevealedValue(label="s", value="gulls circled the quiet pier", line=2)
TERM = RewardTermView(
    source="xed(s | t)",
    coefficient=2,
    bits=(1.25, -0.5, 3.0),
    tokens=("gulls", " circled", " pier"),
    total=7.5,
)
HISTORY = (
    HistoryItem(kind="reveal", line=2, reveal=REVEAL),
    HistoryItem(kind="move", line=3, moves={"t": "fishing boats at rest"}, cut=("t",)),
    HistoryItem(kind="reward", line=4, reward=7.5, terms=(TERM,)),
    HistoryItem(kind="failed_ensure", line=5, condition='t != "boat"'),
)


def make_request(**changes: object) -> MoveRequest:
    fields: dict[str, object] = dict(
        game=GameView(name="harbour", code=CODE, dialect="xgl", header="a test game"),
        role="alice",
        round=2,
        rounds=3,
        line=6,
        registers=("x", "y"),
        max_len=6,
        visible={"a": "the harbour at dawn"},
        reveals=(REVEAL,),
        history=HISTORY,
        attempt=2,
        failed_condition='t != "boat"',
    )
    fields.update(changes)
    return MoveRequest(**fields)  # type: ignore[arg-type]


def full_text(request: MoveRequest, options: PromptOptions | None = None) -> str:
    return "\n".join(m["content"] for m in build_messages(request, options))


def test_prompt_contains_the_whole_information_set() -> None:
    text = full_text(make_request())
    for line in CODE.splitlines():
        assert line in text  # the game code, line by line
    assert XGL_EXPLANATION in text
    assert "'alice'" in text and "asks you, alice" in text
    assert 'a = "the harbour at dawn"' in text  # visible register
    assert '"gulls circled the quiet pier"' in text  # reveal
    assert '"fishing boats at rest" (cut to the length limit)' in text  # own move, cut
    assert "+7.50 bits" in text and "counted x2" in text  # reward and coefficient
    assert '"gulls" +1.25' in text and '" circled" -0.50' in text  # per-token values
    assert 'failed the condition t != "boat"' in text  # failed ensure in history
    assert 'Attempt 2: your previous move made the condition t != "boat" fail' in text
    assert "at most 6 judge tokens" in text
    assert '<move register="x">' in text and '<move register="y">' in text


def test_previous_rounds_only_when_present() -> None:
    assert "earlier rounds" not in full_text(make_request())
    memory = RoundMemory(
        round=1,
        history=(HistoryItem(kind="move", line=3, moves={"t": "lighthouse keeper"}),),
        score=4.5,
    )
    text = full_text(make_request(previous_rounds=(memory,)))
    assert "Your earlier rounds" in text and "Round 1 (score +4.50 bits)" in text
    assert '"lighthouse keeper"' in text
    forfeited = RoundMemory(round=1, history=(), score=None)
    assert "Round 1 (forfeited)" in full_text(make_request(previous_rounds=(forfeited,)))


def test_previous_rounds_are_bounded_to_the_most_recent() -> None:
    memories = tuple(
        RoundMemory(round=r, history=(HistoryItem(kind="move", line=3, moves={"t": f"m{r}"}),),
                    score=float(r))
        for r in range(1, 9)
    )
    text = full_text(make_request(previous_rounds=memories), PromptOptions(max_previous_rounds=2))
    assert '"m8"' in text and '"m7"' in text and '"m6"' not in text
    assert "(6 earlier rounds not shown)" in text


def test_per_token_feedback_is_bounded() -> None:
    term = RewardTermView(source="xent(s)", coefficient=1, bits=tuple([0.5] * 100),
                          tokens=tuple(f" w{i}" for i in range(100)), total=50.0)
    text = render_term(term, max_tokens=10)
    assert '" w9"' in text and '" w10"' not in text
    assert "90 more tokens totalling +45.00" in text


def test_terms_over_hidden_text_show_their_total_only() -> None:
    term = RewardTermView(source="xed(s | t) - xed(t | s)", coefficient=1, bits=(),
                          tokens=(), total=1.75, hidden=True)
    text = render_term(term, max_tokens=10)
    assert "xed(s | t) - xed(t | s): +1.75 bits in all" in text and "hidden from you" in text
    assert "per token" not in text and "#1" not in text


def test_first_attempt_has_no_failure_notice_and_omniscient_is_told() -> None:
    text = full_text(make_request(attempt=1, failed_condition="", role="black", omniscient=True))
    assert "Attempt" not in text
    assert "You are omniscient" in text


def test_chain_of_thought_scaffold_is_optional() -> None:
    assert "<think>" not in full_text(make_request())
    assert "think step by step inside <think>" in full_text(make_request(), PromptOptions(cot=True))


def test_completion_prompt_has_the_same_content_and_ends_with_the_cue() -> None:
    text = build_prompt_text(make_request())
    assert XGL_EXPLANATION in text and '"gulls circled the quiet pier"' in text
    assert text.endswith("Answer:\n")


def test_the_documented_format_parses() -> None:
    # The example tags the prompt shows are exactly what the parser accepts.
    text = full_text(make_request(registers=("t",)))
    example = text[text.rindex('<move register="t">'):].split("\n")[0]
    assert parse_reply(example, ("t",)) == {"t": "your move for t"}
