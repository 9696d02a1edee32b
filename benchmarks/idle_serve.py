"""`alea serve` idle on its demo feed, no browser: the share of one core it uses and its memory,
sampled over minutes (the server is the real command in its own process).

    python benchmarks/idle_serve.py [--seconds 600] [--every 30]

Prints one line per sample (seconds, % of one core over the interval, RSS MB) and a summary
with the median and highest share and the RSS at the first and last sample.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.soak_serve import rss_mb  # noqa: E402
from tests.cli import serve  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def idle(seconds: float, every: float) -> dict:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server, _ = serve(Path(tempfile.mkdtemp()), port)
    samples = []
    try:
        time.sleep(every)  # the first pass renders and warms up: not idle yet
        start = t0 = time.monotonic()
        c0 = cpu_seconds(server.pid)
        while t0 - start < seconds:
            time.sleep(every)
            t1, c1 = time.monotonic(), cpu_seconds(server.pid)
            samples.append(
                {
                    "s": round(t1 - start),
                    "core_pct": round(100 * (c1 - c0) / (t1 - t0), 1),
                    "rss_mb": round(rss_mb(server.pid), 1),
                }
            )
            print(json.dumps(samples[-1]), flush=True)
            t0, c0 = t1, c1
    finally:
        server.terminate()
        server.wait(timeout=30)
    pct = [r["core_pct"] for r in samples]
    return {
        "seconds": seconds,
        "core_pct_median": float(np.median(pct)),
        "core_pct_max": max(pct),
        "rss_mb_first": samples[0]["rss_mb"],
        "rss_mb_last": samples[-1]["rss_mb"],
        "rss_mb_max": max(r["rss_mb"] for r in samples),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--every", type=float, default=30)
    args = ap.parse_args()
    print(json.dumps(idle(args.seconds, args.every)))
