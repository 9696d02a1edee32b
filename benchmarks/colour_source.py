"""Where a die's colour should come from, chosen on validation table frames (never a test set).

    python benchmarks/colour_source.py [--frames 60] [--seed 7000] [--face models/face.onnx]
        [--lamps] [--max-tilt 30] [--others] [--drop-reference] [--sheen 0.25] [--beyond 0.3]
        [--mixed 0.3] [--glare 0.8] [--rows ROW ...]

Each frame is a mid-game board drawn by our table renderer with a random set of the game's dice
(`scanner.synth.table.random_dice`: each colour in one shade of its range, white or black pips)
and, under the same camera and light, a reference frame with one die of each colour on its
swatch square. Every frame is read as `alea scan` reads it, with the colour taken from: the face
reader's colour head; the built-in palette (`scanner.vision.palette.BUILT_IN`); the palette
learnt from the reference frame (`alea palette`) as shipped, as in session 17 (the body read in
the middle of the die's box, not where its top face is seen) and, before that, with one white
for the whole sheet besides.

`--lamps` lights both frames of a scene by two lamps beside the table, each warm, neutral or cool
(`lamps`): the light falls off across the board and its colour changes from one side to the
other, as at a table lit by a bulb and a window. `--max-tilt` lets the camera lean further (the
dice's sides show more: `palette.top_faces`). `--others` lays a die of no player's colour (white,
black, red, ...) on two of the game frame's empty swatch squares: each must come out unknown
(None); lime is not among them, since a player may call a lime die green. `--drop-reference`
leaves one colour's die out of each reference frame, as when a player forgets to set one down
or the camera misses it: that colour is not in the palette. `--sheen S`
lays the mirror image of a ceiling lamp over the glossy top faces of the dice in a patch of the
board (`scanner.synth.table._sheen`, up to S of the paper's white), in both frames: a die in the
patch reads paler than one outside it, and so may its reference die. `--beyond B` draws each
colour's shade up to B of its range past either end (`random_dice`): dice darker or lighter
than any the reader learnt, in both frames. `--mixed M` draws each die of a player's colour up
to M of its colour's range from the set's shade (`DiceSet.mixed`: dice from other sets that
replaced lost ones), the reference die too: the palette learns one die of a mixed set.
`--glare G` is `--sheen`'s spot from a lamp wider than a die: each flat top face in it mirrors
the lamp edge to edge, up to G of the paper's white, while the rounded rims and the pips keep
their colour (`DieStyle.glare`), in both frames. Seeds
from 7000 are used by no training, validation or test set. Prints colour accuracy over matched
dice of the players' colours, the share of the other dice named unknown, the share of
frames whose dice are all found and the right colour, and the share of the players' dice named
unknown (the rest of those not right got a wrong colour: a false flag, where unknown is a
question). `--list-wrong ROW` prints each die that row names wrong, to stderr. `--rows` reads
only the rows named (all by default): a candidate's suite needs two of them.
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

from scanner.rules.components import PLAYER_COLORS  # noqa: E402
from scanner.synth.dice import OTHER_COLORS, other_colors  # noqa: E402
from scanner.synth.table import (  # noqa: E402
    before_the_game,
    mid_game_states,
    on_swatches,
    random_dice,
    render_table,
)
from scanner.vision import palette as P  # noqa: E402
from scanner.vision import scan as S  # noqa: E402
from scanner.vision.calibrate import BoardNotFound, calibrate  # noqa: E402
from scanner.vision.layout import default_layout  # noqa: E402
from scanner.vision.palette import BUILT_IN  # noqa: E402
from scanner.vision.scan import learn_colors, scan_image  # noqa: E402
from scanner.vision.table_eval import pairs_by_position  # noqa: E402

# Lamp colours as camera gains (RGB): a warm bulb, daylight, a cool window.
LAMP_COLOURS = ((1.0, 0.78, 0.55), (1.0, 1.0, 1.0), (0.84, 0.93, 1.0))
# Each row: where the colour comes from, and the palette's switches (scanner.vision.palette)
# it is read with; the switches not named keep their shipped values.
NO_GLARE = {"GLARE_REACH": 0.0, "GLARE_FROM_RIM": False, "GLARE_RIM_HUE": False}
BEFORE = {"TOP_FACE": False, "AGREE_REACH": 1.0, "DISAGREE_REACH": 1.0, **NO_GLARE}
ROWS: dict[str, dict] = {
    "reader": {},
    "built-in palette": {},
    "table palette, one white": {**BEFORE, "WHITE_ACROSS_SHEET": False},
    "table palette, session 17": BEFORE,
    "table palette, untaken colours unknown": {"READER_FOR_UNTAKEN": False},
    "table palette": {},
    "table palette, the palette alone": {"AGREE_REACH": 1.0},
    "table palette, before session 29": {"DISAGREE_REACH": 1.0, **NO_GLARE},
    "table palette, before session 30": NO_GLARE,
    "table palette, glare allowed for": {**NO_GLARE, "GLARE_REACH": 0.5},
    "table palette, glare the rim shows": {"GLARE_RIM_HUE": False},
    "table palette, the rim's glare taken off": {**NO_GLARE, "GLARE_OFF": True},
    "table palette, before session 33": {"READER_CHOOSES": 0.0},
    "table palette, the reader chooses within its limit": {"READER_CHOOSES": 1.0},
    "table palette, before session 37": {"READER_SECOND": 0.0},
}
# Each switch and the module it lives in.
SWITCHES = {"WHITE_ACROSS_SHEET": P, "TOP_FACE": P, "READER_FOR_UNTAKEN": S}
SWITCHES |= {"AGREE_REACH": P, "DISAGREE_REACH": P, "GLARE_REACH": P, "GLARE_FROM_RIM": P}
SWITCHES |= {"GLARE_RIM_HUE": P, "GLARE_OFF": P, "READER_CHOOSES": P}
SWITCHES |= {"READER_SECOND": P, "SECOND_NOT_FOR": P}
SHIPPED = {k: getattr(module, k) for k, module in SWITCHES.items()}


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


def _share(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 2) if whole else None


def parser() -> argparse.ArgumentParser:
    """The variant's options (`colour_suite.py` reads the same)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--face", default=None, help="face reader ONNX (default: models/face.onnx)")
    ap.add_argument("--lamps", action="store_true", help="two lamps light each scene (`lamps`)")
    ap.add_argument("--max-tilt", type=float, default=None, help="camera lean, degrees (20)")
    ap.add_argument("--others", action="store_true", help="two dice of no player's colour a frame")
    ap.add_argument(
        "--drop-reference", action="store_true", help="one colour's reference die left out a frame"
    )
    ap.add_argument(
        "--sheen", type=float, default=0.0, help="a ceiling lamp's gloss on the dice (0.25)"
    )
    ap.add_argument(
        "--beyond", type=float, default=0.0, help="shades past their ranges' ends, a share (0.3)"
    )
    ap.add_argument(
        "--mixed", type=float, default=0.0, help="each die's own shade about its set's (0.3)"
    )
    ap.add_argument(
        "--glare", type=float, default=0.0, help="a wide lamp mirrored by whole top faces (0.8)"
    )
    ap.add_argument("--list-wrong", metavar="ROW", help="print each die ROW names wrong (stderr)")
    ap.add_argument("--rows", nargs="+", metavar="ROW", help="read only these rows (default: all)")
    return ap


