"""Flag latency: from the first camera frame that shows an illegal placement lying still to the
flag in the game the tablets read (what their event stream pushes at once), with the shipped
detector, the camera loop of `alea serve` (`webui.table.TableLoop`) and a camera delivering 10
frames a second.

    python benchmarks/flag_latency.py [--fps 10] [--players 4] [--seed 7]

The demo game is played once through; for every scene the referee should flag, the time from
its first frame to the flag appearing in the session is printed (target: under 1 s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time


def measure(fps: float = 10.0, players: int = 4, seed: int = 7) -> dict:
    from scanner.synth.demo import DemoFeed
    from scanner.vision.models import load_detector
    from webui.live import GameHub
    from webui.table import TableLoop

    feed = DemoFeed(seed=seed, players=players)
    for i in range(len(feed.scenes)):
        feed.table(i)  # render every scene first: a real camera does not render
    first_frame: dict[int, float] = {}
    done = threading.Event()

    class Camera:
        """The demo's frames, one pass, each scene's first frame time-stamped."""

        def __iter__(self):
            for i, image in feed.frames():
                first_frame.setdefault(i, time.perf_counter())
                yield image
            done.set()

    hub = GameHub(tempfile.mkdtemp())
    hub.new_game(list(feed.scenes[0].state.players))

    def on_settled(state: dict, unsure: list[dict]) -> None:
        hub.run(lambda s: s.observe(state, unsure))

    flags_at: list[tuple[float, str]] = []

    def watch() -> None:
        seen = None
        while not done.is_set() or time.perf_counter() - stop_at[0] < 3:
            flag = hub.session.flag if hub.session else None
            key = None if flag is None else json.dumps(flag, sort_keys=True)
            if key is not None and key != seen:
                flags_at.append((time.perf_counter(), flag["rule"]))
            seen = key
            time.sleep(0.005)

    stop_at = [float("inf")]
    ours = TableLoop(
        lambda: iter(Camera()),
        feed.layout,
        load_detector(None),
        on_settled,
        lambda: list(hub.session.game.state.players),
        fps,
    )
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ours.start()
    done.wait()
    stop_at[0] = time.perf_counter()
    ours.join(30)
    watcher.join(10)
    rows = []
    for i, s in enumerate(feed.scenes):
        if not (s.expect and s.expect.get("legal") is False):
            continue
        t0 = first_frame[i]
        later = [(t, rule) for t, rule in flags_at if t >= t0]
        t1, rule = later[0] if later else (None, None)
        rows.append(
            {
                "scene": i,
                "rule": s.expect["rule"],
                "flagged": rule,
                "latency_s": None if t1 is None else round(t1 - t0, 3),
            }
        )
    lat = [r["latency_s"] for r in rows if r["latency_s"] is not None]
    return {
        "fps": fps,
        "flags": len(rows),
        "flagged_right": sum(r["rule"] == r["flagged"] for r in rows),
        "median_s": round(statistics.median(lat), 3) if lat else None,
        "max_s": max(lat) if lat else None,
        "rows": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    print(json.dumps(measure(args.fps, args.players, args.seed), indent=1))


if __name__ == "__main__":
    main()
