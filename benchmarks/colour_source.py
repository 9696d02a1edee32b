"""Where a die's colour should come from, chosen on validation table frames (never a test set).

    python benchmarks/colour_source.py [--frames 60] [--seed 7000] [--face models/face.onnx]

Each frame is a mid-game board drawn by our table renderer with a random set of the game's dice
(`scanner.synth.table.random_dice`: each colour in one shade of its range, white or black pips)
and, under the same camera and light, a reference frame with one die of each colour on its
swatch square. Every frame is read as `alea scan` reads it, with the colour taken three ways:
the face reader's colour head, the built-in palette (`scanner.vision.palette.BUILT_IN`) and the
palette learnt from the reference frame (`alea palette`). Seeds from 7000 are used by no
training, validation or test set. Prints colour accuracy over matched dice and the share of
frames whose dice are all the right colour.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scanner.synth.arrange import TrueDie  # noqa: E402
from scanner.synth.table import mid_game_states, random_dice, render_table  # noqa: E402
from scanner.vision.calibrate import BoardNotFound, calibrate  # noqa: E402
from scanner.vision.layout import default_layout  # noqa: E402
from scanner.vision.palette import BUILT_IN  # noqa: E402
from scanner.vision.scan import learn_colors, scan_image  # noqa: E402
from scanner.vision.table_eval import pairs_by_position  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--face", default=None, help="face reader ONNX (default: models/face.onnx)")
    args = ap.parse_args(argv)

    from scanner.vision.detect import DEFAULT_MODEL, DiceDetector

    detect = DiceDetector(DEFAULT_MODEL, imgsz=0, reader=args.face or True).detect
    layout = default_layout()
    rng = np.random.default_rng(args.seed)
    counts: Counter = Counter()
    states = mid_game_states(args.seed, layout)
    for n in tqdm(range(args.frames), desc="frames", disable=None):
        state = next(states)
        dice = random_dice(rng)
        squares = tuple(
            TrueDie(c, 3, "swatch", x, y, 0.4) for c, (x, y, _) in layout.swatches.items()
        )
        empty = state.with_(templum={}, senatus={}, castrum=[], forum=[], latrina={})
        look = (args.seed, n)
        ref = render_table(empty, (args.seed, n, 1), look=look, dice=replace(dice, loose=squares))
        game = render_table(state, (args.seed, n, 2), look=look, dice=dice)
        try:
            ref_cal, cal = calibrate(ref.image, layout), calibrate(game.image, layout)
        except BoardNotFound:
            counts["no board"] += 1
            continue
        table, _ = learn_colors(ref_cal.rectify(ref.image), ref_cal, detect)
        truth_mm = np.array([(d.x, d.y) for d in game.dice])
        for name, palette in (
            ("reader", None),
            ("built-in palette", BUILT_IN),
            ("table palette", table),
        ):
            seen = scan_image(game.image, replace(cal, palette=palette), detect).dice
            pairs = pairs_by_position(
                truth_mm, np.array([d.center_mm for d in seen]).reshape(-1, 2), 8
            )
            ok = sum(seen[j].color == game.dice[i].player for i, j in pairs)
            counts[(name, "dice")] += len(pairs)
            counts[(name, "ok")] += ok
            counts[(name, "frames ok")] += ok == len(pairs) == len(game.dice)
            counts[(name, "frames")] += 1
    rows = []
    for name in ("reader", "built-in palette", "table palette"):
        d, f = counts[(name, "dice")], counts[(name, "frames")]
        rows.append(
            {
                "colour from": name,
                "dice": d,
                "color_acc": round(100 * counts[(name, "ok")] / d, 2) if d else None,
                "frames_all_right": round(100 * counts[(name, "frames ok")] / f, 2) if f else None,
            }
        )
    print(json.dumps({"frames": args.frames, "seed": args.seed, "no_board": counts["no board"]}))
    print("| colour from | dice | colour right | frames with every die found and right |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['colour from']} | {r['dice']} | {r['color_acc']} | {r['frames_all_right']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
