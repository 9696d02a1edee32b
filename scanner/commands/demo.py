"""`alea demo` writes the rendered demo game; `alea replay` runs the referee over frames."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scanner.cli import command, emit
from scanner.errors import InputError


def _demo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="folder for the frames and script.json")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    p.add_argument("--rounds", type=int, default=1, help="rounds to play (default 1)")


@command(
    "demo", "Write the rendered demo game: frames, script.json and calibration.json.", _demo_args
)
def run_demo(args: argparse.Namespace) -> int:
    from scanner.store import write_json
    from scanner.synth.demo import write_demo
    from scanner.vision.calibrate import calibrate
    from scanner.vision.camera import read_image
    from scanner.vision.layout import default_layout

    if not 2 <= args.players <= 5:
        raise InputError("value.range", f"--players {args.players}: 2 to 5", "--players")
    if not 1 <= args.rounds <= 6:
        raise InputError("value.range", f"--rounds {args.rounds}: 1 to 6", "--rounds")
    script = write_demo(args.out, args.seed, args.players, args.rounds)
    first = read_image(Path(args.out) / script["frames"][0]["file"])
    cal = calibrate(first, default_layout())
    write_json(Path(args.out) / "calibration.json", cal.to_json())
    emit(
        {
            "out": args.out,
            "frames": len(script["frames"]),
            "scenes": len(script["scenes"]),
            "players": script["players"],
        }
    )
    return 0


def _replay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("frames", help="a folder of frames (sorted by name) or a video file")
    p.add_argument("--calibration", required=True, help="profile written by alea calibrate")
    p.add_argument(
        "--players",
        nargs="+",
        help="colours in seating order (default: script.json beside the frames)",
    )
    p.add_argument("--model", help="detector model (default: the shipped one)")


def replay(frames, live, session) -> list[dict]:
    """Feed frames to the live board; each newly settled board goes to the referee."""
    events = []
    for frame in frames:
        status = live.process(frame.image)
        if status.changed and status.settled is not None and status.settled.seen is not None:
            live.players = list(session.game.state.players)  # seating rotates each round
            outcome = session.observe(status.settled.seen.to_json(), status.settled.unsure())
            if outcome is not None:
                events.append({"frame": frame.name, **outcome})
    return events


@command(
    "replay",
    "Run the referee over a folder of frames or a video; print the event log.",
    _replay_args,
)
def run_replay(args: argparse.Namespace) -> int:
    from scanner.commands._base import players_arg
    from scanner.session import Session
    from scanner.store import MemoryStore
    from scanner.vision.calibrate import Calibration
    from scanner.vision.camera import open_source
    from scanner.vision.live import LiveBoard
    from scanner.vision.models import load_detector

    players = players_arg(args.players)
    script = Path(args.frames) / "script.json"
    if players is None and script.exists():
        players = json.loads(script.read_text())["players"]
    if not players:
        raise InputError("schema.missing", "give --players in seating order", "--players")
    cal = Calibration.load(args.calibration)
    session = Session(MemoryStore(), players=list(players))
    live = LiveBoard(cal.layout, load_detector(args.model), list(players), cal.lens, cal)
    with open_source(args.frames) as source:
        events = replay(source, live, session)
    print(f"{len(events)} rulings", file=sys.stderr)
    emit({"players": list(players), "events": events, "final": session.summary()})
    return 0
