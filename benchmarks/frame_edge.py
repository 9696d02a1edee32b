"""What the frame's edge costs: the synthetic test's figures with the dice it cuts set aside.

The renderer's camera tilt pushes some dice partly out of the picture. They keep their labels,
since the scene knows their value, but the frame may hide the pips that tell it: a 4 cut down
the middle shows two pips, and so does a 6 cut further out. This reads a set exactly as
`alea eval` does, renders each scene again from its seed to learn how much of every die lies
inside the frame (`SceneDie.visible`), and tallies the figures twice: as `alea eval` does, and
with the dice under `--min-visible` set aside, the way KITTI and COCO set aside truncated or
"ignore" objects. A set-aside die need not be found, a box over it is neither right nor false,
and its value and colour are not scored. `alea eval`'s own figures do not change.

    python benchmarks/frame_edge.py [--seed 1000 --dir datasets/generated/synth_test] [--n 300]
        [--min-visible 0.75]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scanner.synth.dataset import ensure_test_set, labelled  # noqa: E402
from scanner.synth.scene import photo_config, render_scene  # noqa: E402
from scanner.vision.boxes import box_areas, intersection_matrix  # noqa: E402
from scanner.vision.detect import DiceDetector, load_image  # noqa: E402
from scanner.vision.evaluate import (  # noqa: E402
    Tally,
    images_in,
    markdown_table,
    match,
    read_truth,
)
from scanner.vision.face import DEFAULT_FACE_MODEL  # noqa: E402


def set_aside(truth: np.ndarray, found: np.ndarray, keep: np.ndarray):
    """(true dice kept, found boxes kept) when the true dice where `keep` is False are set
    aside: a found box goes with them when it is matched to one or lies mostly over one."""
    pairs = dict(match(truth, found))
    gone = {j for i, j in pairs.items() if not keep[i]}
    if not keep.all() and len(found):
        over = intersection_matrix(found, truth[~keep]).max(1) > 0.5 * box_areas(found)
        gone |= {j for j in np.flatnonzero(over) if j not in pairs.values()}
    return np.flatnonzero(keep), [j for j in range(len(found)) if j not in gone]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--dir",
        default=str(REPO / "datasets" / "generated" / "synth_test"),
        help="the set's folder, drawn there when missing (alea eval's by default)",
    )
    ap.add_argument("--seed", type=int, default=1000, help="its seed (alea eval's: 1000)")
    ap.add_argument("--n", type=int, default=300, help="scenes")
    ap.add_argument(
        "--min-visible",
        type=float,
        default=0.75,
        help="dice with less of their outline inside the frame are set aside",
    )
    ap.add_argument("--face", default=str(DEFAULT_FACE_MODEL))
    args = ap.parse_args()
    if args.n < 1:
        ap.error("--n must be at least 1")
    if not 0 < args.min_visible <= 1:
        ap.error("--min-visible must lie in (0, 1]")
    root = Path(args.dir)
    images = ensure_test_set(root, args.n, args.seed, photo_config())
    detector = DiceDetector(reader=args.face)
    whole = Tally(f"seed {args.seed}, every die")
    inside = Tally(f"seed {args.seed}, dice under {args.min_visible:.0%} in frame set aside")
    cut = cut_images = 0
    paths = [p for p in images_in(images) if p.stem.startswith(f"s{args.seed}_")][: args.n]
    for path in tqdm(paths, desc="frame edge", disable=None):
        img = load_image(path)
        h, w = img.shape[:2]
        tb, tv, tc = read_truth(
            root / "labels" / "train" / f"{path.stem}.txt",
            root / "colors" / "train" / f"{path.stem}.txt",
            w,
            h,
        )
        scene = render_scene((args.seed, int(path.stem.split("_")[1])), photo_config())
        visible = np.array([d.visible for d in labelled(scene)])
        if len(visible) != len(tv):
            raise SystemExit(
                f"{path} has {len(tv)} labels but its scene {len(visible)} dice: "
                "the set was drawn by another renderer or seed"
            )
        keep = visible >= args.min_visible
        cut += int((~keep).sum())
        cut_images += bool((~keep).any())
        dice = detector.detect(img)
        whole.add(tb, tv, tc, dice)
        ti, dj = set_aside(tb, dice.xyxy, keep)
        inside.add(tb[ti], tv[ti], [tc[i] for i in ti] if tc is not None else None, dice.take(dj))
    rows = [t.row() for t in (whole, inside)]
    for r in rows:
        r.pop("median_ms")
    print(
        json.dumps({"set_aside_dice": cut, "images_with_one": cut_images, "rows": rows}, indent=1)
    )
    print(
        f"{cut} dice in {cut_images} of {len(paths)} images have under "
        f"{args.min_visible:.0%} of their outline inside the frame."
    )
    print(markdown_table(rows, "dice scored"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
