"""Where things lie on the board, in board millimetres: the ArUco markers and the building zones.

The board is the printed marker sheet (`alea markers`): its top-left corner is (0, 0), x grows to
the right, y grows down, units are millimetres. Everything the scanner decides about *where* a die
is happens in these coordinates, never in camera pixels, so a zone drawn once works for any camera.

A layout is plain JSON (`calibration/layout.json`, schema in `calibration/README.md`) that a player
edits to match where their cardboard buildings lie. Zones are rectangles or polygons; the Forum is
a row of column pedestals, of which a game uses the first `players + 2`.

>>> lay = default_layout()
>>> lay.zone_at((100.0, 100.0))[0]
'templum'
>>> float(lay.marker_corners(0)[0][0])
10.0
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from scanner.errors import InputError
from scanner.inputs import expect_number, expect_object, read_json_file
from scanner.rules.components import BUILDINGS, PLAYER_COLORS
from scanner.shipped import shipped

SCHEMA = "alea.layout/1"
DEFAULT_LAYOUT = shipped("calibration/layout.json")
# The Forum has at most 7 column pedestals (5 players + 2).
MAX_PEDESTALS = 7
MAX_POLYGON = 64  # points of one zone's outline
DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_6X6_50")


@dataclass(frozen=True, eq=False)
class Zone:
    """One region of the board: a building's dice area, or one Forum pedestal."""

    name: str
    polygon: np.ndarray  # (N, 2) float32, board mm, in drawing order

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Zone)
            and self.name == other.name
            and np.array_equal(self.polygon, other.polygon)
        )

    __hash__ = None  # type: ignore[assignment]

    def signed_distance(self, point: Sequence[float]) -> float:
        """Millimetres inside the zone's edge (positive) or outside it (negative)."""
        import cv2  # local: keeps `alea check` free of OpenCV at import time

        return float(cv2.pointPolygonTest(self.polygon, (float(point[0]), float(point[1])), True))

    @property
    def centre(self) -> tuple[float, float]:
        c = self.polygon.mean(axis=0)
        return float(c[0]), float(c[1])


@dataclass(frozen=True)
class Layout:
    """The board's geometry. `tolerance` is the band (mm) outside a zone's edge that still counts
    as inside: a die's top face is seen shifted away from the camera by parallax, up to ~8 mm
    near the board's edge (`zones.undo_parallax`), so a die lying on the edge of a building must
    not fall out.
    """

    width: float
    height: float
    marker_dictionary: str
    markers: dict[int, tuple[float, float, float]]  # id -> (centre x, centre y, side), mm
    zones: dict[str, Zone]  # templum, senatus, castrum, latrina (the Forum lives in pedestals)
    pedestals: tuple[Zone, ...]
    # Player colour -> (centre x, centre y, side) mm of the square where a die of that colour is
    # set down for the camera to learn the colour (scanner.vision.palette); none on old sheets.
    swatches: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    tolerance: float = 8.0
    die_size: float = 16.0
    # Height above the board (mm) that a die's box centre stands for; 0 turns the parallax
    # correction off (zones.locate). Half a die: the box spans footprint and top face.
    parallax_height: float = 8.0
    px_per_mm: float = 3.0
    paper: str = "A3"
    source: dict = field(default_factory=dict, compare=False, repr=False)

    # ----------------------------------------------------------------------- geometry
    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The marker's 4 corners in board mm, in ArUco's order: top-left, top-right,
        bottom-right, bottom-left (markers are printed upright on the sheet)."""
        cx, cy, side = self.markers[marker_id]
        h = side / 2
        return np.array(
            [[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32
        )

    def forum_pedestals(self, players: int | None = None) -> tuple[Zone, ...]:
        """The pedestals laid out for `players` (players + 2 of them), all when unknown."""
        if players is None:
            return self.pedestals
        return self.pedestals[: min(len(self.pedestals), players + 2)]

    def zone_at(
        self, point: Sequence[float], tolerance: float | None = None, players: int | None = None
    ) -> tuple[str, int | None] | None:
        """(building, pedestal index or None) for a point in board mm, or None outside all zones.

        A point inside a zone or within `tolerance` mm of its edge belongs to it; where bands of
        two zones overlap, the zone the point is deepest inside (or least outside) wins.
        """
        tol = self.tolerance if tolerance is None else tolerance
        best: tuple[float, str, int | None] | None = None
        candidates: list[tuple[str, int | None, Zone]] = [
            (name, None, z) for name, z in self.zones.items()
        ]
        candidates += [("forum", i, z) for i, z in enumerate(self.forum_pedestals(players))]
        for name, index, zone in candidates:
            d = zone.signed_distance(point)
            if d >= -tol and (best is None or d > best[0]):
                best = (d, name, index)
        return None if best is None else (best[1], best[2])

    def scaled(self, factor: float, paper: str | None = None) -> Layout:
        """The same design printed `factor` times as large (A3 → A4 is 1/√2). Distances that are
        about the dice (tolerance, die size) and the pixel scale do not scale."""
        data = json.loads(json.dumps(self.source))
        data["board"]["width"] = round(self.width * factor, 3)
        data["board"]["height"] = round(self.height * factor, 3)
        data["board"]["paper"] = paper or self.paper
        data["markers"]["size"] = round(data["markers"]["size"] * factor, 3)
        for m in data["markers"]["positions"]:
            m["center"] = [round(v * factor, 3) for v in m["center"]]
            if "size" in m:
                m["size"] = round(m["size"] * factor, 3)

        def scale_shape(shape: dict) -> dict:
            if "rect" in shape:
                return {"rect": [round(v * factor, 3) for v in shape["rect"]]}
            return {"polygon": [[round(v * factor, 3) for v in p] for p in shape["polygon"]]}

        zones = data["zones"]
        for name in ("templum", "senatus", "castrum", "latrina"):
            zones[name] = scale_shape(zones[name])
        zones["forum"]["pedestals"] = [scale_shape(p) for p in zones["forum"]["pedestals"]]
        if "swatches" in data:  # the squares hold a die: their size is about the dice
            for sw in data["swatches"]["positions"]:
                sw["center"] = [round(v * factor, 3) for v in sw["center"]]
        return Layout.from_json(data)

    # ----------------------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        return json.loads(json.dumps(self.source))

    @classmethod
    def from_json(cls, data: Any, path: str = "$") -> Layout:
        """Validate a layout object; raise InputError naming the bad field."""
        return _parse_layout(data, path)

    @classmethod
    def load(cls, file: str | Path) -> Layout:
        return cls.from_json(read_json_file(file, "layout", "layout file"))


@cache
def default_layout() -> Layout:
    """calibration/layout.json, the A3 sheet's layout (scanner.shipped)."""
    return Layout.load(DEFAULT_LAYOUT)


