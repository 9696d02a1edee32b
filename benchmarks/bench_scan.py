"""Photo → board state through the web API, as a tablet or a script sends it (#22): the median
time of `POST /api/scan` after the first request (which opens the models), on rendered table
photos.

    python benchmarks/bench_scan.py [--requests 12]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    import cv2
    import numpy as np

    from scanner.vision.layout import default_layout
    from tests.scenes import render_scene
    from webui import create_app

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=12)
    args = ap.parse_args()
    rng = np.random.default_rng(3)
    dice = [(100, 100, "blue", 5), (210, 90, "grey", 4), (72, 175, "green", 1)]
    photos = [
        cv2.imencode(".jpg", render_scene(default_layout(), rng, dice=dice).image)[1].tobytes()
        for _ in range(4)
    ]
    with tempfile.TemporaryDirectory() as data:
        client = create_app({"DATA_DIR": data}).test_client()
        times = []
        for i in range(args.requests + 1):
            start = time.perf_counter()
            res = client.post("/api/scan", data=photos[i % 4], content_type="image/jpeg")
            times.append(time.perf_counter() - start)
            assert res.status_code == 200, res.get_json()
    print(f"/api/scan, 1280x720 JPEG: first {times[0] * 1000:.0f} ms (opens the models), then "
          f"median {statistics.median(times[1:]) * 1000:.0f} ms, "
          f"max {max(times[1:]) * 1000:.0f} ms over {args.requests}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
