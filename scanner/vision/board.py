"""Detected dice → the board state: which building each die lies in, and what that means.

Input: the detector's dice on the *rectified* board image (`bbox` in its pixels, x0 y0 x1 y1), so
a die's position in board millimetres is its box centre divided by the layout's `px_per_mm`,
corrected for parallax when the camera's position is known (a die's top face is seen pushed away
from the camera, up to ~8 mm near the board's edge). Zone membership is decided in millimetres
with the layout's tolerance band on top, so a die lying across a zone's edge still counts and one
clearly outside does not.

What the camera sees is not always a legal board: a misread pip, a die of unknown colour, a hand
that nudged a die. The reading never fails for that: it builds the closest state
`BoardState.from_json` accepts and says in `warnings` what it had to leave out or reorder.
The rules themselves live in `scanner.rules`; this module only groups dice.

>>> from scanner.vision.layout import default_layout
>>> lay = default_layout()
>>> def die(x, y, color, value):  # a 16 mm die centred at (x, y) mm, as the detector boxes it
...     s = lay.px_per_mm
...     return {"value": value, "color": color, "confidence": 0.9,
...             "bbox": [(x - 8) * s, (y - 8) * s, (x + 8) * s, (y + 8) * s]}
>>> r = read_board([die(72, 175, "blue", 2), die(102, 175, "green", 5),
...                 die(200, 100, "blue", 3), die(220, 100, "blue", 4)], lay,
...                players=["blue", "green"])
>>> r.state.to_json()["forum"], r.state.to_json()["senatus"]
([{'player': 'blue', 'value': 2}, {'player': 'green', 'value': 5}], {'blue': [3, 4]})
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scanner.errors import InputError
from scanner.rules.components import (
    DICE_PER_PLAYER,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYER_COLORS,
    forum_columns,
    templum_in_play,
)
from scanner.rules.state import BoardState
from scanner.vision.layout import Layout

NAMES = {
    "templum": "Templum",
    "senatus": "Senate",
    "castrum": "Castrum",
    "forum": "Forum",
    "latrina": "Latrina",
}


@dataclass(frozen=True)
class Detection:
    """One die as the detector reports it, on the rectified board image."""

    value: int
    color: str | None
    confidence: float
    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1 in rectified-board pixels

    @classmethod
    def of(cls, obj: Any, path: str = "$", strict: bool = True) -> Detection:
        """Adapter from whatever the detector returns: a mapping or an object with the fields.

        Not `strict` (a detector's output, not a user's file): a colour name the game does not
        know is read as unknown (None) instead of being an error."""

        def get(name: str) -> Any:
            if isinstance(obj, dict):
                if name not in obj:
                    raise InputError("schema.missing", f"a die needs {name!r}", path)
                return obj[name]
            if not hasattr(obj, name):
                raise InputError("schema.missing", f"a die needs {name!r}", path)
            return getattr(obj, name)

        value, color, conf, bbox = get("value"), get("color"), get("confidence"), get("bbox")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise InputError(
                "value.die", f"die value {value!r} is not between 1 and 6", f"{path}.value"
            )
        if color is not None and color not in PLAYER_COLORS and not strict:
            color = None
        if color is not None and color not in PLAYER_COLORS:
            raise InputError("value.color", f"unknown colour {color!r}", f"{path}.color")
        try:
            box = tuple(float(v) for v in bbox)
            conf = float(conf)
        except (TypeError, ValueError):
            raise InputError(
                "schema.type", "bbox is 4 numbers, confidence a number", path
            ) from None
        if len(box) != 4 or box[2] < box[0] or box[3] < box[1]:
            raise InputError(
                "schema.type", "bbox is [x0, y0, x1, y1] with x0<=x1, y0<=y1", f"{path}.bbox"
            )
        return cls(value, color, conf, box)  # type: ignore[arg-type]


@dataclass(frozen=True)
class PlacedDie:
    """A detection located on the board: its centre in mm and the building it lies in."""

    detection: Detection
    centre_mm: tuple[float, float]
    building: str | None
    pedestal: int | None = None  # Forum column, 0 = leftmost
    image_bbox: tuple[float, float, float, float] | None = None  # in the photo, when known

    @property
    def value(self) -> int:
        return self.detection.value

    @property
    def color(self) -> str | None:
        return self.detection.color

    def to_json(self) -> dict:
        """CONTRACT.md's die: `bbox` in the photo's pixels when the photo is known (alea scan),
        else in the rectified board's; `board_bbox` always in the rectified board's."""
        d = self.detection
        box = self.image_bbox if self.image_bbox is not None else d.bbox
        out = {
            "value": d.value,
            "color": d.color,
            "confidence": round(d.confidence, 4),
            "bbox": [round(v, 1) for v in box],
            "building": self.building,
            "board_bbox": [round(v, 1) for v in d.bbox],
            "center_mm": [round(v, 1) for v in self.centre_mm],
        }
        if self.pedestal is not None:
            out["pedestal"] = self.pedestal
        return out


# A die read with less confidence than this is shown as a question, never flagged. Not tuned
# on validation data yet: a cautious floor under the detector's own 0.5 threshold.
UNSURE_BELOW = 0.6


@dataclass
class BoardReading:
    """The board stage's output: the state (None if there is no board), every die, warnings."""

    state: BoardState | None
    dice: list[PlacedDie]
    warnings: list[str]
    # The board exactly as seen, rules or not (parsed with strict=False): what the referee
    # judges. `state` is the closest legal one, for `alea scan` and `alea round`.
    seen: BoardState | None = None

    def unsure(self) -> list[dict]:
        """Dice in a building whose reading the referee must not build a flag on: colour
        unknown, or read with a confidence under `UNSURE_BELOW`."""
        return [
            {"building": d.building, "player": d.color, "value": d.value}
            for d in self.dice
            if d.building is not None and (d.color is None or d.detection.confidence < UNSURE_BELOW)
        ]

    def to_json(self) -> dict:
        return {
            "state": None if self.state is None else self.state.to_json(),
            "dice": [d.to_json() for d in self.dice],
            "warnings": list(self.warnings),
        }