# ------------------------------------------------------------------------------ parsing
def _object(
    data: Any, path: str, required: Sequence[str] = (), optional: Sequence[str] = ()
) -> dict:
    """An object with the `required` keys and no key beyond them and `optional`: a saved layout
    is sent to every tablet, so it holds only what a layout is."""
    if not isinstance(data, dict):
        raise InputError("schema.type", "expected an object", path)
    for key in required:
        if key not in data:
            raise InputError("schema.missing", f"missing field {key!r}", path)
    expect_object(data, path, (*required, *optional))
    if "comment" in data and not (isinstance(data["comment"], str) and len(data["comment"]) <= 500):
        raise InputError("value.range", "a comment is a text of at most 500 characters", path)
    return data


def _shape(data: Any, path: str, name: str) -> Zone:
    obj = _object(data, path, (), ("rect", "polygon", "comment"))
    if "rect" in obj:
        r = obj["rect"]
        if not isinstance(r, list) or len(r) != 4:
            raise InputError("schema.type", "rect is [x0, y0, x1, y1] in mm", f"{path}.rect")
        x0, y0, x1, y1 = (expect_number(v, f"{path}.rect[{i}]") for i, v in enumerate(r))
        if x1 <= x0 or y1 <= y0:
            raise InputError("layout.empty-zone", "rect needs x0 < x1 and y0 < y1", f"{path}.rect")
        pts = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    elif "polygon" in obj:
        poly = obj["polygon"]
        if not isinstance(poly, list) or not 3 <= len(poly) <= MAX_POLYGON:
            raise InputError(
                "schema.type",
                f"polygon is a list of 3 to {MAX_POLYGON} [x, y] points",
                f"{path}.polygon",
            )
        pts = []
        for i, p in enumerate(poly):
            if not isinstance(p, list) or len(p) != 2:
                raise InputError("schema.type", "a point is [x, y]", f"{path}.polygon[{i}]")
            pts.append([expect_number(v, f"{path}.polygon[{i}]") for v in p])
    else:
        raise InputError("schema.missing", "a zone needs 'rect' or 'polygon'", path)
    return Zone(name, np.array(pts, np.float32))


def _point(data: Any, path: str) -> tuple[float, float]:
    if not isinstance(data, list) or len(data) != 2:
        raise InputError("schema.type", "center is [x, y] in mm", path)
    return expect_number(data[0], path), expect_number(data[1], path)


