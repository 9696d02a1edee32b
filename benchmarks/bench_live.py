"""Frames per second of the live loop (locate, rectify, still?, detect when still, read) on the
demo game's 1280×720 frames, with the shipped detector, on this CPU.

    python benchmarks/bench_live.py [--frames 200]

Frames are rendered first (not timed); the loop then runs over them as fast as it can. Moving
frames skip the detector, so the figure depends on the mix: the demo's is about one moving frame
in five, like a table where someone places dice every few seconds.
"""

from __future__ import annotations

import argparse
import json
import time

from scanner.synth.demo import DemoFeed
from scanner.vision.live import LiveBoard
from scanner.vision.models import load_detector


def bench(frames: int = 200) -> dict:
    feed = DemoFeed(players=4)
    it = iter(feed)
    images = [next(it) for _ in range(frames)]
    live = LiveBoard(feed.layout, load_detector(None), list(feed.scenes[0].state.players))
    settled = 0
    start = time.perf_counter()
    for image in images:
        settled += live.process(image).changed
    elapsed = time.perf_counter() - start
    return {
        "frames": frames,
        "seconds": round(elapsed, 2),
        "fps": round(frames / elapsed, 1),
        "settled_boards": settled,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    print(json.dumps(bench(ap.parse_args().frames)))
