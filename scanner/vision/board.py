"""Detected dice → the board state: which building each die lies in, and what that means.

Input: the detector's `Dice` on the *rectified* board image (boxes in its pixels), so
a die's position in board millimetres is its box centre divided by the layout's `px_per_mm`,
corrected for parallax when the camera's position is known (a die's top face is seen pushed away
from the camera, up to ~8 mm near the board's edge). Zone membership is decided in millimetres
with the layout's tolerance band on top, so a die lying across a zone's edge still counts and one
clearly outside does not.

What the camera sees is not always a legal board: a misread pip, a die of unknown colour, a hand
that nudged a die. The reading never fails for that: each building's reading repairs what its
rule forbids (the Senate keeps the longest run, the Forum is sorted and cut to its columns,
`_distinct` leaves out the second of two equal counts, runs or sets), says in `warnings` what it
left out or reordered, and the result is built as a `BoardState` directly. `seen` is the board
as it lies, unrepaired, for the referee. The rules themselves live in `scanner.rules`; this
module only groups dice.

>>> from scanner.vision.layout import default_layout
>>> lay = default_layout()
>>> from scanner.vision.dice import Dice
>>> def die(x, y, color, value):  # a 16 mm die centred at (x, y) mm, as the detector boxes it
...     s = lay.px_per_mm
...     return {"value": value, "color": color, "confidence": 0.9,
...             "bbox": [(x - 8) * s, (y - 8) * s, (x + 8) * s, (y + 8) * s]}
>>> dice = Dice.from_json([die(72, 175, "blue", 2), die(102, 175, "green", 5),
...                        die(200, 100, "blue", 3), die(220, 100, "blue", 4)])
>>> r = read_board(dice, lay, players=["blue", "green"])
>>> r.state.to_json()["forum"], r.state.to_json()["senatus"]
([{'player': 'blue', 'value': 2}, {'player': 'green', 'value': 5}], {'blue': [3, 4]})
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.inputs import parse_seating
from scanner.rules.components import (
    DICE_PER_PLAYER,
    MIN_PLAYERS,
    PLAYER_COLORS,
    forum_columns,
    templum_in_play,
)
from scanner.rules.state import BoardState, CastrumSet, ForumDie, check_invariants
from scanner.vision.dice import Dice, Die
from scanner.vision.layout import Layout
from scanner.vision.zones import locate

NAMES = {
    "templum": "Templum",
    "senatus": "Senate",
    "castrum": "Castrum",
    "forum": "Forum",
    "latrina": "Latrina",
}


# A die read with less confidence than this is shown as a question, never flagged. With the
# shipped reader the confidence is how often such a reading is right on validation scenes
# (scanner.vision.certainty): under 0.6, a flag built on it would be wrong four times in ten.
UNSURE_BELOW = 0.6


@dataclass
class BoardReading:
    """The board stage's output: the state (None if there is no board), every die located
    (`Dice` with `center_mm`, `building`, `pedestal`), and warnings."""

    state: BoardState | None
    dice: Dice
    warnings: list[str]
    # The board exactly as seen, rules or not: what the referee judges. `state` is the
    # closest legal one, for `alea scan` and `alea round`.
    seen: BoardState | None = None

    def unsure(self) -> list[dict]:
        """Dice in a building whose reading the referee must not build a flag on: colour
        unknown, or read with a confidence under `UNSURE_BELOW`."""
        return [
            {"building": d.building, "player": d.color, "value": d.value}
            for d in self.dice
            if d.building is not None and (d.color is None or d.confidence < UNSURE_BELOW)
        ]

    def to_json(self) -> dict:
        return {
            "state": None if self.state is None else self.state.to_json(),
            "dice": self.dice.to_json(),
            "warnings": list(self.warnings),
        }


def read_board(
    dice: Dice,
    layout: Layout,
    players: Sequence[str] | None = None,
    camera: tuple[float, float, float] | None = None,
) -> BoardReading:
    """Dice on the rectified board → BoardReading (see module docstring). `players` in seating
    order; inferred from the colours seen when not given. `camera`: see `locate`."""
    warnings: list[str] = []
    if players is None:
        seen = {c for c in dice.color if c is not None}
        who = [c for c in PLAYER_COLORS if c in seen]
        if len(who) < MIN_PLAYERS:
            pad = [c for c in PLAYER_COLORS if c not in who][: MIN_PLAYERS - len(who)]
            warnings.append(
                f"only {len(who)} player colour(s) seen; assuming players "
                f"{', '.join(who + pad)}; pass --players"
            )
            who += pad
        else:
            warnings.append(
                f"players inferred from the dice colours seen ({', '.join(who)}); a player "
                "with no die on the board is missed and seating order is unknown: "
                "pass --players"
            )
        players = who
    else:
        parse_seating(list(players))
    players = list(players)
    placed, located = locate(dice, layout, len(players), camera)
    warnings += located
    by_building = _in_buildings(placed, players, warnings)
    state = _legal_state(by_building, players, warnings)
    return BoardReading(state, placed, warnings, _seen(by_building, players))


def _in_buildings(placed: Dice, players: list[str], warnings: list[str]) -> dict[str, list[Die]]:
    """The dice in each building that can be part of a state: of a known colour that plays."""
    by_building: dict[str, list[Die]] = defaultdict(list)
    for die in placed:
        if die.building is None:
            continue
        where = NAMES[die.building]
        if die.color is None:
            warnings.append(f"a {die.value} of unknown colour in the {where}; left out")
        elif die.color not in players:
            warnings.append(
                f"a {die.color} {die.value} in the {where}, but {die.color} is "
                "not playing; left out"
            )
        else:
            by_building[die.building].append(die)
    per_colour = Counter(c for c in placed.color if c is not None)
    for color, n in sorted(per_colour.items()):
        if n > DICE_PER_PLAYER:
            warnings.append(f"{n} {color} dice seen; a player has only {DICE_PER_PLAYER}")
    return by_building


def _seen(by_building: dict[str, list[Die]], players: list[str]) -> BoardState:
    """Every die in a building as it lies: a Senate row that is no run, an unsorted or
    overfull Forum, two equal sets stay as they are, so the referee can name the rule broken."""
    row = _left_to_right(by_building["forum"])
    return BoardState(
        players=tuple(players),
        templum=_values(by_building["templum"]),
        senatus=_values(by_building["senatus"]),
        castrum=_castrum(by_building["castrum"]),
        forum=tuple(ForumDie(_owner(d), d.value) for d in row),
        latrina=_latrina(by_building["latrina"]),
    )


def _legal_state(
    by_building: dict[str, list[Die]], players: list[str], warnings: list[str]
) -> BoardState:
    """The closest state the rules allow: each building repaired by its own rule, each repair
    said in `warnings`."""
    on_board = Counter(d.color for b in by_building.values() for d in b)
    state = BoardState(
        players=tuple(players),
        templum=_templum(by_building["templum"], players, warnings),
        senatus=_senatus(by_building["senatus"], warnings),
        castrum=_castrum(by_building["castrum"]),
        forum=_forum(by_building["forum"], len(players), warnings),
        latrina=_latrina(by_building["latrina"]),
        # Every die is in a building or in front of its player, so what is not on the board
        # is in the supply (which is what `alea round` needs at the end of a round).
        supply={p: DICE_PER_PLAYER - on_board[p] for p in players if on_board[p] < DICE_PER_PLAYER},
    )
    state = _distinct(state, warnings)
    check_invariants(state)  # every rule of a legal board has its repair above
    return state


def _values(dice: list[Die]) -> dict[str, tuple[int, ...]]:
    """Each player's dice values in one building, sorted."""
    out: dict[str, list[int]] = defaultdict(list)
    for d in dice:
        out[_owner(d)].append(d.value)
    return {p: tuple(sorted(v)) for p, v in out.items()}


