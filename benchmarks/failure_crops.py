"""Every die the shipped pipeline gets wrong on a labelled set, as one picture of crops.

    python benchmarks/failure_crops.py [--set real|synthetic] [--out docs/failures/real.png]
    python benchmarks/failure_crops.py --photos datasets/generated/stress/keys [--out F]

Each tile is the die's crop (the face reader's view, 3x) with a caption: `miss 4` (not found),
`false` (reported where there is no die), `5>4` (value 5 read as 4), `c:grey>-` (colour).
The real set is `photos_a/test` (reported on, never trained or tuned on); the synthetic one is
the `alea eval` test set; `--photos DIR` is any labelled photo set (images/, labels/: the stress
sets of benchmarks/blender/README.md), named by its folder. Prints the counts of each kind of
failure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scanner.vision.detect import PHOTO_MODEL, DiceDetector, face_reader, load_image  # noqa: E402
from scanner.vision.evaluate import images_in, match, read_truth  # noqa: E402
from scanner.vision.face import face_crops  # noqa: E402

SETS = {
    "real": (REPO.parent / "shared" / "realdice" / "photos_a" / "test", "images", "labels", None),
    "synthetic": (
        REPO / "datasets" / "generated" / "synth_test",
        "images/train",
        "labels/train",
        "colors/train",
    ),
}


def failures(det: DiceDetector, root: Path, images: str, labels: str, colors: str | None):
    """(crop, caption) for every failure, and a Counter of their kinds."""
    out, kinds = [], Counter()
    for path in images_in(root / images):
        img = load_image(path)
        h, w = img.shape[:2]
        tb, tv, tc = read_truth(
            root / labels / f"{path.stem}.txt",
            root / colors / f"{path.stem}.txt" if colors else None,
            w,
            h,
        )
        dice = det.detect(img)
        pairs = match(tb, dice.xyxy)
        found = {i for i, _ in pairs}
        used = {j for _, j in pairs}
        for i in set(range(len(tv))) - found:
            out.append((tb[i], img, f"miss {tv[i]}"))
            kinds["missed"] += 1
        for j in set(range(len(dice))) - used:
            out.append((dice.xyxy[j], img, f"false {dice.value[j]}"))
            kinds["false"] += 1
        for i, j in pairs:
            if dice.value[j] != tv[i]:
                out.append((tb[i], img, f"{tv[i]}>{dice.value[j]}"))
                kinds["value"] += 1
            if tc is not None and dice.color[j] != tc[i]:
                out.append((tb[i], img, f"{tc[i] or '-'}>{dice.color[j] or '-'}"))
                kinds["colour"] += 1
    return out, kinds


def montage(items, cols: int = 10, scale: int = 3) -> np.ndarray:
    tiles = []
    for box, img, caption in items:
        crop = face_crops(img, np.array([box]))[0]
        tile = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        bar = np.full((18, tile.shape[1], 3), 255, np.uint8)
        cv2.putText(
            bar, caption[:16], (2, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA
        )
        tiles.append(np.vstack([tile, bar]))
    if not tiles:
        return np.full((40, 200, 3), 255, np.uint8)
    blank = np.full_like(tiles[0], 255)
    tiles += [blank] * (-len(tiles) % cols)
    rows = [np.hstack(tiles[k : k + cols]) for k in range(0, len(tiles), cols)]
    return np.vstack(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), default="real")
    ap.add_argument("--photos", default=None, help="a labelled photo set instead of --set")
    ap.add_argument("--out", default=None, help="PNG to write (default docs/failures/SET.png)")
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--limit", type=int, default=60, help="at most this many tiles")
    ap.add_argument("--model", default=str(PHOTO_MODEL), help="the detector (a candidate's ONNX)")
    ap.add_argument("--face", default=None, help="the reader (default: the photo reader)")
    args = ap.parse_args()
    det = DiceDetector(args.model, imgsz=args.imgsz, reader=face_reader(args.face, photos=True))
    if args.photos:
        name, where = Path(args.photos).name, (Path(args.photos), "images", "labels", None)
    else:
        name, where = args.set, SETS[args.set]
    items, kinds = failures(det, *where)
    out = Path(args.out or REPO / "docs" / "failures" / f"{name}.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), montage(items[: args.limit]))
    print({"set": name, **kinds, "picture": str(out)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
