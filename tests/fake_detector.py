"""A stand-in for the dice detector that really looks at the image: it finds the flat synthetic
dice of `tests.scenes` on the rectified board (coloured squares with white pips), names their
colour and counts their pips. So a scan test checks the whole geometry, photo → board → zones,
without the trained model."""

from __future__ import annotations

import cv2
import numpy as np

from scanner.vision.dice import Dice
from tests.scenes import DIE_BGR


class FakeDetector:
    def __init__(self, px_per_mm: float = 3.0, die_mm: float = 16.0) -> None:
        self.px_per_mm = px_per_mm
        self.die_px = die_mm * px_per_mm
        self.calls = 0

    def detect(self, board_bgr: np.ndarray) -> Dice:
        self.calls += 1
        img = board_bgr.astype(np.float32)
        gray = cv2.cvtColor(board_bgr, cv2.COLOR_BGR2GRAY)
        # Paper brightness around each pixel (a max filter wider than a die), to undo uneven light.
        k = int(self.die_px * 1.8) | 1
        paper = cv2.dilate(gray, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
        paper = np.maximum(paper.astype(np.float32), 1)[..., None]
        norm = img / paper
        chroma = norm.max(axis=2) - norm.min(axis=2)
        ink = (norm.mean(axis=2) < 0.75) | (chroma > 0.25)
        mask = cv2.morphologyEx(
            ink.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8), iterations=1
        )
        # Pips are white holes in a die: close them so each die is one blob.
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        dice = []
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if not (0.6 < w / self.die_px < 1.4 and 0.6 < h / self.die_px < 1.4):
                continue  # zone lines, markers, text
            if area < 0.6 * w * h:
                continue
            crop = norm[y : y + h, x : x + w]
            body = (labels[y : y + h, x : x + w] == i) & (crop.mean(axis=2) < 0.85)
            colour = crop[body].mean(axis=0) * 255
            name = min(DIE_BGR, key=lambda c: np.linalg.norm(np.array(DIE_BGR[c]) - colour))
            # Pips: small bright spots on the die's body (white top-hat), away from its edge.
            shade = cv2.cvtColor(board_bgr[y : y + h, x : x + w], cv2.COLOR_BGR2GRAY)
            pip = int(self.px_per_mm * 4.5) | 1
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (pip, pip))
            tophat = cv2.morphologyEx(shade, cv2.MORPH_TOPHAT, kernel)
            inner = (tophat > 25).astype(np.uint8)
            rim = int(round(1.5 * self.px_per_mm))  # the die's edge against bright paper
            inner[:rim], inner[-rim:], inner[:, :rim], inner[:, -rim:] = 0, 0, 0, 0
            pips, _, pstats, _ = cv2.connectedComponentsWithStats(inner)
            value = int(sum(1 for s in pstats[1:] if s[4] >= 6))
            if 1 <= value <= 6:
                dice.append(
                    {
                        "value": value,
                        "color": name,
                        "confidence": 0.9,
                        "bbox": [float(x), float(y), float(x + w), float(y + h)],
                    }
                )
        return Dice.from_json(dice)
