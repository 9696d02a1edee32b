"""`Dice`: the one type that carries dice from the detector through the board to the web page.

Like supervision's `Detections`, it holds parallel arrays (boxes, values, confidences, colours)
and a `data` dict of more per-die fields, validated on creation so a bad detector output fails
here and not three stages later. The board stage adds what it learns to `data` (`center_mm`,
`building`, `pedestal`; `image_xyxy` once the boxes are mapped back into the photo) instead of
wrapping the dice in a type of its own, and JSON is made only at the edge (`to_json`) and read
only at the edge (`from_json`, for a user's detections file). Iterating gives one `Die` per row:
a read-only view for code that reasons about one die at a time (the buildings' repairs).

>>> d = Dice(np.array([[1, 2, 30, 40]], float), np.array([6]), np.array([0.9]), [None])
>>> len(d), d.to_json()[0]["value"], next(iter(d)).xyxy
(1, 6, (1.0, 2.0, 30.0, 40.0))
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from scanner.errors import InputError
from scanner.inputs.fields import is_int
from scanner.rules.components import PLAYER_COLORS

Box = tuple[float, float, float, float]
# The per-die fields the board stage adds, and how each one is stored.
# `value_confidence`: how sure the value alone is (scanner.vision.certainty), for dice whose
# colour the table's palette names. `color_p`: the face reader's probability of each player
# colour and of none (PLAYER_COLORS, then "other"), which the palette weighs its own naming by.
ARRAY_FIELDS = {  # float arrays (N, k)
    "center_mm": 2,
    "image_xyxy": 4,
    "value_confidence": 1,
    "color_p": len(PLAYER_COLORS) + 1,
}
LIST_FIELDS = ("building", "pedestal")  # lists with None for "not in one"


@dataclass(frozen=True)
class Die:
    """One row of `Dice`: what one die is, and where the board stage put it."""

    value: int
    color: str | None
    confidence: float
    xyxy: Box  # in the pixels of the image the detector saw
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def building(self) -> str | None:
        return self.data.get("building")

    @property
    def pedestal(self) -> int | None:
        return self.data.get("pedestal")

    @property
    def center_mm(self) -> tuple[float, float]:
        return self.data["center_mm"]

    @property
    def image_xyxy(self) -> Box:
        """The box in the photo: `xyxy` until the board's boxes are mapped back into it."""
        return self.data.get("image_xyxy", self.xyxy)