# ------------------------------------------------------------------------------ reading
def undo_parallax(
    point: tuple[float, float], camera: tuple[float, float, float], lift: float
) -> tuple[float, float]:
    """Where a point seen at `point` (on the board plane) lies if it is really `lift` mm above
    the board: the ray from the camera through it meets the plane farther out by lift/height.

    >>> undo_parallax((400.0, 100.0), (100.0, 100.0, 600.0), 8.0)
    (396.0, 100.0)
    """
    cx, cy, height = camera
    if height <= lift:
        return point
    k = (height - lift) / height
    return cx + (point[0] - cx) * k, cy + (point[1] - cy) * k


def locate(
    detections: Iterable[Any],
    layout: Layout,
    players: int | None = None,
    camera: tuple[float, float, float] | None = None,
) -> tuple[list[PlacedDie], list[str]]:
    """Each die's centre in board mm and its building (None outside every zone).

    With the camera's position known (`Calibration.camera_position`), the centre is corrected
    for parallax: a die's box spans its footprint and its top face, which the camera sees
    pushed outwards, so the box centre is taken as a point `layout.parallax_height` (half a
    die) above the board.
    The tolerance band covers what remains (and everything, without a camera position).

    With `players` known, only the first players + 2 Forum pedestals are laid out; a die on a
    pedestal beyond them lies where no Forum piece is and gets building None and a warning."""
    s = layout.px_per_mm
    placed, warnings = [], []
    for i, obj in enumerate(detections):
        det = obj if isinstance(obj, Detection) else Detection.of(obj, f"$.dice[{i}]")
        x0, y0, x1, y1 = det.bbox
        # Rectified pixel (i, j) covers mm [i/s, (i+1)/s): see sheet.board_to_pixels.
        centre = ((x0 + x1) / 2 + 0.5) / s, ((y0 + y1) / 2 + 0.5) / s
        if camera is not None and layout.parallax_height > 0:
            centre = undo_parallax(centre, camera, layout.parallax_height)
        hit = layout.zone_at(centre)
        if hit is None:
            placed.append(PlacedDie(det, centre, None))
            continue
        building, pedestal = hit
        if pedestal is not None and players is not None and pedestal >= forum_columns(players):
            warnings.append(
                f"a die on Forum pedestal {pedestal + 1}, but a {players}-player Forum has "
                f"{forum_columns(players)} columns; counted as outside the buildings"
            )
            building, pedestal = None, None
        placed.append(PlacedDie(det, centre, building, pedestal))
    return placed, warnings


