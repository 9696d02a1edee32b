"""Incremental board reads against full ones on the demo game's consecutive settled scenes.

    python benchmarks/bench_incremental.py [--pairs 16] [--model M]

For each pair of consecutive settled scenes (the hand scene between them skipped), the first
board is read whole and settled; the second is read by the `Rereader` (the detector on the
changed spots only) and whole. Prints the median and p95 ms of each, how many dice changed, and
how many pairs the incremental read got exactly as the full one did (value, colour, place).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from scanner.synth.demo import DemoFeed
from scanner.vision.board import read_board
from scanner.vision.calibrate import calibrate
from scanner.vision.models import load_detector
from scanner.vision.reread import Rereader
from scanner.vision.stability import reading_key


def key(dice, feed):
    """What the live loop compares two readings by: the state and each die's building, colour
    and value (boxes jitter by a pixel or two between a crop and a full read)."""
    players = list(feed.scenes[0].state.players)
    return reading_key(read_board(dice, feed.layout, players))


def settled_boards(n: int) -> tuple[DemoFeed, list]:
    """The demo game's first `n` settled scenes (no hand), rectified as the live loop sees
    them, and the feed they come from."""
    feed = DemoFeed(players=4)
    still = [i for i, s in enumerate(feed.scenes) if not s.hand][:n]
    cal = calibrate(feed.frame(still[0]), feed.layout)
    return feed, [cal.rectify(feed.frame(i)) for i in still]


def bench(pairs: int, model: str | None) -> dict:
    feed, boards = settled_boards(pairs + 1)
    detect = load_detector(model)
    detect(boards[0])  # warm up
    full_ms, inc_ms, changed, same, modes = [], [], [], 0, {}
    for before, now in zip(boards[:-1], boards[1:], strict=True):
        reread = Rereader(detect, feed.layout.px_per_mm)
        settled = detect(before)
        reread.settle(before, settled)
        t = time.perf_counter()
        inc = reread(now)
        inc_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        full = detect(now)
        full_ms.append((time.perf_counter() - t) * 1000)
        modes[reread.mode] = modes.get(reread.mode, 0) + 1
        moved = {(d.value, d.color, round(d.xyxy[0] / 30), round(d.xyxy[1] / 30)) for d in full}
        was = {(d.value, d.color, round(d.xyxy[0] / 30), round(d.xyxy[1] / 30)) for d in settled}
        changed.append(len(moved ^ was))
        same += key(inc, feed) == key(full, feed)
    return {
        "pairs": len(inc_ms),
        "modes": modes,
        "dice_changed_median": float(np.median(changed)),
        "incremental_ms_median": round(float(np.median(inc_ms)), 1),
        "incremental_ms_p95": round(float(np.percentile(inc_ms, 95)), 1),
        "full_ms_median": round(float(np.median(full_ms)), 1),
        "full_ms_p95": round(float(np.percentile(full_ms, 95)), 1),
        "pairs_equal_to_full": same,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=16)
    ap.add_argument("--model", default=None, help="ONNX detector (default: the shipped one)")
    args = ap.parse_args()
    print(json.dumps(bench(args.pairs, args.model)))
