"""Human-readable rendering of runtime events (terminal transcript)."""

from __future__ import annotations

from arena.events import Event


def _short(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render_event(event: Event) -> str:
    """One line (or a few) describing an event."""
    where = f"[r{event.round} l{event.line}]"
    who = event.player or ""
    if event.type == "round_started":
        return f"── round {event.round} ──"
    if event.type == "elicit_request":
        shown = ", ".join(f"{k}={_short(v, 40)!r}" for k, v in event.registers.items())
        attempt = f" (attempt {event.attempt})" if event.attempt > 1 else ""
        asked = f"{', '.join(event.targets)} ≤{event.max_len} tokens{attempt}"
        return f"{where} {who} asked for {asked}; sees {{{shown}}}"
    if event.type == "elicit_response":
        moves = ", ".join(f"{k}={_short(v)!r}" for k, v in event.values.items())
        return f"{where} {who} plays {moves}{' (cut)' if event.cut else ''}"
    if event.type == "assign":
        shown = ", ".join(f"{k}={_short(str(v), 60)!r}" for k, v in event.values.items())
        return f"{where} assign {shown}"
    if event.type == "reveal":
        shown = ", ".join(f"{k}={_short(v, 60)!r}" for k, v in event.values.items())
        return f"{where} reveal to {who}: {shown}"
    if event.type == "reward":
        terms = " ".join(f"{t.source}={t.total:+.2f}" for t in event.terms)
        mirror = " (zero-sum mirror)" if event.mirrored else ""
        return f"{where} {who} rewarded {event.total:+.3f} bits{mirror}: {terms}"
    if event.type == "failed_ensure":
        return (
            f"{where} {who} failed ensure {event.condition!r} "
            f"({event.failures}/{event.budget})"
        )
    if event.type == "forfeit":
        return f"{where} {who} FORFEITS: {event.reason}"
    if event.type == "no_result":
        return f"{where} NO RESULT for this match: {event.reason}"
    if event.type == "runtime_error":
        return f"{where} runtime error: {event.message}"
    if event.type == "round_finished":
        scores = ", ".join(
            f"{r}={'forfeit' if s is None else f'{s:.3f}'}" for r, s in event.scores.items()
        )
        return f"── round {event.round} finished: {scores}"
    return f"{where} {event.type}"