@dataclass(frozen=True)
class Dice:
    """N dice: `xyxy` (N, 4) pixels of the image the detector saw (x0 y0 x1 y1), `value` 1..6,
    `confidence` 0..1, `color` a player colour or None ("none of the five"), and `data`: the
    board stage's per-die fields (ARRAY_FIELDS, LIST_FIELDS), each N long."""

    xyxy: np.ndarray
    value: np.ndarray
    confidence: np.ndarray
    color: Sequence[str | None] = field(default_factory=list)
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        xyxy = np.asarray(self.xyxy, dtype=np.float64).reshape(-1, 4)
        value = np.asarray(self.value, dtype=np.int64).reshape(-1)
        conf = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        color = list(self.color) if len(self.color) else [None] * n
        if not (len(xyxy) == len(value) == len(conf) == len(color) == n):
            raise ValueError("Dice arrays must have the same length")
        if n and (value.min() < 1 or value.max() > 6):
            raise ValueError(f"die values must be 1..6, got {sorted(set(value.tolist()))}")
        if n and (conf.min() < 0 or conf.max() > 1 or not np.isfinite(conf).all()):
            raise ValueError("confidence must lie in 0..1")
        if n and (
            not np.isfinite(xyxy).all()
            or (xyxy[:, 2] < xyxy[:, 0]).any()
            or (xyxy[:, 3] < xyxy[:, 1]).any()
        ):
            raise ValueError("boxes must be finite x0 <= x1, y0 <= y1")
        bad = {c for c in color if c is not None and c not in PLAYER_COLORS}
        if bad:
            raise ValueError(f"unknown dice colour(s) {sorted(bad)}")
        data: dict[str, Any] = {}
        for name, column in self.data.items():
            if name in ARRAY_FIELDS:
                column = np.asarray(column, np.float64).reshape(-1, ARRAY_FIELDS[name])
            elif name in LIST_FIELDS:
                column = list(column)
            else:
                raise ValueError(f"unknown per-die field {name!r}")
            if len(column) != n:
                raise ValueError(f"per-die field {name!r} has {len(column)} rows for {n} dice")
            data[name] = column
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "confidence", conf)
        object.__setattr__(self, "color", color)
        object.__setattr__(self, "data", data)

    @classmethod
    def empty(cls) -> Dice:
        return cls(np.zeros((0, 4)), np.zeros(0, int), np.zeros(0), [])

    @classmethod
    def from_json(cls, items: object, path: str = "$.dice", strict: bool = True) -> Dice:
        """Dice from the contract's per-die objects (a user's detections file): InputError
        with the JSON path of the first bad die. Not `strict` (a detector's own output), a
        colour the game does not know is read as unknown (None) instead of being an error."""
        if not isinstance(items, list):
            raise InputError("schema.type", "the dice are a list", path)
        rows = [_row(obj, f"{path}[{i}]", strict) for i, obj in enumerate(items)]
        if not rows:
            return cls.empty()
        return cls(
            np.array([r[3] for r in rows], np.float64),
            np.array([r[0] for r in rows], np.int64),
            np.array([r[2] for r in rows], np.float64),
            [r[1] for r in rows],
        )

    @classmethod
    def concat(cls, parts: Sequence[Dice]) -> Dice:
        """The dice of all `parts` in order; per-die fields only where every part has them."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        shared = set.intersection(*(set(p.data) for p in parts))
        data: dict[str, Any] = {}
        for name in shared:
            if name in ARRAY_FIELDS:
                data[name] = np.concatenate([p.data[name] for p in parts])
            else:
                data[name] = [x for p in parts for x in p.data[name]]
        return cls(
            np.concatenate([p.xyxy for p in parts]),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            [c for p in parts for c in p.color],
            data,
        )

    def __len__(self) -> int:
        return len(self.value)

    def __getitem__(self, i: int) -> Die:
        row = {
            name: tuple(float(v) for v in col[i]) if name in ARRAY_FIELDS else col[i]
            for name, col in self.data.items()
        }
        box = self.xyxy[i]
        return Die(
            int(self.value[i]),
            self.color[i],
            float(self.confidence[i]),
            (float(box[0]), float(box[1]), float(box[2]), float(box[3])),
            row,
        )

    def __iter__(self) -> Iterator[Die]:
        return (self[i] for i in range(len(self)))

    def take(self, idx: Any) -> Dice:
        """The dice at `idx` (indices or a boolean mask), in that order, with their fields."""
        idx = np.asarray(idx).reshape(-1)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.int64)
        data = {
            name: col[idx] if name in ARRAY_FIELDS else [col[i] for i in idx]
            for name, col in self.data.items()
        }
        return Dice(
            self.xyxy[idx],
            self.value[idx],
            self.confidence[idx],
            [self.color[i] for i in idx],
            data,
        )

    def shifted(self, dx: float, dy: float) -> Dice:
        """The same dice with boxes moved by (dx, dy) pixels: a crop's dice in the whole image."""
        return replace(self, xyxy=self.xyxy + np.array([dx, dy, dx, dy], np.float64))

    def with_data(self, **fields: Any) -> Dice:
        """The same dice with these per-die fields added or replaced."""
        return replace(self, data={**self.data, **fields})

    def bare(self) -> Dice:
        """The detector's part alone: what the dice are, without where the board put them."""
        return replace(self, data={})

    def image_boxes(self) -> np.ndarray:
        """(N, 4) boxes in the photo: `image_xyxy` when the board stage mapped them, else xyxy."""
        return self.data.get("image_xyxy", self.xyxy)

    def to_json(self, decimals: int = 1) -> list[dict]:
        """The contract's per-die objects, boxes rounded to `decimals` pixels. Dice the board
        stage located also carry `building`, `board_bbox` (the rectified board's box, `xyxy`),
        `center_mm` and, in the Forum, `pedestal`; their `bbox` is in the photo when known."""
        boxes = self.image_boxes()
        out = []
        for i in range(len(self)):
            die = {
                "value": int(self.value[i]),
                "color": self.color[i],
                "confidence": round(float(self.confidence[i]), 4),
                "bbox": [round(float(x), decimals) for x in boxes[i]],
            }
            if "building" in self.data:
                die["building"] = self.data["building"][i]
                die["board_bbox"] = [round(float(x), decimals) for x in self.xyxy[i]]
                die["center_mm"] = [round(float(x), 1) for x in self.data["center_mm"][i]]
                if self.data["pedestal"][i] is not None:
                    die["pedestal"] = self.data["pedestal"][i]
            out.append(die)
        return out


def _row(obj: Any, path: str, strict: bool) -> tuple[int, str | None, float, Box]:
    """One die object's (value, colour, confidence, box), or InputError at `path`."""
    if not isinstance(obj, dict):
        raise InputError("schema.type", "a die is an object", path)
    for name in ("value", "color", "confidence", "bbox"):
        if name not in obj:
            raise InputError("schema.missing", f"a die needs {name!r}", path)
    value, color = obj["value"], obj["color"]
    if not is_int(value) or not 1 <= value <= 6:
        raise InputError(
            "value.die", f"die value {value!r} is not between 1 and 6", f"{path}.value"
        )
    if color is not None and color not in PLAYER_COLORS:
        if strict:
            raise InputError("value.color", f"unknown colour {color!r}", f"{path}.color")
        color = None
    try:
        box = tuple(float(v) for v in obj["bbox"])
        conf = float(obj["confidence"])
    except (TypeError, ValueError):
        raise InputError("schema.type", "bbox is 4 numbers, confidence a number", path) from None
    if len(box) != 4 or not np.isfinite(box).all() or box[2] < box[0] or box[3] < box[1]:
        raise InputError(
            "schema.type", "bbox is [x0, y0, x1, y1] with x0<=x1, y0<=y1", f"{path}.bbox"
        )
    if not 0 <= conf <= 1:  # NaN included
        raise InputError("value.range", "confidence lies in 0..1", f"{path}.confidence")
    return value, color, conf, (box[0], box[1], box[2], box[3])
