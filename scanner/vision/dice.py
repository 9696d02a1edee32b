"""`Dice`: the one type that carries detected dice between the vision stages.

Like supervision's `Detections`, it holds parallel arrays (boxes, values, confidences, colours),
validates them on creation so a bad detector output fails here and not three stages later, and
converts to the contract's JSON at the edge (`to_json`).

>>> d = Dice(np.array([[1, 2, 30, 40]], float), np.array([6]), np.array([0.9]), [None])
>>> len(d), d.to_json()[0]["value"]
(1, 6)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from scanner.rules.components import PLAYER_COLORS


@dataclass(frozen=True)
class Dice:
    """N dice: `xyxy` (N, 4) pixels of the original image, `value` 1..6, `confidence` 0..1,
    `color` a player colour or None ("none of the five")."""

    xyxy: np.ndarray
    value: np.ndarray
    confidence: np.ndarray
    color: Sequence[str | None] = field(default_factory=list)

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
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "confidence", conf)
        object.__setattr__(self, "color", color)

    @classmethod
    def empty(cls) -> Dice:
        return cls(np.zeros((0, 4)), np.zeros(0, int), np.zeros(0), [])

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self) -> Iterator[dict]:
        return iter(self.to_json())

    def take(self, idx) -> Dice:
        """The dice at `idx` (indices or a boolean mask), in that order."""
        idx = np.asarray(idx).reshape(-1)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.int64)
        return Dice(
            self.xyxy[idx], self.value[idx], self.confidence[idx], [self.color[i] for i in idx]
        )

    def to_json(self, decimals: int = 1) -> list[dict]:
        """The contract's per-die objects, boxes rounded to `decimals` pixels."""
        return [
            {
                "value": int(v),
                "color": c,
                "confidence": round(float(p), 4),
                "bbox": [round(float(x), decimals) for x in box],
            }
            for box, v, p, c in zip(self.xyxy, self.value, self.confidence, self.color, strict=True)
        ]
