"""Where a die's colour should come from, chosen on validation table frames (never a test set).

    python benchmarks/colour_source.py [--frames 60] [--seed 7000] [--face models/face.onnx]
        [--lamps]

Each frame is a mid-game board drawn by our table renderer with a random set of the game's dice
(`scanner.synth.table.random_dice`: each colour in one shade of its range, white or black pips)
and, under the same camera and light, a reference frame with one die of each colour on its
swatch square. Every frame is read as `alea scan` reads it, with the colour taken three ways:
the face reader's colour head, the built-in palette (`scanner.vision.palette.BUILT_IN`) and the
palette learnt from the reference frame (`alea palette`), the last with the paper's white read
across the sheet (`scanner.vision.palette.SheetLight`, shipped) and with one white for the whole
sheet (before). `--lamps` lights both frames of a scene by two lamps beside the table, each
warm, neutral or cool (`lamps`): the light falls off across the board and its colour changes
from one side to the other, as at a table lit by a bulb and a window. Seeds from 7000 are used
by no training, validation or test set. Prints colour accuracy over matched dice and the share of
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
from scanner.vision import palette as P  # noqa: E402
from scanner.vision.calibrate import BoardNotFound, calibrate  # noqa: E402
from scanner.vision.layout import default_layout  # noqa: E402
from scanner.vision.palette import BUILT_IN  # noqa: E402
from scanner.vision.scan import learn_colors, scan_image  # noqa: E402
from scanner.vision.table_eval import pairs_by_position  # noqa: E402

# Lamp colours as camera gains (RGB): a warm bulb, daylight, a cool window.
LAMP_COLOURS = ((1.0, 0.78, 0.55), (1.0, 1.0, 1.0), (0.84, 0.93, 1.0))
ROWS = ("reader", "built-in palette", "table palette, one white", "table palette")


def lamps(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """(H, W, 3) linear-light gains of two lamps beside and above the table: each lights the
    table as cos/r² from a point off to one side, in its own colour; the brightest spot is 1
    and the far side of the frame gets half to nine tenths of it."""
    h, w = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    field = np.zeros((h, w, 3))
    for _ in range(2):
        x, y = rng.uniform(-0.6, 1.6) * w, rng.uniform(-0.6, 1.6) * h
        height = rng.uniform(0.6, 1.5) * w
        irradiance = height / ((xs - x) ** 2 + (ys - y) ** 2 + height**2) ** 1.5
        colour = np.array(LAMP_COLOURS[int(rng.integers(len(LAMP_COLOURS)))])
        field += rng.uniform(0.3, 1.0) * irradiance[..., None] / irradiance.max() * colour
    return field / field.max()


def lit(image: np.ndarray, field: np.ndarray) -> np.ndarray:
    """A BGR uint8 photo as it looks under `field` (RGB linear gains)."""
    srgb = image[..., ::-1].astype(np.float64) / 255.0
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4) * field
    out = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)
    return (np.clip(out, 0, 1)[..., ::-1] * 255 + 0.5).astype(np.uint8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--face", default=None, help="face reader ONNX (default: models/face.onnx)")
    ap.add_argument("--lamps", action="store_true", help="two lamps light each scene (`lamps`)")
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
        ref_image, game_image = ref.image, game.image
        if args.lamps:
            field = lamps(np.random.default_rng((args.seed, n, 3)), ref_image.shape[:2])
            ref_image, game_image = lit(ref_image, field), lit(game_image, field)
        try:
            ref_cal, cal = calibrate(ref_image, layout), calibrate(game_image, layout)
        except BoardNotFound:
            counts["no board"] += 1
            continue
        truth_mm = np.array([(d.x, d.y) for d in game.dice])
        for name in ROWS:
            P.WHITE_ACROSS_SHEET = name != "table palette, one white"
            palette = {"reader": None, "built-in palette": BUILT_IN}.get(name)
            if name.startswith("table palette"):
                palette, _ = learn_colors(ref_cal.rectify(ref_image), ref_cal, detect)
            seen = scan_image(game_image, replace(cal, palette=palette), detect).dice
            pairs = pairs_by_position(
                truth_mm, np.array([d.center_mm for d in seen]).reshape(-1, 2), 8
            )
            ok = sum(seen[j].color == game.dice[i].player for i, j in pairs)
            counts[(name, "dice")] += len(pairs)
            counts[(name, "ok")] += ok
            counts[(name, "frames ok")] += ok == len(pairs) == len(game.dice)
            counts[(name, "frames")] += 1
        P.WHITE_ACROSS_SHEET = True
    rows = []
    for name in ROWS:
        d, f = counts[(name, "dice")], counts[(name, "frames")]
        rows.append(
            {
                "colour from": name,
                "dice": d,
                "color_acc": round(100 * counts[(name, "ok")] / d, 2) if d else None,
                "frames_all_right": round(100 * counts[(name, "frames ok")] / f, 2) if f else None,
            }
        )
    head = {"frames": args.frames, "seed": args.seed, "lamps": args.lamps}
    print(json.dumps({**head, "no_board": counts["no board"]}))
    print("| colour from | dice | colour right | frames with every die found and right |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['colour from']} | {r['dice']} | {r['color_acc']} | {r['frames_all_right']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