def _swatches(data: Any, path: str) -> dict[str, tuple[float, float, float]]:
    if data is None:
        return {}
    obj = _object(data, path, ("size", "positions"), ("comment",))
    size = expect_number(obj["size"], f"{path}.size", 1, 100)
    if not isinstance(obj["positions"], list) or len(obj["positions"]) > len(PLAYER_COLORS):
        raise InputError(
            "schema.type", "positions lists at most one square per colour", f"{path}.positions"
        )
    out: dict[str, tuple[float, float, float]] = {}
    for i, sw in enumerate(obj["positions"]):
        where = f"{path}.positions[{i}]"
        _object(sw, where, ("color", "center"), ("comment",))
        if sw["color"] not in PLAYER_COLORS or sw["color"] in out:
            raise InputError("value.color", "one square per player colour", f"{where}.color")
        out[sw["color"]] = (*_point(sw["center"], f"{where}.center"), size)
    return out


def _parse_layout(data: Any, path: str) -> Layout:
    obj = _object(
        data,
        path,
        ("board", "markers", "zones"),
        ("schema", "comment", "swatches", "tolerance", "die_size", "parallax_height", "px_per_mm"),
    )
    if obj.get("schema", SCHEMA) != SCHEMA:
        raise InputError("layout.schema", f"expected schema {SCHEMA!r}", f"{path}.schema")
    board = _object(obj["board"], f"{path}.board", ("width", "height"), ("paper", "comment"))
    paper = board.get("paper", "")
    if not isinstance(paper, str) or len(paper) > 20:
        raise InputError("schema.type", "paper is a short name such as A3", f"{path}.board.paper")
    width = expect_number(board["width"], f"{path}.board.width", 1)
    height = expect_number(board["height"], f"{path}.board.height", 1)

    mk = _object(
        obj["markers"], f"{path}.markers", ("size", "positions"), ("dictionary", "comment")
    )
    dictionary = mk.get("dictionary", "DICT_4X4_50")
    if dictionary not in DICTIONARIES:
        raise InputError(
            "layout.dictionary",
            f"unknown ArUco dictionary {dictionary!r}; use one of {', '.join(DICTIONARIES)}",
            f"{path}.markers.dictionary",
        )
    size = expect_number(mk["size"], f"{path}.markers.size", 1)
    if not isinstance(mk["positions"], list) or not 2 <= len(mk["positions"]) <= 50:
        raise InputError(
            "layout.markers", "2 to 50 markers are needed", f"{path}.markers.positions"
        )
    markers: dict[int, tuple[float, float, float]] = {}
    for i, m in enumerate(mk["positions"]):
        mpath = f"{path}.markers.positions[{i}]"
        _object(m, mpath, ("id", "center"), ("size", "comment"))
        mid = m["id"]
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < 50:
            raise InputError("value.range", "marker id is an integer 0..49", f"{mpath}.id")
        if mid in markers:
            raise InputError("layout.duplicate-marker", f"marker {mid} listed twice", f"{mpath}.id")
        side = expect_number(m.get("size", size), f"{mpath}.size", 1)
        markers[mid] = (*_point(m["center"], f"{mpath}.center"), side)

    zobj = _object(obj["zones"], f"{path}.zones", BUILDINGS, ("comment",))
    zones = {
        name: _shape(zobj[name], f"{path}.zones.{name}", name)
        for name in ("templum", "senatus", "castrum", "latrina")
    }
    forum = _object(zobj["forum"], f"{path}.zones.forum", ("pedestals",), ("comment",))
    peds = forum["pedestals"]
    if not isinstance(peds, list) or not 4 <= len(peds) <= MAX_PEDESTALS:
        raise InputError(
            "layout.pedestals",
            f"the Forum needs 4 to {MAX_PEDESTALS} pedestals, left to right",
            f"{path}.zones.forum.pedestals",
        )
    pedestals = tuple(
        _shape(p, f"{path}.zones.forum.pedestals[{i}]", f"forum[{i}]") for i, p in enumerate(peds)
    )
    return Layout(
        swatches=_swatches(obj.get("swatches"), f"{path}.swatches"),
        width=width,
        height=height,
        marker_dictionary=dictionary,
        markers=markers,
        zones=zones,
        pedestals=pedestals,
        tolerance=expect_number(obj.get("tolerance", 8.0), f"{path}.tolerance", 0, 100),
        die_size=expect_number(obj.get("die_size", 16.0), f"{path}.die_size", 1, 100),
        parallax_height=expect_number(
            obj.get("parallax_height", obj.get("die_size", 16.0) / 2),
            f"{path}.parallax_height",
            0,
            100,
        ),
        px_per_mm=expect_number(obj.get("px_per_mm", 3.0), f"{path}.px_per_mm", 0.5, 20),
        paper=paper,
        source=json.loads(json.dumps(obj)),
    )
