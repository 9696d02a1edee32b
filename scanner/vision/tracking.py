"""The board's fit kept frame after frame: what the live loop and `alea scan --fixed-camera` use
instead of fitting every frame afresh.

A game lasts an hour under one camera, with hands over the markers every few seconds. Fitting
anew each frame would drop the board whenever a hand hides markers, and searching for markers
that have not moved costs more than the rest of an idle frame. `Calibrator` keeps the last good
fit through both; `MarkerWatch` tells cheaply that the markers are where they were.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.vision.calibrate import (
    MAX_ERROR_MM,
    BoardNotFound,
    Calibration,
    Lens,
    find_markers,
    fit,
    marker_detector,
)
from scanner.vision.layout import Layout
from scanner.vision.stability import LEVEL, changed_area


class MarkerWatch:
    """The pixels around each marker of the last fit, to tell cheaply that none has moved.

    A mounted camera sees the same markers frame after frame; finding them again costs more
    than the rest of an idle frame. When every watched patch looks as it did (a blurred
    grey-level difference above `level` on at most `share` of its pixels, which sensor noise
    stays under and a shift of a fraction of a pixel across a marker's edges does not), the
    fit stands without a search. A hand over a marker, a nudged sheet or new light changes a
    patch, and the markers are searched for as before. Every `recheck` frames they are
    searched for anyway: a marker a hand hid at the last fit is not watched, and comes back
    into the fit that way."""

    def __init__(
        self, margin_px: int = 4, level: int = LEVEL, share: float = 0.01, recheck: int = 10
    ) -> None:
        self.margin_px, self.level, self.share, self.recheck = margin_px, level, share, recheck
        self._patches: list[tuple[tuple[slice, slice], np.ndarray]] = []
        self._size: tuple[int, int] | None = None
        self._trusted = 0

    @staticmethod
    def _gray(frame: np.ndarray, where: tuple[slice, slice]) -> np.ndarray:
        part = frame[where]
        part = part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(part, (3, 3), 0).astype(np.int16)

    def remember(self, frame: np.ndarray, found: dict[int, np.ndarray]) -> None:
        h, w = frame.shape[:2]
        self._size, self._patches, self._trusted = (w, h), [], 0
        for corners in found.values():
            x0, y0 = np.floor(corners.min(axis=0)).astype(int) - self.margin_px
            x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + self.margin_px
            where = (slice(max(0, y0), min(h, y1)), slice(max(0, x0), min(w, x1)))
            self._patches.append((where, self._gray(frame, where)))

    def unchanged(self, frame: np.ndarray) -> bool:
        h, w = frame.shape[:2]
        if not self._patches or self._size != (w, h) or self._trusted >= self.recheck:
            return False
        for where, before in self._patches:
            now = self._gray(frame, where)
            if changed_area(now, before, self.level) > self.share * before.size:
                return False
        self._trusted += 1
        return True

    def forget(self) -> None:
        self._patches = []


class Calibrator:
    """Keeps a good calibration through a game.

    Each frame it tries to refit, unless the markers' pixels are unchanged since the last fit
    (`MarkerWatch`). A new fit replaces the current one when it uses at least as many markers,
    or when the current one no longer explains the corners in view (the camera or the sheet
    moved). When a hand covers markers so that no fit is possible, the last good one stays in
    use; `reason` says why the latest frame was not used.
    """

    def __init__(
        self,
        layout: Layout,
        lens: Lens | None = None,
        initial: Calibration | None = None,
        moved_mm: float = 3.0,
        max_error_mm: float = MAX_ERROR_MM,
    ) -> None:
        self.layout = layout
        self.lens = lens
        self.current = initial
        self.moved_mm = moved_mm
        self.max_error_mm = max_error_mm
        self.reason: str | None = None
        self.why: dict | None = None  # the reason as a message id and its facts
        self._detector = marker_detector(layout)
        self.watch = MarkerWatch()

    def update(self, frame: np.ndarray) -> Calibration | None:
        """Feed one frame; returns the calibration to use for it (None until the first fit)."""
        height, width = frame.shape[:2]
        if self.current is not None and self.current.image_size != (width, height):
            self.current = None  # a fit for another resolution says nothing about this frame
        if self.current is not None and self.reason is None and self.watch.unchanged(frame):
            return self.current
        found = find_markers(frame, self.layout, self._detector)
        try:
            new = fit(found, self.layout, (width, height), self.lens, self.max_error_mm)
        except BoardNotFound as exc:
            self.reason, self.why = str(exc), exc.why
            self.watch.forget()
            if self.current is not None and self._moved(found):
                # What is visible disagrees with the kept fit: better no board than a wrong one.
                self.current = None
                self.reason += "; the camera or the sheet has moved since the last good fit"
                self.why = {**exc.why, "moved": True}
            return self.current
        self.reason = self.why = None
        cur = self.current
        if cur is None or len(new.markers) >= len(cur.markers) or self._moved(found):
            self.current = new
        # Watched only when the fit in use saw every marker now in view: a fit kept for having
        # more markers must not stop the search while fewer are visible.
        if self.current is new:
            self.watch.remember(frame, found)
        else:
            self.watch.forget()
        return self.current

    def _moved(self, found: dict[int, np.ndarray]) -> bool:
        cur = self.current
        if cur is None or not found:
            return False
        ids = sorted(found)
        img = np.concatenate([found[i] for i in ids])
        board = np.concatenate([self.layout.marker_corners(i) for i in ids])
        err = np.linalg.norm(cur.image_to_board(img) - board, axis=1)
        return float(np.median(err)) > self.moved_mm
