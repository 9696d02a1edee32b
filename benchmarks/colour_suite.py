"""The validation suite a palette or reader change is chosen on: `colour_source.py` over every
variant, wrong dice and false flags summed (validation frames only, never a test set).

    python benchmarks/colour_suite.py [--frames 60] [--face M] [--jobs 2] [--rows ROW ...]

Why a suite: each variant stresses one thing a table does to a die's colour (lamps, a leaning
camera, dice of no player's colour, gloss, shades past the renderer's ranges, mixed sets, a
forgotten reference, a wide lamp's glare); a change that helps one may hurt another, so a
change is chosen by rules written before its figures over all of them at once:

- the 13 variants (`SUITE`), 11 of them without glare (`NO_GLARE`);
- the risk variants (`RISK`): shades far past the ranges, where the reader may name a
  neighbouring colour.

Every row is read in the same pass as the others (the same frames, the same detections), so
rows differ only by their switches. Prints, per row: wrong dice over the 13 variants, false
flags (a player's die another player's colour, a die of no player's colour a player's), wrong
dice over the 11 without glare, and on each risk variant; then each variant's wrong dice.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import colour_source  # noqa: E402

NO_GLARE: tuple[str, ...] = (
    "",
    "--lamps",
    "--others",
    "--lamps --max-tilt 30 --others",
    "--sheen 0.25 --others",
    "--beyond 0.3 --others",
    "--drop-reference",
    "--lamps --max-tilt 30 --others --drop-reference",
    "--mixed 0.3 --others",
    "--lamps --max-tilt 30 --mixed 0.3 --others",
    "--mixed 0.5 --others",
)
SUITE: tuple[str, ...] = (*NO_GLARE, "--glare 0.4 --others", "--glare 0.8 --others")
RISK: tuple[str, ...] = ("--beyond 0.6 --others", "--beyond 1.0 --others")


def _variant(argv: list[str]) -> dict[str, dict[str, int]]:
    """One variant's wrong dice and false flags per row (run in its own process)."""
    args = colour_source.parser().parse_args(argv)
    counts = colour_source.measure(args)
    rows = args.rows or list(colour_source.ROWS)
    return {row: colour_source.wrong_dice(counts, row) for row in rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--face", default=None, help="face reader ONNX (default: models/face.onnx)")
    ap.add_argument("--jobs", type=int, default=2, help="variants read at once")
    ap.add_argument("--rows", nargs="+", metavar="ROW", help="read only these rows (default: all)")
    args = ap.parse_args(argv)
    colour_source.check_rows(ap, args.rows or [])
    rows = args.rows or list(colour_source.ROWS)
    common = ["--frames", str(args.frames), "--rows", *rows]
    common += ["--face", args.face] if args.face else []
    variants = (*SUITE, *RISK)
    with ProcessPoolExecutor(args.jobs) as pool:
        found = list(pool.map(_variant, [v.split() + common for v in variants]))
    per = dict(zip(variants, found, strict=True))
    print(json.dumps({"frames": args.frames, "face": args.face, "variants": per}))
    print(
        f"| row | wrong dice, {len(SUITE)} variants | false flags | "
        f"{len(NO_GLARE)} without glare | " + " | ".join(RISK) + " |"
    )
    print("|---|---|---|---|" + "---|" * len(RISK))
    for row in rows:
        total = Counter()
        for v in SUITE:
            total.update(per[v][row])
        calm = sum(per[v][row]["wrong"] for v in NO_GLARE)
        risk = " | ".join(str(per[v][row]["wrong"]) for v in RISK)
        print(f"| {row} | {total['wrong']} | {total['false flags']} | {calm} | {risk} |")
    print()
    print("| variant | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for v in variants:
        cells = " | ".join(str(per[v][row]["wrong"]) for row in rows)
        print(f"| {v or '(plain)'} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