def _latrina(dice: list[Die]) -> dict[str, int]:
    return {p: min(n, DICE_PER_PLAYER) for p, n in Counter(map(_owner, dice)).items()}


def _left_to_right(forum: list[Die]) -> list[Die]:
    """Forum dice in the order they lie: by pedestal, then across it."""
    return sorted(forum, key=lambda d: (_column(d), d.center_mm[0]))


def _column(die: Die) -> int:
    """The Forum pedestal of a die in the Forum (`locate` gives every one of them one)."""
    assert die.pedestal is not None
    return die.pedestal


def _owner(die: Die) -> str:
    """The player of a die in a building's list (`_in_buildings` keeps only those)."""
    assert die.color is not None
    return die.color


def _templum(dice: list[Die], players: list[str], warnings: list[str]) -> dict:
    if dice and not templum_in_play(len(players)):  # players: 2 to 5 (read_board)
        warnings.append(
            f"{len(dice)} dice in the Templum, but there is no Templum with "
            f"{len(players)} players; left out"
        )
        return {}
    return _values(dice)


def _senatus(dice: list[Die], warnings: list[str]) -> dict:
    """One run per player; what cannot be one run is reported and the longest run kept."""
    out = {}
    mine: dict[str, list[Die]] = defaultdict(list)
    for d in dice:
        mine[_owner(d)].append(d)
    for player, ds in mine.items():
        values = sorted(d.value for d in ds)
        groups = _clusters([d.center_mm for d in ds], reach=24.0)
        if groups > 1:
            warnings.append(
                f"{player} has {groups} separate groups of dice in the Senate; a player has one run"
            )
        if values == list(range(values[0], values[0] + len(values))):
            out[player] = tuple(values)
            continue
        run = _longest_run(values)
        warnings.append(f"{player}'s Senate dice {values} are not one run; kept {run}")
        out[player] = tuple(run)
    return out


