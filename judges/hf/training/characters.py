"""The characters of the bundled judge's story corpus, and the seasons and times of day its
stories open with. Characters recur across stories and lean towards a home theme
(`arena.judges.hf.training.themes`), so their names carry information too."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Character:
    """A recurring character: name, pronouns, a short description and a home theme."""

    name: str
    pro: str  # she / he
    pos: str  # her / his
    obj: str  # her / him
    kind: str  # "a young sailor"
    home: str  # theme name


def _c(name: str, pro: str, kind: str, home: str) -> Character:
    pos, obj = ("her", "her") if pro == "she" else ("his", "him")
    return Character(name, pro, pos, obj, kind, home)


CHARACTERS: tuple[Character, ...] = (
    _c("Mira", "she", "a young sailor", "sea"),
    _c("Tomas", "he", "an old fisherman", "river"),
    _c("Elin", "she", "a girl who loved the woods", "forest"),
    _c("Bram", "he", "a quiet woodcutter", "forest"),
    _c("Anya", "she", "a brave climber", "mountain"),
    _c("Otto", "he", "a boy with red mittens", "snow"),
    _c("Rosa", "she", "a patient gardener", "garden"),
    _c("Samir", "he", "a cheerful merchant", "market"),
    _c("Leo", "he", "a young knight", "castle"),
    _c("Ada", "she", "a curious librarian", "library"),
    _c("Nell", "she", "a baker with floury hands", "bakery"),
    _c("Finn", "he", "a farmer's son", "farm"),
    _c("Vega", "she", "a girl who counted stars", "stars"),
    _c("Kofi", "he", "a camel driver", "desert"),
    _c("Lila", "she", "a singer with a clear voice", "music"),
    _c("Gus", "he", "a clever inventor", "workshop"),
    _c("Pip", "he", "a small clown", "circus"),
    _c("Juno", "she", "an acrobat", "circus"),
)

SEASONS: tuple[str, ...] = ("spring", "summer", "autumn", "winter")
TIMES: tuple[str, ...] = ("early", "grey", "bright", "cold", "warm", "quiet", "windy")
