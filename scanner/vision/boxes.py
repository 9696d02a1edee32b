"""Box geometry on (N, 4) arrays of x0 y0 x1 y1: one overlap formula for the detector's
suppression and vote, the evaluation's matching and the training's teacher boxes.

>>> a = np.array([[0.0, 0.0, 10.0, 10.0]]); b = np.array([[5.0, 0.0, 15.0, 10.0]])
>>> float(iou_matrix(a, b)[0, 0].round(3))
0.333
"""

from __future__ import annotations

import numpy as np


def intersection_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Overlap areas of every box of `a` with every box of `b` (xyxy), shape (len(a), len(b))."""
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    return np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)


def box_areas(boxes: np.ndarray) -> np.ndarray:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_sides(boxes: np.ndarray) -> np.ndarray:
    """Each box's longer side: how big a die it holds, whichever way it lies."""
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    inter = intersection_matrix(a, b)
    return inter / (box_areas(a)[:, None] + box_areas(b)[None, :] - inter + 1e-9)
