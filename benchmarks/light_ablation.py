"""What the rendered light costs: the same scenes read under the renderer's random camera light
and under neutral light.

The synthetic test's colour errors come one photo at a time under strong casts, so the question
"how far can a better light estimate take us" has a direct measure: render the same seeds with
`SceneConfig(light_shift=False)` (white balance, exposure and gamma drawn but not applied, every
other pixel the same) and read both with the shipped pipeline, exactly as `alea eval` does. The
gap between the two rows bounds what any light estimate could gain; the neutral row's own errors
are what no light estimate can remove. "right but colour" (the row's `right_but_colour`) counts
an image right when every die is found with its value and nothing else is reported, colour
aside: the best images right could be if colour were perfect.

The scenes use a seed that no training, validation or test set uses (4243 by default).

    python benchmarks/light_ablation.py [--n 300] [--seed 4243]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scanner.synth.dataset import ensure_test_set  # noqa: E402
from scanner.synth.scene import photo_config  # noqa: E402
from scanner.vision.detect import DiceDetector  # noqa: E402
from scanner.vision.evaluate import evaluate, markdown_table  # noqa: E402
from scanner.vision.face import DEFAULT_FACE_MODEL  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="scenes in each set")
    ap.add_argument("--seed", type=int, default=4243, help="a seed no training or test set uses")
    ap.add_argument("--face", default=str(DEFAULT_FACE_MODEL))
    ap.add_argument("--out", default=str(REPO / "datasets" / "generated" / "light_ablation"))
    args = ap.parse_args()
    if args.n < 1:
        ap.error("--n must be at least 1")
    detector = DiceDetector(reader=args.face)
    rows = []
    for name, shift in (("camera light", True), ("neutral light", False)):
        root = Path(args.out) / ("light" if shift else "neutral")
        # read exactly as `alea eval` reads its synthetic test set
        images = ensure_test_set(root, args.n, args.seed, photo_config(light_shift=shift))
        row = evaluate(
            detector,
            images,
            root / "labels" / "train",
            name,
            root / "colors" / "train",
            limit=args.n,
        ).row()
        row.pop("median_ms")
        rows.append(row)
    print(json.dumps(rows, indent=1))
    print(markdown_table(rows, "light"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