def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    check_rows(ap, ([args.list_wrong] if args.list_wrong else []) + (args.rows or []))
    counts = measure(args)
    rows = args.rows or list(ROWS)
    table = []
    for name in rows:
        d, f = counts[(name, "dice")], counts[(name, "frames")]
        table.append(
            {
                "colour from": name,
                "dice": d,
                "color_acc": _share(counts[(name, "ok")], d),
                "others": counts[(name, "others")],
                "others_none": _share(counts[(name, "others none")], counts[(name, "others")]),
                "frames_all_right": _share(counts[(name, "frames ok")], f),
                "players_none": _share(counts[(name, "players none")], d),
                **wrong_dice(counts, name),
            }
        )
    head = {"frames": args.frames, "seed": args.seed, "lamps": args.lamps}
    head |= {"max_tilt": args.max_tilt, "others": args.others, "drop": args.drop_reference}
    head |= {"sheen": args.sheen, "beyond": args.beyond, "mixed": args.mixed, "glare": args.glare}
    print(json.dumps({**head, "no_board": counts["no board"]}))
    print(
        "| colour from | dice | colour right | other dice | named unknown | frames all right "
        "| players' dice unknown | wrong dice | false flags |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in table:
        print(
            f"| {r['colour from']} | {r['dice']} | {r['color_acc']} | {r['others']} "
            f"| {r['others_none']} | {r['frames_all_right']} | {r['players_none']} "
            f"| {r['wrong']} | {r['false flags']} |"
        )
    return 0


def check_rows(ap: argparse.ArgumentParser, names: list[str]) -> None:
    """A usage error naming the rows there are, for a row name that is none of them."""
    for row in names:
        if row not in ROWS:
            ap.error(f"no row {row!r}; the rows: {'; '.join(ROWS)}")


def wrong_dice(counts: Counter, row: str) -> dict[str, int]:
    """The dice `row` names wrong, and of them its false flags: a player's die named another
    player's colour, or a die of no player's colour named a player's (an unknown player's die
    is a question for the players, not a flag)."""
    players_wrong = counts[(row, "dice")] - counts[(row, "ok")]
    others_named = counts[(row, "others")] - counts[(row, "others none")]
    return {
        "wrong": players_wrong + others_named,
        "false flags": players_wrong - counts[(row, "players none")] + others_named,
    }


def measure(args: argparse.Namespace) -> Counter:
    """Every row's counts over the variant's frames, keyed (row, what)."""
    from scanner.vision.detect import DEFAULT_MODEL, DiceDetector

    detector = DiceDetector(DEFAULT_MODEL, imgsz=0, reader=args.face or True, board=True).detect
    seen_before: dict = {}

    def detect(image: np.ndarray):
        """The detector's reading, kept for the frame: every row reads the same boards."""
        key = hash(image.tobytes())
        if key not in seen_before:
            if len(seen_before) > 4:
                seen_before.clear()
            seen_before[key] = detector(image)
        return seen_before[key]

    rows = {name: ROWS[name] for name in args.rows} if args.rows else ROWS
    layout = default_layout()
    rng = np.random.default_rng(args.seed)
    counts: Counter = Counter()
    states = mid_game_states(args.seed, layout)
    for n in tqdm(range(args.frames), desc="frames", disable=None):
        state = next(states)
        dice = replace(random_dice(rng, args.beyond), mixed=args.mixed)
        squares = on_swatches(layout, 3)
        empty = before_the_game(state)
        look = (args.seed, n)
        drawn = {} if args.max_tilt is None else {"max_tilt": args.max_tilt}
        drawn |= {"sheen": args.sheen} if args.sheen else {}
        drawn |= {"glare": args.glare} if args.glare else {}
        set_down = squares
        if args.drop_reference:  # one colour's die was not set down on its square
            gone = int(np.random.default_rng((args.seed, n, 7)).integers(len(squares)))
            set_down = squares[:gone] + squares[gone + 1 :]
        ref = render_table(
            empty, (args.seed, n, 1), look=look, dice=replace(dice, loose=set_down), **drawn
        )
        game_dice = dice
        if args.others:
            pick = np.random.default_rng((args.seed, n, 4))
            # Not lime: a person may call a lime die green (scanner.synth.dice.WIDE_SHADES).
            names = pick.choice(other_colors("wide"), 2, replace=False)
            where = pick.choice(len(squares), 2, replace=False)
            others = tuple(
                replace(squares[int(k)], player=str(c), value=int(pick.integers(1, 7)))
                for c, k in zip(names, where, strict=True)
            )
            bodies = {**dice.bodies, **{str(c): OTHER_COLORS[str(c)] for c in names}}
            pips = {  # dark pips on light bodies, white on the rest
                str(c): (0.05, 0.05, 0.06) if OTHER_COLORS[str(c)][1] > 0.6 else (0.95,) * 3
                for c in names
            }
            game_dice = replace(dice, bodies=bodies, pips={**dice.pips, **pips}, loose=others)
        game = render_table(state, (args.seed, n, 2), look=look, dice=game_dice, **drawn)
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
        truth = [d.player if d.player in PLAYER_COLORS else None for d in game.dice]
        for name, switches in rows.items():
            for key, value in {**SHIPPED, **switches}.items():
                setattr(SWITCHES[key], key, value)
            palette = {"reader": None, "built-in palette": BUILT_IN}.get(name)
            if name not in ("reader", "built-in palette"):
                palette, _ = learn_colors(ref_cal.rectify(ref_image), ref_cal, detect)
            seen = scan_image(game_image, replace(cal, palette=palette), detect).dice
            pairs = pairs_by_position(
                truth_mm, np.array([d.center_mm for d in seen]).reshape(-1, 2), 8
            )

            ok = sum(seen[j].color == truth[i] for i, j in pairs)
            unknown = [seen[j].color is None for i, j in pairs if truth[i] is None]
            lost = [seen[j].color is None for i, j in pairs if truth[i] is not None]
            counts[(name, "players none")] += sum(lost)
            if name == args.list_wrong:
                for i, j in pairs:
                    if seen[j].color != truth[i]:
                        was = game.dice[i].player  # an other die by its own colour's name
                        print(f"frame {n}: {was} -> {seen[j].color}", file=sys.stderr)
            counts[(name, "dice")] += len(pairs) - len(unknown)
            counts[(name, "ok")] += ok - sum(unknown)
            counts[(name, "others")] += len(unknown)
            counts[(name, "others none")] += sum(unknown)
            counts[(name, "frames ok")] += ok == len(pairs) == len(game.dice)
            counts[(name, "frames")] += 1
        for key, value in SHIPPED.items():
            setattr(SWITCHES[key], key, value)
    return counts


if __name__ == "__main__":
    raise SystemExit(main())