def read_board(
    detections: Iterable[Any],
    layout: Layout,
    players: Sequence[str] | None = None,
    camera: tuple[float, float, float] | None = None,
) -> BoardReading:
    """Detections → BoardReading (see module docstring). `players` in seating order; inferred
    from the colours seen when not given. `camera`: see `locate`."""
    dice = [
        d if isinstance(d, Detection) else Detection.of(d, f"$.dice[{i}]")
        for i, d in enumerate(detections)
    ]
    warnings: list[str] = []
    if players is None:
        seen = {d.color for d in dice if d.color is not None}
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
        BoardState.from_json({"players": list(players)})  # bad input: raise
    players = list(players)
    placed, located = locate(dice, layout, len(players), camera)
    warnings += located
    state, seen = _state(placed, players, warnings)
    return BoardReading(state, placed, warnings, seen)


def _seen(by_building: dict[str, list[PlacedDie]], players: list[str]) -> BoardState:
    """Every die in a building as it lies: a Senate row that is no run, an unsorted or
    overfull Forum, two equal sets stay as they are, so the referee can name the rule broken."""
    mine: dict[str, dict[str, list[int]]] = {
        "templum": defaultdict(list),
        "senatus": defaultdict(list),
    }
    for building in mine:
        for d in by_building[building]:
            mine[building][d.color].append(d.value)
    row = sorted(by_building["forum"], key=lambda d: (d.pedestal, d.centre_mm[0]))
    latrina = Counter(d.color for d in by_building["latrina"])
    data = {
        "players": players,
        "templum": {p: sorted(v) for p, v in mine["templum"].items()},
        "senatus": {p: sorted(v) for p, v in mine["senatus"].items()},
        "castrum": _castrum(by_building["castrum"]),
        "forum": [{"player": d.color, "value": d.value} for d in row],
        "latrina": {p: min(n, DICE_PER_PLAYER) for p, n in latrina.items()},
    }
    return BoardState.from_json(data, strict=False)


def _state(
    placed: list[PlacedDie], players: list[str], warnings: list[str]
) -> tuple[BoardState, BoardState]:
    by_building: dict[str, list[PlacedDie]] = defaultdict(list)
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

    per_colour = Counter(d.color for d in placed if d.color is not None)
    for color, n in sorted(per_colour.items()):
        if n > DICE_PER_PLAYER:
            warnings.append(f"{n} {color} dice seen; a player has only {DICE_PER_PLAYER}")

    seen = _seen(by_building, players)
    data: dict[str, Any] = {"players": players}
    data["templum"] = _templum(by_building["templum"], players, warnings)
    data["senatus"] = _senatus(by_building["senatus"], warnings)
    data["castrum"] = _castrum(by_building["castrum"])
    data["forum"] = _forum(by_building["forum"], len(players), warnings)
    latrina = Counter(d.color for d in by_building["latrina"])
    data["latrina"] = {p: min(n, DICE_PER_PLAYER) for p, n in latrina.items()}
    # Every die is in a building or in front of its player, so what is not on the board is in
    # the supply (which is what `alea round` needs at the end of a round).
    on_board = Counter(d.color for b in by_building.values() for d in b)
    data["supply"] = {
        p: DICE_PER_PLAYER - on_board[p] for p in players if on_board[p] < DICE_PER_PLAYER
    }
    return _closest_valid(data, warnings), seen


