"""Our detector + face reader against the same network run by ultralytics' own `predict` on the
CPU (what a user would reach for instead), side by side on the same rectified boards.

    YOLO_CONFIG_DIR=DIR python benchmarks/vs_ultralytics.py [--boards 12] [--repeat 2]

(DIR/Ultralytics/Arial.ttf: any TTF font, as for training offline.)

Needs the train extra (ultralytics, torch). The boards are rendered demo-game tables (not
timed), rectified as the live loop sees them. Each side reads every board once to warm up,
then each board `--repeat` times; prints the median and p95 ms of each and the ratio of medians
(> 1: ours is faster). Ultralytics runs `models/dice.pt` (the checkpoint `dice.onnx` was
exported from) at the board's own size, as ours does; it reads values only, ours adds the face
reader's value and colour on top.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks.bench_incremental import settled_boards  # noqa: E402


def timed(fn, images, repeat: int) -> list[float]:
    for img in images:
        fn(img)
    out = []
    for _ in range(repeat):
        for img in images:
            t = time.perf_counter()
            fn(img)
            out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="0: the runtimes' defaults")
    args = ap.parse_args()
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    import torch
    from ultralytics import YOLO

    from scanner.vision.detect import DiceDetector

    if args.threads:
        torch.set_num_threads(args.threads)
    _, images = settled_boards(args.boards)
    h, w = images[0].shape[:2]
    size = [(h + 31) // 32 * 32, (w + 31) // 32 * 32]
    ours = DiceDetector(imgsz=0, threads=args.threads or None, board=True)
    yolo = YOLO(str(REPO / "models" / "dice.pt"))

    def theirs(img):
        return yolo.predict(img, imgsz=size, device="cpu", conf=0.1, verbose=False)

    rows = {}
    for name, fn in (
        ("ours (detector + face reader, onnxruntime)", ours.detect),
        ("ultralytics predict", theirs),
    ):
        ms = timed(fn, images, args.repeat)
        rows[name] = {
            "median_ms": round(float(np.median(ms)), 1),
            "p95_ms": round(float(np.percentile(ms, 95)), 1),
        }
    a, b = (r["median_ms"] for r in rows.values())
    print(
        json.dumps(
            {
                "boards": len(images),
                "board_px": [w, h],
                **rows,
                "ratio_theirs_over_ours": round(b / a, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
