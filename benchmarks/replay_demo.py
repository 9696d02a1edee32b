"""The rendered demo game replayed end to end through the camera pipeline and the referee, with
the shipped detector: how many placements are recognised, illegal ones flagged with the right
rule, rounds scored as `alea round` scores the true end-of-round state.

    python benchmarks/replay_demo.py [--seed 7] [--players 4] [--rounds 2]

The same as `alea demo --out DIR` followed by `alea replay DIR --calibration
DIR/calibration.json`, compared with DIR/script.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def matches(ruling: dict, expect: dict) -> bool:
    """Does the referee's ruling say what the demo script says happened?"""
    if ruling["kind"] != expect["kind"]:
        return False
    if expect["kind"] == "cleared":
        return ruling["round"] == expect["round"]
    if "rule" in expect:
        return ruling.get("rule") == expect["rule"]
    if expect["move"]["building"] == "latrina":
        return ruling.get("legal") is True and ruling["move"]["player"] == expect["move"]["player"]
    return ruling.get("legal") is True and ruling["move"] == expect["move"]


def replay_demo(
    seed: int = 7,
    players: int = 4,
    rounds: int = 2,
    model: str | None = None,
    out: Path | None = None,
) -> dict:
    from scanner.commands.demo import replay
    from scanner.session import Session
    from scanner.store import MemoryStore
    from scanner.synth.demo import write_demo
    from scanner.vision.calibrate import calibrate
    from scanner.vision.camera import open_source, read_image
    from scanner.vision.layout import default_layout
    from scanner.vision.live import LiveBoard
    from scanner.vision.models import load_detector

    out = out or Path(tempfile.mkdtemp())
    script = write_demo(out, seed, players, rounds)
    cal = calibrate(read_image(out / script["frames"][0]["file"]), default_layout())
    who = script["players"]
    session = Session(MemoryStore(), players=who)
    live = LiveBoard(cal.layout, load_detector(model), who, cal.lens, cal)
    start = time.perf_counter()
    with open_source(str(out)) as source:
        # A take-back of a flag is recorded as a "none" ruling (it clears the flag); the
        # script's rulings leave those out.
        events = [e for e in replay(source, live, session) if e["kind"] != "none"]
    seconds = time.perf_counter() - start
    expected = [
        s["expect"] for s in script["scenes"] if s["expect"] and s["expect"]["kind"] != "none"
    ]
    kinds = {
        "legal": lambda e: e["kind"] == "placement" and e.get("legal") is True,
        "flagged": lambda e: e["kind"] == "placement" and e.get("legal") is False,
        "rounds": lambda e: e["kind"] == "cleared",
    }
    right = {k: 0 for k in kinds}
    total = {k: sum(f(e) for e in expected) for k, f in kinds.items()}
    # Rulings are compared in order; an unexpected extra ruling shifts nothing but counts as
    # a miss for the expectation it stands against.
    for got, want in zip(events, expected, strict=False):
        for k, f in kinds.items():
            if f(want) and matches(got, want):
                right[k] += 1
    return {
        "frames": len(script["frames"]),
        "rulings": len(events),
        "expected_rulings": len(expected),
        "placements_recognised": f"{right['legal']}/{total['legal']}",
        "illegal_flagged_with_rule": f"{right['flagged']}/{total['flagged']}",
        "rounds_scored_right": f"{right['rounds']}/{total['rounds']}",
        "all_right": right == total and len(events) == len(expected),
        "seconds": round(seconds, 1),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", default=None)
    a = ap.parse_args()
    print(json.dumps(replay_demo(a.seed, a.players, a.rounds, a.model), indent=1))
