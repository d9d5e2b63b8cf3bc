"""The players a person may pick for the other seats of a page match: the organiser's list.

A player spec is power over the server (an LLM spec names a URL and the environment
variable its key is read from; `remote` opens a port; `human` prompts the organiser's
console; `hf:` loads a model from a path), so the page never runs a spec a browser wrote.
The organiser lists the specs (`arena play-server --opponent SPEC`, repeatable; default
`DEFAULT_OPPONENTS`) and a browser picks one of them, exactly as listed. One form takes
text from the browser: `scripted:*` lets the person write the script the other seat plays
(scripted moves are plain text, the one argument that is safe to take from anyone).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.errors import ArenaError, ConfigError
from arena.plugins.registry import Registry
from arena.redaction import is_secret_param, looks_like_key
from arena.specs import parse_spec, shorten

DEFAULT_OPPONENTS = ("random", "search", "scripted:*", "hf:bundled")
ANY_TEXT = "*"
TEXT_KINDS = ("scripted",)  # kinds whose argument is text they play, nothing else
NEVER = ("human", "remote")  # a page match's other seats are programs run here
MAX_SCRIPT_CHARS = 2_000


@dataclass(frozen=True)
class Opponent:
    spec: str  # as the organiser wrote it; `kind:*` for a script written on the page
    help: str

    @property
    def takes_text(self) -> bool:
        return self.spec.endswith(":" + ANY_TEXT)


@dataclass(frozen=True)
class Opponents:
    """The organiser's list, checked once at start."""

    entries: tuple[Opponent, ...]

    @classmethod
    def from_specs(cls, specs: Iterable[str], registry: Registry,
                   option: str = "--opponent") -> Opponents:
        """Check the organiser's specs (known kinds, valid options); raises ConfigError
        naming the first bad one (and the `option` it came with). The ladder's models
        (`--model`) are held to the same rules: they are programs run here too."""
        entries = []
        for text in dict.fromkeys(s.strip() for s in specs):
            spec = parse_spec(text)
            if spec.name not in registry.player_names():
                raise ConfigError(
                    f"{option} {text!r}: no player kind '{spec.name}'. Installed kinds: "
                    f"{', '.join(registry.player_names())}."
                )
            if spec.name in NEVER:
                raise ConfigError(
                    f"{option} {text!r}: '{spec.name}' cannot play the other seats of a "
                    "page match (they are played by programs in this server). Pick from "
                    f"e.g. {', '.join(DEFAULT_OPPONENTS)}."
                )
            if any(is_secret_param(k) for k in spec.params) or looks_like_key(text):
                raise ConfigError(
                    f"{option} {spec.name}:…: the page lists this spec to every visitor, "
                    "so it may not hold a key; name the variable that holds it instead, "
                    "e.g. api_key_env=OPENAI_API_KEY."
                )
            if spec.arg == ANY_TEXT:
                if spec.name not in TEXT_KINDS or spec.params:
                    raise ConfigError(
                        f"{option} {text!r}: only {', '.join(TEXT_KINDS)} may take its "
                        f"argument from the page, written '{TEXT_KINDS[0]}:*' without "
                        "options; give the other kinds in full, e.g. hf:bundled."
                    )
            else:
                try:  # a bad option is the organiser's to hear now, not a visitor's
                    registry.check_spec("player", spec)
                except ArenaError as error:
                    raise ConfigError(f"{option} {text!r}: {error}") from None
            entries.append(Opponent(text, registry.player_entry(spec.name).description))
        if not entries:
            raise ConfigError(f"Give at least one {option}, e.g. {option} random.")
        return cls(tuple(entries))

    def check(self, role: str, text: str) -> str:
        """The spec to run for `role` if `text` is on the list (a `kind:*` entry takes any
        script), else ConfigError listing what may be picked."""
        text = text.strip()
        for entry in self.entries:
            if not entry.takes_text and text == entry.spec:
                return text
            if entry.takes_text and text.startswith(entry.spec[:-1]):
                script = text[len(entry.spec) - 1:]
                if "?" in script or not script or len(script) > MAX_SCRIPT_CHARS:
                    raise ConfigError(
                        f"The script for {role} must be 1 to {MAX_SCRIPT_CHARS} characters "
                        "without '?', moves separated by '|'; e.g. 'scripted:hello|world'."
                    )
                return text
        raise ConfigError(
            f"{role} cannot be played by {shorten(text, 60)!r}: pick one of the players "
            f"this server offers: {', '.join(e.spec for e in self.entries)}."
        )

    def offered(self) -> list[dict[str, object]]:
        """What the page lists for each other seat."""
        return [{"spec": e.spec, "text": e.takes_text, "help": e.help} for e in self.entries]
