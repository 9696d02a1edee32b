"""Read only what changed: the detector run on the parts of the board that differ from the
last settled board, the rest of that board's dice kept.

At a table almost nothing changes between two settled boards: one player put down a few dice.
The rectified board of the last settled reading is kept (as the stability check sees it, 1 px/mm,
blurred) with its dice; a new board is compared with it, the changed spots are grown by a die's
width on every side (a die touching a change is read again whole), and the detector runs on
those crops alone. Dice of the settled board that touch a changed spot are dropped, dice found in
a crop that touch one are taken; every other die is the settled board's. Nothing changed: the
settled dice as they are, no detector. The whole board is read when there is no settled board
yet, when the board's size changed, or when the change is large (the camera moved, the light
changed, the board was cleared): then crops would cost as much as the whole and a full read
is the honest answer.

Each still frame before a board settles is read from its own pixels (the crops are taken
against the settled board, not the previous frame), so the vote over several frames in
`scanner.vision.stability` still outvotes one frame's misread.

`Rereader` is itself a `Detect` (rectified board → dice), so the live loop, `read_board_image`
and the tests use it exactly like the detector it wraps.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.vision.dice import Dice
from scanner.vision.scan import Detect
from scanner.vision.stability import DIE_AREA_MM2, LEVEL, Stillness, coarse

# Changed spots smaller than this are sensor noise or a speck, not a die (a die is 256 mm²).
MIN_SPOT_MM2 = DIE_AREA_MM2 / 16
# A crop reaches this far beyond a changed spot: a die's side and a little, so a die that the
# change touches lies wholly inside its crop.
MARGIN_MM = 20.0
# Above this share of the board in crops, one full read costs no more than the crops.
MAX_CROP_SHARE = 0.35


@dataclass(frozen=True)
class Region:
    """A rectangle of the rectified board in its pixels, x0 y0 x1 y1 (x1, y1 exclusive)."""

    x0: int
    y0: int
    x1: int
    y1: int

    def overlaps(self, other: Region) -> bool:
        return self.touches((other.x0, other.y0, other.x1, other.y1))

    def union(self, other: Region) -> Region:
        return Region(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )

    def touches(self, bbox: tuple[float, float, float, float]) -> bool:
        return bbox[0] < self.x1 and self.x0 < bbox[2] and bbox[1] < self.y1 and self.y0 < bbox[3]

    @property
    def area(self) -> int:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


def changed_spots(before: np.ndarray, now: np.ndarray, px_per_mm: float) -> list[Region]:
    """The changed spots between two coarse boards (1 px/mm), in rectified-board pixels."""
    # Changed by more grey levels than the stability check counts as motion.
    mask = (np.abs(before - now) > LEVEL).astype(np.uint8)
    # Close small gaps (pips, a die's dark edge) so one die is one spot.
    mask = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    spots = []
    for x, y, w, h, area in stats[1:n]:
        if area >= MIN_SPOT_MM2:
            spots.append(
                Region(
                    int(x * px_per_mm),
                    int(y * px_per_mm),
                    int(np.ceil((x + w) * px_per_mm)),
                    int(np.ceil((y + h) * px_per_mm)),
                )
            )
    return spots


def crops_for(spots: list[Region], px_per_mm: float, shape: tuple[int, int]) -> list[Region]:
    """Each spot grown by the margin and clipped to the board; crops that overlap merged."""
    h, w = shape
    pad = int(np.ceil(MARGIN_MM * px_per_mm))
    crops = [
        Region(max(0, s.x0 - pad), max(0, s.y0 - pad), min(w, s.x1 + pad), min(h, s.y1 + pad))
        for s in spots
    ]
    merged = True
    while merged:
        merged = False
        out: list[Region] = []
        for c in crops:
            for i, o in enumerate(out):
                if c.overlaps(o):
                    out[i] = o.union(c)
                    merged = True
                    break
            else:
                out.append(c)
        crops = out
    return crops


class Rereader:
    """A `Detect` that runs `detect` only where the board changed since `settle`.

    `mode` says what the last call did: "full", "crops" (with `crops`, the regions read) or
    "same" (nothing changed: the settled dice, no detector)."""

    def __init__(
        self,
        detect: Detect,
        px_per_mm: float,
        max_crop_share: float = MAX_CROP_SHARE,
        stillness: Stillness | None = None,
    ):
        """`stillness`, when the frames also go through one (the live loop's settler), lends
        its coarse board of the frame, so it is not made twice."""
        self.detect = detect
        self.px_per_mm = px_per_mm
        self.stillness = stillness
        self.max_crop_share = max_crop_share
        self.mode = "full"
        self.crops: list[Region] = []
        self._board: np.ndarray | None = None  # coarse settled board
        self._dice = Dice.empty()

    def settle(self, board_image: np.ndarray, dice: Dice) -> None:
        """The board now settled and its dice (rectified-board pixels): the next reads are
        measured against it."""
        self._board = self._coarse(board_image)
        self._dice = dice.bare()

    def forget(self) -> None:
        """No settled board (the layout or the camera changed): the next read is full."""
        self._board, self._dice = None, Dice.empty()

    def _coarse(self, board_image: np.ndarray) -> np.ndarray:
        if self.stillness is not None:
            return self.stillness.coarse(board_image)
        return coarse(board_image, self.px_per_mm)

    def __call__(self, board_image: np.ndarray) -> Dice:
        now = self._coarse(board_image)
        if self._board is None or self._board.shape != now.shape:
            return self._full(board_image)
        spots = changed_spots(self._board, now, self.px_per_mm)
        if not spots:
            self.mode, self.crops = "same", []
            return self._dice
        crops = crops_for(spots, self.px_per_mm, board_image.shape[:2])
        h, w = board_image.shape[:2]
        if sum(c.area for c in crops) > self.max_crop_share * h * w:
            return self._full(board_image)
        kept = self._dice.take([not _touches(spots, box) for box in self._dice.xyxy])
        found = self._in_crops(board_image, crops, kept)
        found = found.take([_touches(spots, box) for box in found.xyxy])
        self.mode, self.crops = "crops", crops
        return Dice.concat([kept, found])

    def _in_crops(self, board_image: np.ndarray, crops: list[Region], kept: Dice) -> Dice:
        """The dice the detector finds in the crops, in board pixels. A detector with `within`
        (the real one: its face reader reads a die in the light of the whole board, so a die
        cut out alone would read differently) reads them in place; any other `Detect` reads
        each crop as an image of its own."""
        within = getattr(self.detect, "within", None)
        if within is not None:
            regions = [(c.x0, c.y0, c.x1, c.y1) for c in crops]
            return within(board_image, regions, kept.xyxy)
        return Dice.concat(
            [self.detect(board_image[c.y0 : c.y1, c.x0 : c.x1]).shifted(c.x0, c.y0) for c in crops]
        )

    def _full(self, board_image: np.ndarray) -> Dice:
        self.mode, self.crops = "full", []
        return self.detect(board_image)


def _touches(spots: list[Region], bbox: np.ndarray) -> bool:
    x0, y0, x1, y1 = (float(v) for v in bbox)
    return any(s.touches((x0, y0, x1, y1)) for s in spots)
