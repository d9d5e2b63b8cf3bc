"""Extracting moves from model replies: tags, last tag wins, think blocks, missing tags."""

from __future__ import annotations

from arena.players.llm.reply_parsing import MissingMoveTags, parse_reply, strip_thinking


def test_one_tag_per_register() -> None:
    reply = 'Sure.\n<move register="t1">red fox</move>\n<move register="t2"> blue jay </move>'
    assert parse_reply(reply, ("t1", "t2")) == {"t1": "red fox", "t2": "blue jay"}


def test_last_tag_wins() -> None:
    reply = '<move register="t">draft</move> hmm, better: <move register="t">final</move>'
    assert parse_reply(reply, ("t",)) == {"t": "final"}


def test_attribute_spellings_and_bare_tag_for_one_register() -> None:
    assert parse_reply("<MOVE register='t'>a</MOVE>", ("t",)) == {"t": "a"}
    assert parse_reply("<move register=t>b</move>", ("t",)) == {"t": "b"}
    assert parse_reply("<move>c</move>", ("t",)) == {"t": "c"}
    # a bare tag is ambiguous with two registers
    assert isinstance(parse_reply("<move>c</move>", ("t", "x")), MissingMoveTags)


def test_think_blocks_are_ignored() -> None:
    reply = '<think>maybe <move register="t">wrong</move></think><move register="t">right</move>'
    assert parse_reply(reply, ("t",)) == {"t": "right"}
    # the opening tag was in the prompt: only a closing tag in the reply
    assert parse_reply('<move register="t">x</move></think><move register="t">y</move>',
                       ("t",)) == {"t": "y"}
    # an unclosed think block hides everything after it
    assert strip_thinking('<move register="t">kept</move><think>and <move>no</move>') == (
        '<move register="t">kept</move>'
    )


def test_unclosed_final_tag_is_used_only_when_nothing_closed() -> None:
    assert parse_reply('<move register="t">cut off by the token lim', ("t",)) == {
        "t": "cut off by the token lim"
    }
    assert parse_reply('<move register="t">done</move><move register="t">agai', ("t",)) == {
        "t": "done"
    }


def test_missing_tags_carry_a_correction() -> None:
    result = parse_reply('I would say "hello". <move register="t">ok</move>', ("t", "x"))
    assert isinstance(result, MissingMoveTags)
    assert result.missing == ("x",) and result.found == {"t": "ok"}
    assert '<move register="x">your move</move>' in result.correction()
    assert "x" in result.describe() and "hello" in result.describe()


def test_unrequested_registers_are_ignored_and_empty_moves_allowed() -> None:
    reply = '<move register="s">secret?</move><move register="t"></move>'
    assert parse_reply(reply, ("t",)) == {"t": ""}
