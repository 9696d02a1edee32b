"""Synthetic camera views of the marker sheet for the vision tests and benchmarks.

A pinhole camera at a random pose looks down at the sheet lying on a textured table; the true
homography is known, so a test can measure a calibration's error in millimetres. Optional extras:
flat coloured "dice" (a square with white pips) drawn on the sheet, and a "hand" (a large
skin-coloured blob) drawn over the image.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.vision.layout import Layout
from scanner.vision.sheet import board_to_pixels, render_sheet

SHEET_PX_PER_MM = 2.0
IMAGE_SIZE = (1280, 720)
# Flat BGR colours for the fake dice, one per player colour; hues far apart for the fake detector.
DIE_BGR = {
    "grey": (128, 128, 128),
    "brown": (30, 60, 120),
    "blue": (200, 80, 20),
    "green": (40, 160, 40),
    "yellow": (0, 210, 230),
}
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


@dataclass
class Scene:
    image: np.ndarray  # BGR camera frame
    board_to_image: np.ndarray  # the true 3×3 homography, board mm → image px

    def true_image_to_board(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, np.linalg.inv(self.board_to_image)).reshape(-1, 2)


def camera_pose(layout: Layout, rng: np.random.Generator, size=IMAGE_SIZE, roll=None, full=False):
    """A random pose that keeps the whole sheet in view: board mm → image px homography
    (with `full`, also the camera: matrix K, rotation R, translation t, centre in board mm;
    board z points into the table, so the camera is at negative z)."""
    w, h = size
    f = rng.uniform(900, 1100)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    centre = np.array([layout.width / 2, layout.height / 2, 0.0])
    for _ in range(200):
        cam = centre + np.array(
            [rng.uniform(-150, 150), rng.uniform(-120, 120), -rng.uniform(430, 650)]
        )
        target = centre + np.array([rng.uniform(-40, 40), rng.uniform(-30, 30), 0])
        z = (target - cam) / np.linalg.norm(target - cam)
        x = np.cross([0, 1, 0], z)
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        a = np.deg2rad(rng.uniform(-25, 25) if roll is None else roll)
        x, y = np.cos(a) * x + np.sin(a) * y, -np.sin(a) * x + np.cos(a) * y
        r = np.stack([x, y, z])
        t = -r @ cam
        hom = k @ np.column_stack([r[:, 0], r[:, 1], t])
        hom /= hom[2, 2]
        corners = np.array(
            [[0, 0], [layout.width, 0], [layout.width, layout.height], [0, layout.height]],
            np.float64,
        )
        img = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), hom).reshape(-1, 2)
        if (img > 20).all() and (img[:, 0] < w - 20).all() and (img[:, 1] < h - 20).all():
            return (hom, k, r, t, cam) if full else hom
    raise RuntimeError("no pose keeps the sheet in view")


def draw_dice(sheet_bgr: np.ndarray, dice, px_per_mm: float, die_mm: float = 16.0) -> None:
    """Flat dice on the sheet image: (x_mm, y_mm, colour, value) → coloured square with pips."""
    for x, y, color, value in dice:
        half = die_mm / 2 * px_per_mm
        cx, cy = x * px_per_mm, y * px_per_mm
        p0 = (int(round(cx - half)), int(round(cy - half)))
        p1 = (int(round(cx + half)), int(round(cy + half)))
        cv2.rectangle(sheet_bgr, p0, p1, DIE_BGR[color], -1)
        step = die_mm * 0.3 * px_per_mm
        for dx, dy in PIPS[value]:
            centre = (int(round(cx + dx * step)), int(round(cy + dy * step)))
            cv2.circle(sheet_bgr, centre, max(2, int(round(1.5 * px_per_mm))), (255, 255, 255), -1)


def table_texture(rng: np.random.Generator, size=IMAGE_SIZE) -> np.ndarray:
    w, h = size
    small = rng.uniform(0.6, 1.1, (h // 40 + 2, w // 8 + 2)).astype(np.float32)
    grain = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(grain[..., None] * np.array([60, 100, 150], np.float32), 0, 255)  # wood


def render_scene(
    layout: Layout,
    rng: np.random.Generator,
    dice=(),
    pose: np.ndarray | None = None,
    size=IMAGE_SIZE,
    noise: float = 4.0,
    blur: float = 0.8,
    hide_markers=(),
) -> Scene:
    """The sheet (with optional dice) seen by a camera; `hide_markers` are painted over by a
    hand-coloured blob in the image, as a hand covering them would be."""
    hom = camera_pose(layout, rng, size) if pose is None else pose
    sheet = cv2.cvtColor(render_sheet(layout, SHEET_PX_PER_MM), cv2.COLOR_GRAY2BGR)
    draw_dice(sheet, dice, SHEET_PX_PER_MM, layout.die_size)
    g = hom @ np.linalg.inv(board_to_pixels(SHEET_PX_PER_MM))
    warped = cv2.warpPerspective(sheet, g, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    mask = cv2.warpPerspective(np.ones(sheet.shape[:2], np.float32), g, size)[..., None]
    img = table_texture(rng, size) * (1 - mask) + warped * mask
    # Uneven light: a smooth gain across the frame.
    yy, xx = np.mgrid[0 : size[1], 0 : size[0]].astype(np.float32)
    gain = 0.8 + 0.25 * np.cos(xx / size[0] * rng.uniform(1, 3) + rng.uniform(0, 6)) * np.cos(
        yy / size[1] * rng.uniform(1, 2)
    )
    img *= gain[..., None]
    for mid in hide_markers:
        centre = cv2.perspectiveTransform(
            np.array([[layout.markers[mid][:2]]], np.float64), hom
        ).ravel()
        draw_hand(img, centre, rng, radius=layout.markers[mid][2] * 1.1 * hom_scale(hom))
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    img += rng.normal(0, noise, img.shape).astype(np.float32)
    return Scene(np.clip(img, 0, 255).astype(np.uint8), hom)


def hom_scale(hom: np.ndarray) -> float:
    """Rough pixels per millimetre of a board → image homography near the board centre."""
    return float(np.sqrt(abs(np.linalg.det(hom[:2, :2]))) / abs(hom[2, 2]))


def draw_hand(img: np.ndarray, centre, rng: np.random.Generator, radius: float) -> None:
    """A hand-sized skin-coloured blob (palm ellipse plus fingers) centred at `centre`."""
    skin = (
        float(rng.uniform(110, 140)),
        float(rng.uniform(150, 175)),
        float(rng.uniform(200, 230)),
    )
    c = (int(centre[0]), int(centre[1]))
    r = int(radius)
    cv2.ellipse(img, c, (r, int(r * 0.8)), rng.uniform(0, 180), 0, 360, skin, -1)
    for k in range(4):
        a = np.deg2rad(-60 + 40 * k)
        tip = (int(c[0] + 1.7 * r * np.cos(a)), int(c[1] - 1.7 * r * np.sin(a)))
        cv2.line(img, c, tip, skin, max(2, r // 3))


def homography_error_mm(cal, scene: Scene, layout: Layout, step: float = 10.0) -> np.ndarray:
    """Distances (mm) between true and calibrated board positions over the whole sheet."""
    xs, ys = np.meshgrid(
        np.arange(0, layout.width + 1e-6, step), np.arange(0, layout.height + 1e-6, step)
    )
    board = np.stack([xs.ravel(), ys.ravel()], axis=1)
    img = cv2.perspectiveTransform(board.reshape(-1, 1, 2), scene.board_to_image).reshape(-1, 2)
    return np.linalg.norm(cal.image_to_board(img) - board, axis=1)
