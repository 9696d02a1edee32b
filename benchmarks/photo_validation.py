"""The validation photo sets a photo detector is chosen on (never the test sets): our close-ups
(seed 5500), usual rendered photos (seed 5600), the wider world's scenes (seed 5700; with pips
on the dice's side faces, seed 5800), usual photos whose sixes are emblems (seed 5900) and the real
validation photos (the last 20 of photos_a/train, which the detector's training holds out).

    python benchmarks/photo_validation.py [--out datasets/generated/val]
    alea eval --synth-n 0 --real-dir none --photos datasets/generated/val/* --model M

Each set is a folder with images/ and labels/, as `alea eval --photos` reads them; a set already
there is kept.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scanner import shipped  # noqa: E402
from scanner.synth.dataset import write_dataset  # noqa: E402
from scanner.synth.scene import SceneConfig, photo_config  # noqa: E402

SETS = {
    "closeup": (
        60,
        5500,
        SceneConfig(width=640, height=480, min_dice=1, max_dice=5, die_px=(60.0, 170.0)),
    ),
    "usual": (100, 5600, photo_config()),
    "world": (
        150,
        5700,
        SceneConfig(width=640, height=480, min_dice=4, max_dice=40, world=1.0),
    ),
    # The world's dice with pips on their side faces, as real dice have them: what a leaning
    # camera sees, and what a reader that learnt only top faces misreads.
    "world_sides": (
        150,
        5800,
        SceneConfig(width=640, height=480, min_dice=4, max_dice=40, world=1.0, side_pips=True),
    ),
    # Usual photos whose dice all print an emblem on the six instead of pips (`dice.LOGOS`).
    "logos": (100, 5900, photo_config(logo_sixes=1.0)),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "datasets" / "generated" / "val"))
    args = ap.parse_args()
    root = Path(args.out)
    for name, (n, seed, cfg) in SETS.items():
        folder = root / name
        if (folder / "images").is_dir():
            continue
        raw = root / f"{name}_raw"
        write_dataset(raw, n, seed, 0, cfg)
        folder.mkdir(parents=True, exist_ok=True)
        shutil.move(str(raw / "images" / "train"), str(folder / "images"))
        shutil.move(str(raw / "labels" / "train"), str(folder / "labels"))
        shutil.rmtree(raw)
    real = root / "real"
    if not (real / "images").is_dir():
        src = shipped.REALDICE / "photos_a" / "train"
        (real / "images").mkdir(parents=True)
        (real / "labels").mkdir(parents=True)
        for photo in sorted((src / "images").glob("*.jpg"))[-20:]:
            shutil.copy(photo, real / "images" / photo.name)
            label = src / "labels" / f"{photo.stem}.txt"
            if label.exists():
                shutil.copy(label, real / "labels" / label.name)
    print("\n".join(str(root / name) for name in (*SETS, "real")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
