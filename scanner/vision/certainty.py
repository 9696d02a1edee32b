"""How sure a reading is: the face reader's scores mapped to how often such readings are right.

The reader's P(die) says whether a box holds a die, not whether the die was read right, and it
is over-confident: nearly every kept reading says ≥ 0.99. A die's reported confidence should
mean that a die read at 0.9 is right nine times in ten (issue 19). So the reader's own numbers
are combined into one score, P(die) × the top value's probability (× the top colour's when the
reader names the colour), and that score is mapped by a monotone step function fitted on
validation scenes (`benchmarks/reliability.py --write`) to the share of readings that were
right. The map lies beside the reader's model (`face.confidence.json` for `face.onnx`): another
reader has other scores and reports P(die), as before, until a map is fitted for it.

Two maps, because a die's colour does not always come from the reader: `read` for a reading
whose value and colour are both the reader's, `value` for its value alone (with a palette
learnt at the table, the colour is the palette's, and an unsure colour is unknown, not a guess).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Step:
    """A monotone step function: scores up to `bounds[i]` map to `shares[i]`."""

    bounds: np.ndarray
    shares: np.ndarray

    def __call__(self, score: np.ndarray) -> np.ndarray:
        i = np.clip(np.searchsorted(self.bounds, np.asarray(score, np.float64)), 0, len(self) - 1)
        return self.shares[i]

    def __len__(self) -> int:
        return len(self.shares)

    def to_json(self) -> dict:
        return {
            "bounds": [round(float(b), 6) for b in self.bounds],
            "shares": self.shares.round(6).tolist(),
        }

    @classmethod
    def from_json(cls, data: dict) -> Step:
        bounds = np.asarray(data["bounds"], np.float64).reshape(-1)
        shares = np.asarray(data["shares"], np.float64).reshape(-1)
        if (
            not len(shares)
            or len(bounds) != len(shares)
            or np.diff(bounds).min(initial=0) < 0
            or np.diff(shares).min(initial=0) < 0
            or shares.min() < 0
            or shares.max() > 1
        ):
            raise ValueError("a step map is rising bounds and rising shares in 0..1")
        return cls(bounds, shares)


def fit(score: np.ndarray, right: np.ndarray) -> Step:
    """The monotone step function of `score` closest to `right` (0/1) in squared error (the
    pool-adjacent-violators fit, isotonic regression), each step's share taken as (right + 1) /
    (readings + 2): a step of 2,000 readings all right says 0.9995, not a certainty no finite
    validation set can give, and a step of one reading says little either way."""
    order = np.argsort(score, kind="stable")
    xs, ys = np.asarray(score, np.float64)[order], np.asarray(right, np.float64)[order]
    blocks: list[list[float]] = []  # right, readings, highest score
    for x, y in zip(xs, ys, strict=True):
        blocks.append([y, 1.0, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            k1, n1, hi = blocks.pop()
            k2, n2, _ = blocks.pop()
            blocks.append([k1 + k2, n1 + n2, hi])
    shares = np.maximum.accumulate([(k + 1) / (n + 2) for k, n, _ in blocks])
    return Step(np.array([b[2] for b in blocks]), shares)


@dataclass(frozen=True)
class Certainty:
    """The reader's two maps (module docstring)."""

    read: Step
    value: Step

    def of(self, p_die: np.ndarray, p_value: np.ndarray, p_color: np.ndarray | None) -> np.ndarray:
        """Each reading's confidence: `read` of die × value × colour, or `value` of die × value
        when the colour is not the reader's (`p_color` None)."""
        score = np.asarray(p_die, np.float64) * np.asarray(p_value, np.float64).max(axis=1)
        if p_color is None:
            return self.value(score)
        return self.read(score * np.asarray(p_color, np.float64).max(axis=1))

    def to_json(self) -> dict:
        return {"read": self.read.to_json(), "value": self.value.to_json()}

    @classmethod
    def from_json(cls, data: dict) -> Certainty:
        return cls(Step.from_json(data["read"]), Step.from_json(data["value"]))


def beside(model: str | os.PathLike) -> Path:
    """Where the map of the reader at `model` lies: NAME.confidence.json."""
    return Path(model).with_suffix(".confidence.json")


def load(model: str | os.PathLike) -> Certainty | None:
    """The map fitted for the reader at `model`, or None when it has none (or it is unreadable:
    the reader then reports P(die), as before)."""
    try:
        return Certainty.from_json(json.loads(beside(model).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
