"""The fuzz suite of `tests/test_fuzz.py` run longer, with its figures printed (#20).

    python benchmarks/fuzz.py [--web 3000] [--cli 1500] [--processes 40] [--seed 0]

Web requests go to the app in this process (each example: a game a few moves in, 1–5 fuzzed
requests, then the data folder reopened and compared); command lines run `alea`'s `main` in this
process, and `--processes` of them also as the console script in a process of their own, where
what C libraries print to stderr is seen too. Prints how many inputs were tried, the answers by
status or exit code, the slowest, and every input that broke the contract (0 is the target).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests import fuzzing  # noqa: E402


def fuzz_web(n: int, workspace: fuzzing.Workspace, tally: fuzzing.Tally, seed: int) -> None:
    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        derandomize=False,
    )
    @given(st.lists(fuzzing.requests(workspace.photos()), min_size=1, max_size=5))
    def run(requests):
        fuzzing.web_example(tally, requests)

    random.seed(seed)
    run()


def fuzz_cli(n: int, workspace: fuzzing.Workspace, tally: fuzzing.Tally, keep: list) -> None:
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(workspace.cli_cases())
    def run(argv):
        fuzzing.run_cli(tally, argv)
        keep.append(argv)

    run()


def in_processes(argvs: list[list[str]], tally: fuzzing.Tally) -> None:
    """The console script as users run it: exit 0 or 2, one stderr line with 2, nothing on
    stderr with 0 (the photo commands may print a progress bar only on a terminal)."""
    for argv in argvs:
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "scanner", *argv],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        tally.count(f"exit {proc.returncode}", time.perf_counter() - start)
        lines = proc.stderr.strip().splitlines()
        bad = (
            proc.returncode not in (0, 2)
            or "Traceback" in proc.stderr
            or (proc.returncode == 2 and len(lines) != 1)
        )
        if bad:
            tally.fail(f"alea {' '.join(argv)[:200]} -> {proc.returncode}: {proc.stderr[-300:]!r}")


def report(name: str, tally: fuzzing.Tally, seconds: float) -> None:
    answers = ", ".join(f"{k}: {v}" for k, v in sorted(tally.answers.items()))
    print(f"{name}: {tally.tried} inputs in {seconds:.0f} s; {answers}")
    print(f"  slowest {tally.slowest_s * 1000:.0f} ms; broken {len(tally.broken)}")
    for what in tally.broken[:20]:
        print("   ", what)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--web", type=int, default=3000, help="web examples (1-5 requests each)")
    ap.add_argument("--cli", type=int, default=1500, help="command lines in this process")
    ap.add_argument("--processes", type=int, default=40, help="of those, run as processes")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workspace = fuzzing.Workspace(Path(folder))
        web, start = fuzzing.Tally(), time.perf_counter()
        fuzz_web(args.web, workspace, web, args.seed)
        report("web requests", web, time.perf_counter() - start)
        cli, argvs, start = fuzzing.Tally(), [], time.perf_counter()
        fuzz_cli(args.cli, workspace, cli, argvs)
        report("command lines, in process", cli, time.perf_counter() - start)
        procs, start = fuzzing.Tally(), time.perf_counter()
        sample = random.Random(args.seed).sample(argvs, min(args.processes, len(argvs)))
        in_processes(sample, procs)
        report("command lines, as processes", procs, time.perf_counter() - start)
    return 1 if web.broken or cli.broken or procs.broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
