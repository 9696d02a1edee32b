"""SIGKILL `alea serve --no-camera` while each kind of change is in flight, restart it on the same
data folder, and compare what it shows with what it acknowledged (#20; `tests/killing.py` says
how). Prints the kills by change, how many landed in flight, acknowledged changes, lost ones,
failed restarts and the restart time.

    python benchmarks/kill_serve.py [--kills 110] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import killing  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=110)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        run = killing.run(Path(folder) / "data", args.kills, args.seed)
    kills = sum(run.kills.values())
    print(f"kills: {kills} in {time.perf_counter() - start:.0f} s; by change in flight:")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(run.kills.items())))
    print(f"in flight at the kill: {kills - run.answered_first} "
          f"(written before it and kept whole: {run.in_flight_kept}); after the answer: "
          f"{run.answered_first}")  # fmt: skip
    print(f"acknowledged changes: {run.acknowledged}; lost: {len(run.lost)}")
    print(f"restarts that failed: {len(run.failed_restarts)}")
    if run.restart_s:
        print(f"restart to first answer: median {statistics.median(run.restart_s):.2f} s, "
              f"max {max(run.restart_s):.2f} s")  # fmt: skip
    for line in run.lost + run.failed_restarts:
        print("  ", line)
    return 1 if run.lost or run.failed_restarts else 0


if __name__ == "__main__":
    raise SystemExit(main())
