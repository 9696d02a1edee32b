"""When is the table settled? Read the board only then, and only what several frames agree on.

A frame read while a die is still rolling or a hand is placing dice gives a wrong state, and the
referee would flag an illegal move that never happened. So the live loop reads a state only when:

1. the rectified board is still: frame differencing over the last few frames finds less changed
   area than a fraction of one die (`Stillness`);
2. nothing large has arrived since the last settled board: a turn changes at most a couple of
   dozen die-sized spots (placed dice, Forum dice shifted), a hand resting on the board changes
   far more. A large change is accepted only once it has stayed still for a long while (a
   lighting change, a moved lamp), never at once;
3. the board readings of the last N still frames vote, and one reading has a clear majority
   (`DiceVote`): a die misread in one frame does not reach the referee. The live loop votes
   2 of 3 after 2 still frames: the flag is on the tablet within a second of the dice coming
   to rest at 10 frames a second (`benchmarks/flag_latency.py`), and a one-frame misread is
   still outvoted; what slips through as a settled board is the referee's to sort out.

Everything works on the rectified board at a coarse 1 px/mm, so the thresholds are areas in mm².
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

DIE_AREA_MM2 = 16.0 * 16.0
# Grey levels (of 255) two coarse boards must differ by for a pixel to count as changed.
LEVEL = 20


def coarse(board_image: np.ndarray, px_per_mm: float) -> np.ndarray:
    """A 1 px/mm, lightly blurred greyscale copy: noise averages out, a die is still 16 px."""
    gray = board_image if board_image.ndim == 2 else cv2.cvtColor(board_image, cv2.COLOR_BGR2GRAY)
    if px_per_mm != 1:
        gray = cv2.resize(
            gray, None, fx=1 / px_per_mm, fy=1 / px_per_mm, interpolation=cv2.INTER_AREA
        )
    return cv2.GaussianBlur(gray, (3, 3), 0).astype(np.int16)


def changed_area(a: np.ndarray, b: np.ndarray, level: int) -> float:
    """mm² (pixels at 1 px/mm) where two coarse frames differ by more than `level` grey levels."""
    return float(np.count_nonzero(np.abs(a - b) > level))


class Stillness:
    """Frame differencing: still once `frames` consecutive frames each changed less than
    `max_motion_mm2` from the one before."""

    def __init__(
        self,
        px_per_mm: float,
        frames: int = 3,
        level: int = LEVEL,
        max_motion_mm2: float = DIE_AREA_MM2 / 4,
    ) -> None:
        self.px_per_mm = px_per_mm
        self.frames = frames
        self.level = level
        self.max_motion_mm2 = max_motion_mm2
        self.motion_mm2 = 0.0
        self._previous: np.ndarray | None = None
        self._source: np.ndarray | None = None  # the board image `last` was made from
        self._still_run = 0

    def update(self, board_image: np.ndarray) -> bool:
        now = coarse(board_image, self.px_per_mm)
        prev, self._previous, self._source = self._previous, now, board_image
        if prev is None or prev.shape != now.shape:
            self._still_run = 0
            self.motion_mm2 = 0.0
            return False
        self.motion_mm2 = changed_area(prev, now, self.level)
        self._still_run = self._still_run + 1 if self.motion_mm2 <= self.max_motion_mm2 else 0
        return self._still_run >= self.frames

    @property
    def still_run(self) -> int:
        """Consecutive still frames so far (0 on the first frame: nothing to compare with)."""
        return self._still_run

    @property
    def last(self) -> np.ndarray | None:
        return self._previous

    def coarse(self, board_image: np.ndarray) -> np.ndarray:
        """`coarse(board_image)`, made once: the last frame's when it is that very image
        (the rereader reads the frame the settler has just looked at)."""
        if board_image is self._source and self._previous is not None:
            return self._previous
        return coarse(board_image, self.px_per_mm)


class DiceVote:
    """Majority vote over the last `window` readings: a reading wins when at least `quorum` of
    them agree exactly (same state, same dice in the same buildings)."""

    def __init__(self, window: int = 5, quorum: float = 0.6) -> None:
        self.window = window
        self.need = max(1, int(np.ceil(quorum * window)))
        self._keys: deque[str] = deque(maxlen=window)
        self._latest: dict[str, Any] = {}

    def add(self, reading: Any) -> Any | None:
        """Add one reading (anything with `to_json`); the winning reading or None."""
        key = reading_key(reading)
        self._keys.append(key)
        self._latest[key] = reading
        self._latest = {k: v for k, v in self._latest.items() if k in self._keys}
        best, n = Counter(self._keys).most_common(1)[0]
        return self._latest[best] if n >= self.need else None

    def clear(self) -> None:
        self._keys.clear()
        self._latest.clear()


def reading_key(reading: Any) -> str:
    """What two readings must share to count as the same: the state and each die's building,
    colour and value (not the confidence or the exact box, which jitter)."""
    data = reading.to_json() if hasattr(reading, "to_json") else reading
    dice = sorted(
        (d.get("building") or "", d.get("color") or "", d["value"]) for d in data.get("dice", [])
    )
    return json.dumps({"state": data.get("state"), "dice": dice}, sort_keys=True)


@dataclass
class Settled:
    reading: Any
    frame: int


# The English sentence of each of the Settler's message ids, for the video overlay and the
# contract's "reason"; the pages say the same ids in their language (i18n.js, WHY).
SAY = {
    "camera.starting": "starting",
    "camera.moving": "moving ({mm2} mm² changed)",
    "camera.still": "still for {run} of {need} frames",
    "camera.large": "something large on the board ({mm2} mm² changed since the last settled "
    "board): a hand?",
    "camera.voting": "still; waiting for the readings to agree",
    "camera.settled": "settled",
}


class Settler:
    """Feed (rectified board, reading) per frame; get a settled reading when there is one.

    `why` says why the latest frame did not settle, as a message id and its facts (for the
    UI's status line); `reason` is the same in English.
    """

    def __init__(
        self,
        px_per_mm: float,
        still_frames: int = 2,
        window: int = 3,
        quorum: float = 0.6,
        max_change_mm2: float = 24 * DIE_AREA_MM2,
        relearn_frames: int = 150,
    ) -> None:
        self.stillness = Stillness(px_per_mm, still_frames)
        self.vote = DiceVote(window, quorum)
        self.px_per_mm = px_per_mm
        self.max_change_mm2 = max_change_mm2
        self.relearn_frames = relearn_frames
        self.why: dict = {"id": "camera.starting"}  # why, as a message id and its facts
        self.settled: Settled | None = None
        self._baseline: np.ndarray | None = None
        self._empty: np.ndarray | None = None
        self._big_still = 0
        self._frame = -1

    @property
    def reason(self) -> str:
        return SAY[self.why["id"]].format(**self.why)

    def _looks_empty(self, now: np.ndarray) -> bool:
        """The board looks as it did when last seen bare (a round's dice were cleared away)."""
        return (
            self._empty is not None
            and self._empty.shape == now.shape
            and changed_area(self._empty, now, self.stillness.level)
            <= self.stillness.max_motion_mm2
        )

    def update(self, board_image: np.ndarray, reading: Any) -> Any | None:
        """`reading` is this frame's reading, or a function making it: then it is called only
        for frames that are still (the detector need not run while hands move)."""
        self._frame += 1
        if not self.stillness.update(board_image):
            self.vote.clear()
            self._big_still = 0
            s = self.stillness
            if s.motion_mm2 > s.max_motion_mm2:
                self.why = {"id": "camera.moving", "mm2": round(s.motion_mm2)}
            elif s.still_run == 0:
                self.why = {"id": "camera.starting"}  # the first frame, or a new board size
            else:
                self.why = {"id": "camera.still", "run": s.still_run, "need": s.frames}
            return None
        now = self.stillness.last
        assert now is not None  # the stillness saw this frame
        if self._baseline is not None and self._baseline.shape == now.shape:
            change = changed_area(self._baseline, now, self.stillness.level)
            if change > self.max_change_mm2 and not self._looks_empty(now):
                self._big_still += 1
                if self._big_still < self.relearn_frames:
                    self.vote.clear()
                    self.why = {"id": "camera.large", "mm2": round(change)}
                    return None
        winner = self.vote.add(reading() if callable(reading) else reading)
        if winner is None:
            self.why = {"id": "camera.voting"}
            return None
        self._baseline = now
        dice = getattr(winner, "dice", None)
        if dice is not None and len(dice) == 0:
            self._empty = now  # the bare board: clearing it at a round's end is no hand
        self._big_still = 0
        self.why = {"id": "camera.settled"}
        if self.settled is None or reading_key(self.settled.reading) != reading_key(winner):
            self.settled = Settled(winner, self._frame)
        return winner
