"""The game's components and the numbers that depend on the player count.

Everything here is loaded from `seeds/components.json`, the table a person can read and check
against the rulebook (RULES.md `setup.*`). Names follow CONTRACT.md: a player *is* a dice colour.

>>> forum_columns(4)
6
>>> rounds(3), templum_in_play(3), senate_takers(5)
(6, False, 3)
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, TypedDict

from scanner.shipped import shipped

BUILDINGS = ("templum", "senatus", "castrum", "forum", "latrina")
DICE_PER_PLAYER = 8
DIE_VALUES = range(1, 7)
MIN_PLAYERS, MAX_PLAYERS = 2, 5


class ProvinceTile(TypedDict):
    """A province tile as the JSON writes it (`alea final`'s input, the component table)."""

    color: str
    value: int


class PatricianTile(TypedDict):
    """A patrician tile as the JSON writes it: `sex` is `f` (woman) or `m` (man)."""

    color: str
    sex: str
    value: int


class BorderCardJSON(TypedDict):
    """Senate card XII as the JSON writes it: a border province of two tile colours."""

    card: str
    colors: list[str]


SenateCardJSON = str | BorderCardJSON  # "I".."XI", "XIII", or a border card


@cache
def table() -> dict[str, Any]:
    """The parsed component table (cached: it never changes while the process runs). Its
    values are as the shipped JSON holds them: each accessor below says what it reads."""
    path = shipped("seeds/components.json")
    if not path.exists():
        raise FileNotFoundError("seeds/components.json is missing from this installation")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


PLAYER_COLORS: tuple[str, ...] = tuple(table()["dice"]["colors"])
TILE_COLORS: tuple[str, ...] = tuple(table()["tile_colors"])
SENATE_SINGLES: tuple[str, ...] = tuple(table()["senate_cards"]["singles"])
BORDER_PAIRS: tuple[tuple[str, str], ...] = tuple(
    tuple(p) for p in table()["senate_cards"]["border_pairs"]
)


class PerCount(TypedDict):
    """The numbers of one player count (`per_player_count` in the table)."""

    rounds: int
    forum_columns: int
    templum: bool
    senate_takers: int


def _per_count(players: int) -> PerCount:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Alea Iacta Est is played by 2 to 5 players, not {players}")
    numbers: PerCount = table()["per_player_count"][str(players)]
    return numbers


def forum_columns(players: int) -> int:
    """Column pedestals of the Forum: players + 2 (setup.forum)."""
    return _per_count(players)["forum_columns"]


def rounds(players: int) -> int:
    """Rounds in a game: 6 with 2–3 players, 5 with 4–5 (play.rounds)."""
    return _per_count(players)["rounds"]


def templum_in_play(players: int) -> bool:
    """The Templum is laid out only with 4 or 5 players (setup.templum)."""
    return _per_count(players)["templum"]


def senate_takers(players: int) -> int:
    """How many runs take a Senate card: 1 with 2 players, 2 with 3–4, 3 with 5 (score.senatus)."""
    return _per_count(players)["senate_takers"]


def provinces() -> list[ProvinceTile]:
    """The 25 province tiles: values 1–4 in six colours and the 0-value joker."""
    return [ProvinceTile(color=p["color"], value=p["value"]) for p in table()["provinces"]]


def patricians() -> list[PatricianTile]:
    """The 36 patrician tiles: a woman and a man of values 1–3 in each of six colours."""
    return [
        PatricianTile(color=p["color"], sex=p["sex"], value=p["value"])
        for p in table()["patricians"]
    ]


def fortuna_tiles() -> list[int]:
    """The 30 Fortuna tiles by face value (8×1, 14×2, 8×3)."""
    return [int(v) for v, n in sorted(table()["fortuna"].items()) for _ in range(n)]


def senate_deck(players: int) -> list[SenateCardJSON]:
    """The Senate cards in play: I–XI (IV removed with 2–3 players), six border, two free."""
    removed = set(table()["senate_cards"]["removed_with_2_3_players"]) if players <= 3 else set()
    deck: list[SenateCardJSON] = [c for c in SENATE_SINGLES if c not in removed]
    deck += [BorderCardJSON(card="XII", colors=list(p)) for p in BORDER_PAIRS]
    deck += ["XIII"] * table()["senate_cards"]["free"]
    return deck