def _longest_run(values: list[int]) -> list[int]:
    """The longest run of consecutive distinct values among `values` (ties: the higher run)."""
    distinct = sorted(set(values))
    best: list[int] = []
    start = 0
    for i in range(1, len(distinct) + 1):
        if i == len(distinct) or distinct[i] != distinct[i - 1] + 1:
            run = distinct[start:i]
            if len(run) >= len(best):
                best = run
            start = i
    return best


def _clusters(points: list[tuple[float, float]], reach: float) -> int:
    """Groups of points chained by gaps under `reach` mm (a run's dice lie side by side)."""
    parent = list(range(len(points)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, (xi, yi) in enumerate(points):
        for j in range(i):
            xj, yj = points[j]
            if (xi - xj) ** 2 + (yi - yj) ** 2 <= reach**2:
                parent[root(i)] = root(j)
    return len({root(i) for i in range(len(points))})


def _castrum(dice: list[Die]) -> tuple[CastrumSet, ...]:
    """A player's Castrum dice of one value are one set, wherever they lie in the building.
    Sets in the contract's order (more dice, then higher value), equal sets by colour: never by
    the order the detector listed the dice in, which changes from one read to the next, and
    would change which of two identical sets `_distinct` leaves out."""
    counts = Counter((_owner(d), d.value) for d in dice)
    return tuple(
        CastrumSet(p, v, min(n, DICE_PER_PLAYER))
        for (p, v), n in sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0][1], kv[0][0]))
    )


def _forum(dice: list[Die], players: int, warnings: list[str]) -> tuple[ForumDie, ...]:
    """Left to right by pedestal; the Forum is always sorted and filled from the left."""
    row = _left_to_right(dice)
    used = Counter(_column(d) for d in row)
    for ped, n in sorted(used.items()):
        if n > 1:
            warnings.append(f"{n} dice on Forum pedestal {ped + 1}; a pedestal holds one")
    if row:
        empty = [p + 1 for p in range(max(used) + 1) if p not in used]
        if empty:
            warnings.append(
                f"Forum pedestal(s) {empty} empty with dice to their right; the "
                "Forum fills from the left"
            )
    values = [d.value for d in row]
    if values != sorted(values):
        warnings.append(
            f"the Forum reads {values} left to right, which is not sorted; "
            "reordered by value (a die may be misread)"
        )
        row = sorted(row, key=lambda d: d.value)
    cols = forum_columns(players)
    if len(row) > cols:
        warnings.append(f"{len(row)} dice in a Forum of {cols} columns; kept the first {cols}")
        row = row[:cols]
    return tuple(ForumDie(_owner(d), d.value) for d in row)


def _distinct(state: BoardState, warnings: list[str]) -> BoardState:
    """What must differ between players: counts in the Templum, runs in the Senate, sets in
    the Castrum. Of two that are equal (a die misread or hidden), the first in seating order
    (in the Castrum, the contract's order) is kept and the other left out, with a warning."""
    templum: dict[str, tuple[int, ...]] = {}
    counts: dict[int, str] = {}
    for p in state.players:
        if p not in state.templum:
            continue
        n = len(state.templum[p])
        if n in counts:
            warnings.append(
                f"left out of the state: {counts[n]} and {p} both have {n} dice in the "
                "Templum; counts there are always different"
            )
            continue
        templum[p], counts[n] = state.templum[p], p
    senatus: dict[str, tuple[int, ...]] = {}
    runs: dict[tuple[int, ...], str] = {}
    for p in state.players:
        run = state.senatus.get(p)
        if run is None:
            continue
        if run in runs:
            warnings.append(
                f"left out of the state: {runs[run]} and {p} have the same run {list(run)}"
            )
            continue
        senatus[p], runs[run] = run, p
    castrum: list[CastrumSet] = []
    for s in state.castrum:
        if any((o.value, o.count) == (s.value, s.count) for o in castrum):
            warnings.append(
                f"left out of the state: two sets of {s.count}×{s.value} in the Castrum"
            )
            continue
        castrum.append(s)
    return state.with_(templum=templum, senatus=senatus, castrum=tuple(castrum))
