"""Calibration accuracy and board-reading latency on synthetic 1280×720 camera views.

    PYTHONPATH=. python benchmarks/bench_vision.py [--poses 20] [--repeat 30]

Accuracy: random camera poses (430–650 mm above the A3 sheet, up to ~20° off vertical, any
roll within ±25°), noise σ=4 and blur σ=0.8; markers hidden under a hand-coloured blob to leave
the named subsets. Error = distance in board mm between where the calibration puts a point and
where it truly is, over a 10 mm grid of the whole sheet and of the building zones only.
Latency: median wall time per frame of locate (markers + fit), rectify, and board reading of
25 dice (parallax correction included), on one frame, single-threaded OpenCV.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scanner.vision.board import read_board  # noqa: E402
from scanner.vision.calibrate import BoardNotFound, calibrate  # noqa: E402
from scanner.vision.dice import Dice  # noqa: E402
from scanner.vision.layout import default_layout  # noqa: E402
from tests.scenes import homography_error_mm, render_scene  # noqa: E402

SUBSETS = {
    "8 markers": (0, 1, 2, 3, 4, 5, 6, 7),
    "4 corners": (0, 1, 2, 3),
    "3 corners": (0, 1, 2),
    "2 diagonal": (0, 2),
    "2 adjacent (long edge)": (0, 1),
    "2 adjacent (short edge)": (0, 3),
}


def zone_points(layout, step=10.0):
    pts = []
    for z in [*layout.zones.values(), *layout.pedestals]:
        (x0, y0), (x1, y1) = z.polygon.min(axis=0), z.polygon.max(axis=0)
        xs, ys = np.meshgrid(np.arange(x0, x1 + 1e-6, step), np.arange(y0, y1 + 1e-6, step))
        pts.append(np.stack([xs.ravel(), ys.ravel()], axis=1))
    return np.concatenate(pts)


def accuracy(poses: int, seed: int = 0) -> dict:
    layout = default_layout()
    zpts = zone_points(layout)
    rows = {}
    for name, visible in SUBSETS.items():
        rng = np.random.default_rng(seed)
        whole, zones, failed = [], [], 0
        hidden = [m for m in layout.markers if m not in visible]
        for _ in range(poses):
            scene = render_scene(layout, rng, hide_markers=hidden)
            try:
                cal = calibrate(scene.image, layout)
            except BoardNotFound:
                failed += 1
                continue
            whole.append(homography_error_mm(cal, scene, layout))
            img = cv2.perspectiveTransform(zpts.reshape(-1, 1, 2), scene.board_to_image)
            zones.append(np.linalg.norm(cal.image_to_board(img) - zpts, axis=1))
        w, z = np.concatenate(whole), np.concatenate(zones)
        rows[name] = {
            "sheet_mean": float(w.mean()),
            "sheet_p95": float(np.percentile(w, 95)),
            "sheet_max": float(w.max()),
            "zones_mean": float(z.mean()),
            "zones_p95": float(np.percentile(z, 95)),
            "zones_max": float(z.max()),
            "failed": failed,
        }
    return rows


def latency(repeat: int, seed: int = 1) -> dict:
    cv2.setNumThreads(1)
    layout = default_layout()
    rng = np.random.default_rng(seed)
    scene = render_scene(layout, rng)
    cal = calibrate(scene.image, layout)
    s = layout.px_per_mm
    dice = Dice.from_json(
        [
            {
                "value": 1 + i % 6,
                "color": ["grey", "brown", "blue", "green"][i % 4],
                "confidence": 0.9,
                "bbox": [x * s - 24, y * s - 24, x * s + 24, y * s + 24],
            }
            for i, (x, y) in enumerate(rng.uniform([60, 60], [360, 240], (25, 2)))
        ]
    )
    times: dict[str, list[float]] = {"locate": [], "rectify": [], "board": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        cal = calibrate(scene.image, layout)
        t1 = time.perf_counter()
        cal.rectify(scene.image)
        t2 = time.perf_counter()
        read_board(dice, layout, ["grey", "brown", "blue", "green"], cal.camera_position())
        t3 = time.perf_counter()
        times["locate"].append(t1 - t0)
        times["rectify"].append(t2 - t1)
        times["board"].append(t3 - t2)
    out = {k: 1000 * float(np.median(v)) for k, v in times.items()}
    out["total"] = sum(out.values())
    out["rectified_size"] = list(cal.rectified_size)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--poses", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    print(f"homography error, mm ({args.poses} poses, 1280x720):")
    print(f"{'visible':26} {'sheet mean/p95/max':>22} {'zones mean/p95/max':>22} failed")
    for name, r in accuracy(args.poses).items():
        print(
            f"{name:26} {r['sheet_mean']:6.2f} {r['sheet_p95']:6.2f} {r['sheet_max']:6.2f}   "
            f"{r['zones_mean']:6.2f} {r['zones_p95']:6.2f} {r['zones_max']:6.2f}   {r['failed']}"
        )
    lat = latency(args.repeat)
    print(
        "latency per 1280x720 frame, ms (median, 1 thread): "
        + ", ".join(f"{k} {v:.1f}" for k, v in lat.items() if k != "rectified_size")
        + f"; rectified board {lat['rectified_size'][0]}x{lat['rectified_size'][1]}"
    )


if __name__ == "__main__":
    main()
