"""Latency and peak memory of `DiceDetector.detect` on a 1280×720 table frame (CPU).

    PYTHONPATH=. python benchmarks/bench_detect.py [--imgsz 640] [--runs 50] [--threads 2]
        [--face none|PATH]

Prints one JSON line. The frame is a rendered table scene (deterministic), so the figure is
reproducible; the time covers everything `alea dice` does per image after loading: letterbox,
forward, decode, NMS, and the face reader on every proposed box (`--face none`: the detector
alone, no colours).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser()
    p.add_argument("--imgsz", type=int, default=640, help="0 = native 1280x736 forward")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--model", default=None)
    p.add_argument("--face", default=None, help="face reader ONNX, or 'none'")
    args = p.parse_args(argv)

    from scanner.synth.scene import SceneConfig, render_scene
    from scanner.vision.detect import DEFAULT_MODEL, DiceDetector, face_reader

    frame = render_scene(
        2024, SceneConfig(width=1280, height=720, min_dice=24, max_dice=24, die_px=(52.0, 80.0))
    ).image
    det = DiceDetector(
        args.model or DEFAULT_MODEL,
        imgsz=args.imgsz,
        threads=args.threads,
        reader=face_reader(args.face),
    )
    for _ in range(3):
        det.detect(frame)
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        dice = det.detect(frame)
        times.append((time.perf_counter() - t0) * 1000)
    result = {
        "frame": "1280x720",
        "imgsz": args.imgsz,
        "threads": args.threads,
        "runs": args.runs,
        "face_reader": det.reader is not None,
        "median_ms": round(statistics.median(times), 1),
        "p90_ms": round(sorted(times)[int(0.9 * len(times)) - 1], 1),
        "dice": len(dice),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
