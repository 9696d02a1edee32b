"""Score one player's holdings for a given assignment of patricians: the rulebook's arithmetic.

This module is the definition of the final scoring (rule ids `final.*` in seeds/RULES.md);
the optimiser only searches for the assignment that this arithmetic rates highest, and the tests
check the optimiser's claim against it.

>>> from scanner.rules.final.holdings import Province, Patrician, Holdings
>>> red3, w = Province("red", 3), Patrician("red", "f", 2)
>>> h = Holdings("grey", provinces=(red3,), patricians=(w,), senate=("IX",), fortuna=(3,), repete=5)
>>> s = score(h, [Fill(slots(h)[0], (w,))])
>>> s.total, s.breakdown
(11, {'provinces': 3, 'patricians': 2, 'senate': 1, 'fortuna': 3, 'repete': 2})
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from scanner.rules.final.holdings import (
    BORDER,
    FREE,
    BorderCard,
    Holdings,
    Patrician,
    Province,
)

EMPTY_COLOR = "grey"  # final.card.VII: an empty free province (or joker) is a colour of its own
BORDER_COUPLE_POINTS = 3  # final.border
FREE_OCCUPIED_POINTS = 1  # final.free


@dataclass(frozen=True)
class Slot:
    """Somewhere patricians can live: a province tile (the joker too), a border or free card.

    `index` is the position in the player's `provinces` (tiles) or `senate` list (cards).
    """

    kind: str  # "province" | "border" | "free"
    index: int
    province: Province | None = None
    border: BorderCard | None = None

    def __str__(self) -> str:
        if self.kind == "province":
            return str(self.province)
        return str(self.border) if self.kind == "border" else "free province"

    def to_json(self) -> dict[str, Any]:
        if self.kind == "province":
            return {"kind": "province", **self.province.to_json()}  # type: ignore[union-attr]
        if self.kind == "border":
            return {"kind": "border", **self.border.to_json()}  # type: ignore[union-attr]
        return {"kind": "free", "card": FREE}


@dataclass(frozen=True)
class Fill:
    """The patricians on one slot: nobody, a single, a couple, or a couple with offspring (XI)."""

    slot: Slot
    occupants: tuple[Patrician, ...] = ()
    offspring: Patrician | None = None

    @property
    def placed(self) -> tuple[Patrician, ...]:
        return self.occupants + ((self.offspring,) if self.offspring else ())

    @property
    def is_couple(self) -> bool:
        return len(self.occupants) == 2

    @property
    def color(self) -> str | None:
        """The occupants' colour (one colour by legality), None when empty."""
        return self.occupants[0].color if self.occupants else None


def slots(h: Holdings) -> list[Slot]:
    """Every place a patrician could go, in input order: province tiles, then XII/XIII cards."""
    out = [Slot("province", i, province=p) for i, p in enumerate(h.provinces)]
    for i, card in enumerate(h.senate):
        if isinstance(card, BorderCard):
            out.append(Slot("border", i, border=card))
        elif card == FREE:
            out.append(Slot("free", i))
    return out


def legality_problem(h: Holdings, fills: list[Fill]) -> str | None:
    """Why `fills` is not a legal end-of-game assignment for `h`, or None when it is.

    Legal (final.province, final.border, final.free, final.card.XI): each patrician at most once
    and only one the player owns; at most one woman and one man per slot, all of one colour,
    which the slot accepts; offspring only with a couple, only with card XI.
    """
    owned = set(h.patricians)
    used: list[Patrician] = [p for f in fills for p in f.placed]
    if len(used) != len(set(used)) or not set(used) <= owned:
        return "a patrician is placed twice or is not the player's"
    if sorted((f.slot.kind, f.slot.index) for f in fills) != sorted(
        (s.kind, s.index) for s in slots(h)
    ):
        return "fills do not match the player's slots one to one"
    for f in fills:
        sexes = sorted(p.sex for p in f.occupants)
        if sexes not in ([], ["f"], ["m"], ["f", "m"]):
            return f"{f.slot} holds more than one woman and one man"
        if len({p.color for p in f.occupants}) > 1:
            return f"{f.slot} holds patricians of two colours"
        if f.offspring and ("XI" not in h.cards or not f.is_couple):
            return f"{f.slot} has offspring without card XI and a couple"
        if f.slot.kind == "province" and not f.slot.province.is_joker:  # type: ignore[union-attr]
            allowed = {f.slot.province.color}  # type: ignore[union-attr]
        elif f.slot.kind == "border":
            allowed = set(f.slot.border.colors)  # type: ignore[union-attr]
        else:
            allowed = None  # joker and free province: any one colour
        colors = {p.color for p in f.occupants}
        if allowed is not None and not colors <= allowed:
            return f"{f.slot} cannot hold {', '.join(sorted(colors))} patricians"
        if f.offspring:
            ok = allowed if f.slot.kind == "border" else {f.color}
            if f.offspring.color not in ok:  # type: ignore[operator]
                return f"{f.slot}: the offspring's colour does not fit"
    return None


