"""A deterministic procedural corpus of short stories for the bundled judge.

Every story belongs to one theme (see `themes.py`; its characters: `characters.py`) and uses
part of the theme's vocabulary, so topically related words carry information about it.
Training documents put prefix-like contexts before (and sometimes after) a story: bare word
lists, tag lines, titles, notes and summaries, whose words are partly in the story and
partly other words of its theme. That is the shape of an Xent game move, so short prefixes
of 5-10 words become informative.

Whitespace convention, shared with the judge (dialect `xgl`): a document is segments joined
by single spaces, on one line, with no leading or trailing space; the trainer tokenises it as
BOS + tokenize(" " + document), which splits exactly like the judge's
BOS + tokenize(" " + prefix) + tokenize(" " + story).
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass

from arena.judges.hf.training.characters import CHARACTERS, SEASONS, TIMES, Character
from arena.judges.hf.training.themes import THEMES, Theme

TRAIN_SEED = 20240521
HELDOUT_SEED = 977_131  # disjoint stream: held-out stories never come from the training seed

_OPENINGS = (
    "{name} was {kind} who lived in {town}, not far from the {place}.",
    "One {time} morning in {season}, {name} walked down to the {place}.",
    "Every {season}, {name} and {friend} spent their days at the {place}.",
    "In the town of {town}, there lived {kind} called {name}.",
    "{name} woke up early, because today {pro} wanted to visit the {place}.",
    "It was a {time} day in {town}, and {name} was on {pos} way to the {place}.",
)
_INCITING = (
    "There, {pro} found a {adj} {thing} lying on the ground.",
    "But when {pro} arrived, {friend} was waiting with bad news: {problem}.",
    "Suddenly {name} saw that {problem}.",
    "{pro} had brought {pos} {thing}, just in case.",
    "A {creature} came close and looked at {obj} with curious eyes.",
    "Nobody in {town} knew it yet, but {problem}.",
)
_MIDDLE = (
    "{name} {a}.",
    "Then {friend} {a}.",
    "Together they {a}.",
    "First {pro} {a}, and then {pro} {b}.",
    "While {friend} {a}, {name} {b}.",
)
_DIALOGUE = (
    '"We need the {thing} before it gets dark," said {friend}.',
    '"Look at the {creature}!" cried {name}.',
    '"I have never seen such a {adj} {place}," said {name}.',
    '"Do you think the {thing} will help?" asked {friend}.',
    '"Stay close to me," {name} told the {creature}.',
)
_RESOLUTIONS = (
    "In the end, the {thing} was exactly what they needed.",
    "With the help of the {creature}, they solved the problem before evening.",
    "{friend} laughed, and {name} laughed too, because everything was fine.",
    "At last {name} understood what the {creature} had been trying to say.",
    "It took all day, but {pro} did not give up.",
)
_TITLES = (
    "The {Adj} {Thing}",
    "{name} and the {Creature}",
    "A {Season} at the {Place}",
    "{name} of {town}",
    "The {Creature} of the {Place}",
)
_SUMMARIES = (
    "{name} and {friend} go to the {place} in {town}, where {problem}.",
    "{name} finds a {thing} at the {place} and meets a {creature}.",
    "A story about {name}, a {creature} and a {adj} {thing}.",
)
_NOTES = (
    "Note: a {adj} story about {name} and the {creature}.",
    "Note: this story takes place in {town}, near the {place}.",
    "Note: a short story for children about a {thing}.",
)

_WORD_RE = re.compile(r"\S+")
_A_VOWEL_RE = re.compile(r"\b([Aa]) ([aeiouAEIOU])")


def word_set(text: str) -> set[str]:
    """Lower-cased words of `text` with ASCII punctuation stripped (XGL's word helpers)."""
    table = str.maketrans("", "", string.punctuation)
    return {w for w in (m.group().lower().translate(table) for m in _WORD_RE.finditer(text)) if w}


@dataclass(frozen=True)
class Story:
    """One generated story with the facts that its prefixes and the checks draw on."""

    text: str
    theme: Theme
    title: str
    summary: str
    note: str
    main: Character
    friend: Character

    @property
    def words(self) -> set[str]:
        return word_set(self.text)

    def related_absent(self) -> list[str]:
        """Words of the story's theme that do not occur in the story, in a fixed order."""
        seen = self.words
        return [w for w in self.theme.vocabulary if w not in seen]

    def related_present(self) -> list[str]:
        seen = self.words
        return [w for w in self.theme.vocabulary if w in seen]


def general_vocabulary() -> list[str]:
    """Every topical word of every theme, sorted: the pool of 'random' words for checks."""
    return sorted({w for t in THEMES for w in t.vocabulary})


def _articles(text: str) -> str:
    """'a' before a vowel becomes 'an' (the templates write 'a {adj} {thing}')."""
    return _A_VOWEL_RE.sub(lambda m: m.group(1) + "n " + m.group(2), text)


def _cap(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _pick_characters(rng: random.Random, theme: Theme) -> tuple[Character, Character]:
    locals_ = [c for c in CHARACTERS if c.home == theme.name]
    # Characters lean towards their home theme, so a name is a hint about the story.
    main = rng.choice(locals_) if locals_ and rng.random() < 0.7 else rng.choice(CHARACTERS)
    friend = rng.choice([c for c in CHARACTERS if c is not main])
    return main, friend


def make_story(rng: random.Random) -> Story:
    """One story drawn from `rng`; the same generator state gives the same story."""
    theme = rng.choice(THEMES)
    main, friend = _pick_characters(rng, theme)
    adj, adj2 = rng.sample(theme.adjectives, 2)
    slots = {
        "name": main.name,
        "pro": main.pro,
        "pos": main.pos,
        "obj": main.obj,
        "kind": main.kind,
        "friend": friend.name,
        "town": theme.town,
        "place": rng.choice(theme.places),
        "thing": rng.choice(theme.objects),
        "creature": rng.choice(theme.creatures),
        "adj": adj,
        "adj2": adj2,
        "season": rng.choice(SEASONS),
        "time": rng.choice(TIMES),
        "problem": rng.choice(theme.problems),
    }
    caps = {k[0].upper() + k[1:]: v.title() for k, v in slots.items()}
    fill = {**slots, **caps}
    actions = rng.sample(theme.actions, 6)
    scenery = rng.sample(theme.scenery, 2)
    sentences = [rng.choice(_OPENINGS), scenery[0], rng.choice(_INCITING)]
    for i in range(rng.randint(2, 3)):
        # Each middle sentence gets its own pair of actions, so none repeats.
        fill["a"], fill["b"] = actions[2 * i], actions[2 * i + 1]
        sentences.append(rng.choice(_MIDDLE).format(**fill))
    if rng.random() < 0.5:
        sentences.append(scenery[1])
    if rng.random() < 0.7:
        sentences.insert(rng.randint(3, len(sentences)), rng.choice(_DIALOGUE))
    sentences += [rng.choice(_RESOLUTIONS), rng.choice(theme.endings)]
    text = _articles(" ".join(_cap(s.format(**fill)) for s in sentences))
    return Story(
        text=text,
        theme=theme,
        main=main,
        friend=friend,
        title=_articles(rng.choice(_TITLES).format(**fill)),
        summary=_articles(_cap(rng.choice(_SUMMARIES).format(**fill))),
        note=_articles(rng.choice(_NOTES).format(**fill)),
    )


def generate_stories(n_stories: int, seed: int) -> list[Story]:
    """`n_stories` stories, reproducible from `seed` in any process."""
    return [make_story(random.Random(f"story:{seed}:{i}")) for i in range(n_stories)]


def heldout_stories(n_stories: int, seed: int = HELDOUT_SEED) -> list[Story]:
    """Stories from a seed stream that training never uses, for checks and tests."""
    if seed == TRAIN_SEED:
        raise ValueError(f"held-out seed {seed} equals TRAIN_SEED; pick another seed")
    return generate_stories(n_stories, seed)


def tag_words(story: Story, rng: random.Random, k: int) -> list[str]:
    """`k` theme words: some from the story, most from its theme but absent from it."""
    present, absent = story.related_present(), story.related_absent()
    out: list[str] = []
    for _ in range(k):
        pool = present if present and (rng.random() < 0.4 or not absent) else absent
        choices = [w for w in pool if w not in out] or [w for w in present + absent if w not in out]
        if not choices:
            break
        out.append(rng.choice(choices))
    if rng.random() < 0.15:  # a character name among the tags, now and then
        out.insert(rng.randint(0, len(out)), story.main.name)
    if len(out) > 1 and rng.random() < 0.1:
        # An off-topic word now and then, so one stray word in a move is not a catastrophe.
        out[rng.randrange(len(out))] = rng.choice(general_vocabulary())
    return out


def format_document(story: Story, rng: random.Random) -> str:
    """The story in one of several layouts, with prefix-like contexts before or after it."""
    # From one word up: a game move may be a single word, and must not read as a cut-off list.
    tags = tag_words(story, rng, rng.randint(1, 10))
    text, roll = story.text, rng.random()
    if roll < 0.18:
        return text
    if roll < 0.45:
        return " ".join(tags) + " " + text
    if roll < 0.52:
        return f"Tags: {', '.join(tags)}. {text}"
    if roll < 0.57:
        return f"Keywords: {' '.join(tags)}. {text}"
    if roll < 0.67:
        title = story.title if rng.random() < 0.5 else f"Title: {story.title}"
        return f"{title}. {text}"
    if roll < 0.75:
        return f"Summary: {story.summary} {text}"
    if roll < 0.80:
        return f"{story.note} {text}"
    if roll < 0.90:
        head = f"Title: {story.title}. Tags: {', '.join(tags)}."
        return f"{head} Story: {text}" if rng.random() < 0.5 else f"{head} {text}"
    tail = rng.choice(
        (f"Tags: {', '.join(tags)}.", f"Summary: {story.summary}", "The end.", " ".join(tags))
    )
    return f"{text} {tail}"


def generate_corpus(n_stories: int, seed: int = TRAIN_SEED) -> list[str]:
    """`n_stories` training documents (one story each), reproducible from `seed`."""
    docs = []
    for i, story in enumerate(generate_stories(n_stories, seed)):
        docs.append(format_document(story, random.Random(f"layout:{seed}:{i}")))
    return docs
