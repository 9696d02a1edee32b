"""The live loop: camera frames in, settled board readings out.

Per frame: keep the board located (`Calibrator`, which survives hands over the markers), rectify,
check the table is settled (`Settler`) and only then run the detector and read the board, the
detector only where the board differs from the last settled one (`Rereader`). What
`alea serve` and `alea watch` show is `LiveBoard.process(frame)`'s `Status`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scanner.vision.board import BoardReading
from scanner.vision.calibrate import Calibration, Lens
from scanner.vision.layout import Layout
from scanner.vision.palette import Palette
from scanner.vision.reread import Rereader
from scanner.vision.scan import Detect, read_board_image, with_image_boxes
from scanner.vision.stability import Settler, reading_key
from scanner.vision.tracking import Calibrator


@dataclass
class Status:
    """One frame's outcome. `settled` is the latest settled reading (it persists across frames);
    `changed` is True on the frame where a new settled reading appeared."""

    board_found: bool
    settled: BoardReading | None
    changed: bool
    reason: str
    board_image: np.ndarray | None = None  # the rectified frame, for overlays
    why: dict | None = None  # `reason` as a message id and its facts (a page's own language)


class LiveBoard:
    def __init__(
        self,
        layout: Layout,
        detect: Detect,
        players: Sequence[str] | None = None,
        lens: Lens | None = None,
        initial: Calibration | None = None,
        settler: Settler | None = None,
        palette: Palette | None = None,
    ) -> None:
        self.layout = layout
        self.detect = detect
        self.players = players
        self.calibrator = Calibrator(layout, lens, initial)
        self.settler = settler or Settler(layout.px_per_mm)
        self.rereader = Rereader(detect, layout.px_per_mm, stillness=self.settler.stillness)
        self.settled: BoardReading | None = None
        self._palette = palette

    @property
    def palette(self) -> Palette | None:
        """The dice colours learnt at this table, when taken."""
        return self._palette

    @palette.setter
    def palette(self, palette: Palette | None) -> None:
        if palette is not self._palette:
            # The colours are named anew: the settled dice's colours no longer hold. (A camera
            # that moved needs nothing here: the whole board differs, so it is read whole.)
            self.rereader.forget()
        self._palette = palette

    def process(self, frame: np.ndarray) -> Status:
        cal = self.calibrator.update(frame)
        if cal is None:
            reason = self.calibrator.reason or "no board"
            return Status(False, self.settled, False, reason, why=self.calibrator.why)
        board = cal.rectify(frame)

        def read() -> BoardReading:
            reading = read_board_image(board, cal, self.rereader, self.players, self.palette)
            reading.dice = with_image_boxes(reading.dice, cal)
            return reading

        winner = self.settler.update(board, read)
        if winner is not None:
            self.rereader.settle(board, winner.dice.bare())
        changed = winner is not None and (
            self.settled is None or reading_key(self.settled) != reading_key(winner)
        )
        if changed:
            self.settled = winner
        return Status(True, self.settled, changed, self.settler.reason, board, self.settler.why)