class CardScore(TypedDict):
    """One Senate card of the player and its points; a border card names its `colors`."""

    card: str
    points: int
    colors: NotRequired[list[str]]


@dataclass(frozen=True)
class PlayerScore:
    """The scored result for one player; `to_json` gives the contract's player object."""

    player: str
    total: int
    breakdown: dict[str, int]
    cards: list[CardScore]
    fills: list[tuple[Fill, int]]  # [(Fill, province points)]
    unplaced: list[Patrician]
    unplaced_value: int


def fill_points(f: Fill) -> int:
    """Points of the slot itself: province tile value (−1 empty), border 3/0, free 1/0."""
    occupied = bool(f.occupants)
    if f.slot.kind == "province":
        p = f.slot.province
        return 0 if p.is_joker else p.value - (0 if occupied else 1)  # type: ignore[union-attr]
    if f.slot.kind == "border":
        return BORDER_COUPLE_POINTS if f.is_couple else 0
    return FREE_OCCUPIED_POINTS if occupied else 0


def card_points(h: Holdings, fills: list[Fill]) -> dict[str, int]:
    """Points of each single card I–XI the player holds (final.card.*), given the assignment."""
    placed = [p for f in fills for p in f.placed]
    tiles = [f for f in fills if f.slot.kind == "province"]
    province_colors: set[str] = set()
    for f in fills:
        if f.slot.kind == "border":
            province_colors |= set(f.slot.border.colors)  # type: ignore[union-attr]
        elif f.slot.kind == "free" or f.slot.province.is_joker:  # type: ignore[union-attr]
            province_colors.add(f.color or EMPTY_COLOR)
        else:
            province_colors.add(f.slot.province.color)  # type: ignore[union-attr]
    formulas: dict[str, Callable[[], int]] = {
        "I": lambda: 1 + len(fills) // 2,
        "II": lambda: len(placed) // 2,
        "III": lambda: 1 + len(h.senate),
        "IV": lambda: 1 + 2 * (len(h.fortuna) // 3),
        "V": lambda: 1 + sum(f.is_couple for f in fills),
        "VI": lambda: len({p.color for p in placed}),
        "VII": lambda: len(province_colors),
        "VIII": lambda: sum(bool(f.occupants) for f in tiles),
        "IX": lambda: sum(p.sex == "f" for p in placed),
        "X": lambda: sum(p.sex == "m" for p in placed),
        "XI": lambda: 0,
    }
    return {c: formulas[c]() for c in h.cards}


def score(h: Holdings, fills: list[Fill]) -> PlayerScore:
    """The total and its parts for `h` with patricians placed as in `fills` (one Fill per slot)."""
    by_slot = {(f.slot.kind, f.slot.index): f for f in fills}
    singles = card_points(h, fills)
    cards: list[CardScore] = []
    for i, c in enumerate(h.senate):
        if isinstance(c, BorderCard):
            cards.append(
                {
                    "card": BORDER,
                    "colors": list(c.colors),
                    "points": fill_points(by_slot["border", i]),
                }
            )
        elif c == FREE:
            cards.append({"card": FREE, "points": fill_points(by_slot["free", i])})
        else:
            cards.append({"card": c, "points": singles[c]})
    placed = {p for f in fills for p in f.placed}
    unplaced = [p for p in h.patricians if p not in placed]
    breakdown = {
        "provinces": sum(fill_points(f) for f in fills if f.slot.kind == "province"),
        "patricians": sum(p.value for p in placed),
        "senate": sum(c["points"] for c in cards),
        "fortuna": sum(h.fortuna),
        "repete": h.repete // 2,
    }
    return PlayerScore(
        player=h.player,
        total=sum(breakdown.values()),
        breakdown=breakdown,
        cards=cards,
        fills=[(f, fill_points(f)) for f in fills],
        unplaced=unplaced,
        unplaced_value=sum(p.value for p in unplaced),
    )