def _templum(dice: list[PlacedDie], players: list[str], warnings: list[str]) -> dict:
    if dice and not (MIN_PLAYERS <= len(players) <= MAX_PLAYERS and templum_in_play(len(players))):
        warnings.append(
            f"{len(dice)} dice in the Templum, but there is no Templum with "
            f"{len(players)} players; left out"
        )
        return {}
    out: dict[str, list[int]] = defaultdict(list)
    for d in dice:
        out[d.color].append(d.value)
    return {p: sorted(v) for p, v in out.items()}


def _senatus(dice: list[PlacedDie], warnings: list[str]) -> dict:
    """One run per player; what cannot be one run is reported and the longest run kept."""
    out = {}
    mine: dict[str, list[PlacedDie]] = defaultdict(list)
    for d in dice:
        mine[d.color].append(d)
    for player, ds in mine.items():
        values = sorted(d.value for d in ds)
        groups = _clusters([d.centre_mm for d in ds], reach=24.0)
        if groups > 1:
            warnings.append(
                f"{player} has {groups} separate groups of dice in the Senate; a player has one run"
            )
        if values == list(range(values[0], values[0] + len(values))):
            out[player] = values
            continue
        run = _longest_run(values)
        warnings.append(f"{player}'s Senate dice {values} are not one run; kept {run}")
        out[player] = run
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


def _castrum(dice: list[PlacedDie]) -> list[dict]:
    """A player's Castrum dice of one value are one set, wherever they lie in the building.
    Sets in the contract's order (more dice, then higher value), equal sets by colour: never by
    the order the detector listed the dice in, which changes from one read to the next, and
    would change which set `_closest_valid` leaves out of a Castrum that is not valid."""
    counts = Counter((d.color, d.value) for d in dice)
    return [
        {"player": p, "value": v, "count": min(n, DICE_PER_PLAYER)}
        for (p, v), n in sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0][1], kv[0][0]))
    ]


def _forum(dice: list[PlacedDie], players: int, warnings: list[str]) -> list[dict]:
    """Left to right by pedestal; the Forum is always sorted and filled from the left."""
    row = sorted(dice, key=lambda d: (d.pedestal, d.centre_mm[0]))
    used = Counter(d.pedestal for d in row)
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
    cols = forum_columns(players) if MIN_PLAYERS <= players <= MAX_PLAYERS else len(row)
    if len(row) > cols:
        warnings.append(f"{len(row)} dice in a Forum of {cols} columns; kept the first {cols}")
        row = row[:cols]
    return [{"player": d.color, "value": d.value} for d in row]


_PATH = re.compile(r"\.(\w+)|\[(\d+)\]")


def _closest_valid(data: dict, warnings: list[str]) -> BoardState:
    """`BoardState.from_json(data)`, leaving out whatever it rejects (with a warning) until it
    accepts; the InputError's JSON path names the part to leave out."""
    for _ in range(64):
        try:
            return BoardState.from_json(data)
        except InputError as err:
            steps = [a or int(b) for a, b in _PATH.findall(err.path)]
            if not steps or steps[0] == "players":
                warnings.append(f"board state not valid ({err.message}); players only")
                return BoardState.from_json({"players": data["players"]})
            warnings.append(f"left out of the state: {err.message}")
            building = steps[0]
            if len(steps) == 1:
                data[building] = [] if isinstance(data[building], list) else {}
            elif isinstance(data[building], list):
                del data[building][steps[1]]
            else:
                data[building].pop(steps[1], None)
    return BoardState.from_json({"players": data["players"]})
