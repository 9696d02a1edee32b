"""A set's sixes as this table's camera sees them: six pips, or the maker's emblem.

Why: many real sets print their maker's emblem on the six, and the face reader, taught sixes
with pips, reads most such sixes as one. A reader taught emblems as well (`EMBLEM_MODEL`)
reads them, but also takes a real three whose pips the light draws long for a six (model card,
"Emblem sixes"), so it cannot be every table's reader. The table tells which sets need it, as
it tells their colours (`scanner.vision.palette`): at colour calibration each player's die
lies on its swatch square six up; where the emblem reader reads that die as a six and the
reader does not (or not surely), that colour's six is an emblem (`emblem_colors`). From then
on the dice of that colour the reader reads as no six are read again by the emblem reader
(`read_emblems`). A table whose sixes have pips never meets the emblem reader.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache

import numpy as np

from scanner.shipped import shipped
from scanner.vision.dice import Dice

# A face reader (`alea train --stage face`) taught emblem sixes on its board frames
# (`--face-board-logo-sixes`), chosen on validation tables: model card, "The players' own sixes".
EMBLEM_MODEL = shipped("models/emblem.onnx")
# A swatch die the reader reads as a six this sure of (its value's confidence, how often such a
# reading is right: scanner.vision.certainty) has pips: the reader takes a few emblems for
# sixes, never surely. Chosen on validation reference frames (model card, "The players' own
# sixes").
SURE_SIX = 0.9
# The emblem reader's P(six) a swatch die needs to be an emblem: at least even odds. Under a
# lamp's glare it reads a die left another face up as a six at odds no emblem needed (model
# card, "The players' own sixes").
EMBLEM_SIX = 0.5


def emblem_reader():
    """The emblem reader (`EMBLEM_MODEL`), opened once, or None when it is not shipped."""
    return _open(str(EMBLEM_MODEL)) if EMBLEM_MODEL.is_file() else None


@cache
def _open(path: str):
    from scanner.vision.face import FaceReader

    return FaceReader(path)


def emblem_colors(board: np.ndarray, dice: Dice, on_swatch: Iterable[str | None]) -> set[str]:
    """The colours whose swatch die, set down six up, the emblem reader reads as six at even
    odds or better (`EMBLEM_SIX`) and the reader as no six, or as a six it is not sure of
    (`SURE_SIX`): those sets print an emblem on their six. `dice` is the reading of a
    rectified board, `on_swatch` the swatch colour each die lies on (None: off the swatches)."""
    reader = emblem_reader()
    where = list(on_swatch)
    idx = [i for i, c in enumerate(where) if c is not None]
    if reader is None or not idx:
        return set()
    sixes = _read(reader, board, dice, idx)[:, 5] >= EMBLEM_SIX
    sure = np.asarray(dice.data.get("value_confidence", dice.confidence), np.float64).reshape(-1)
    verdict: dict[str, bool] = {}
    for i, six in zip(idx, sixes, strict=True):
        color = where[i]
        assert color is not None
        pips = int(dice.value[i]) == 6 and sure[i] >= SURE_SIX
        emblem = bool(six) and not pips
        verdict[color] = verdict.get(color, True) and emblem  # every die on its square agrees
    return {c for c, emblem in verdict.items() if emblem}


def read_emblems(board: np.ndarray, dice: Dice, emblems: Iterable[str]) -> Dice:
    """`dice` with each die of an `emblems` colour that the reader read as no six, and the
    emblem reader reads as six, a six; its confidence then the emblem reader's P(six), which
    no reliability map was fitted for (the maps are the reader's)."""
    reader = emblem_reader()
    wanted = set(emblems)
    idx = [i for i, c in enumerate(dice.color) if c in wanted and int(dice.value[i]) != 6]
    if reader is None or not idx:
        return dice
    p_value = _read(reader, board, dice, idx)
    six = p_value.argmax(1) == 5
    if not six.any():
        return dice
    turned = np.array(idx)[six]
    value = dice.value.copy()
    value[turned] = 6
    confidence = dice.confidence.astype(np.float64).copy()
    confidence[turned] = p_value[six, 5]
    data = dict(dice.data)
    if "value_confidence" in data:
        sure = np.asarray(data["value_confidence"], np.float64).reshape(len(dice), 1).copy()
        sure[turned, 0] = p_value[six, 5]
        data["value_confidence"] = sure
    return replace(dice, value=value, confidence=confidence, data=data)


def _read(reader, board: np.ndarray, dice: Dice, idx: list[int]) -> np.ndarray:
    """The emblem reader's value probabilities for the dice `idx`, in the board's light as the
    reader sees it (the other dice count for the light, `FaceReader.read`)."""
    rest = np.setdiff1d(np.arange(len(dice)), idx)
    _, p_value, _ = reader.read(board, dice.xyxy[idx], dice.xyxy[rest], paper=True)
    return p_value
