"""Fit the colour classifier on a rendered dataset (images + colors/ sidecars).

Pure numpy, so it needs no torch; `alea train` calls it after the detector, and
`python -m scanner.vision.color_train DATASET_DIR` runs it alone.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scanner.synth.dice import GAME_COLORS
from scanner.vision.color import CLASSES, DEFAULT_WEIGHTS, die_features, fit


def collect(dataset: Path, split: str = "train", limit: int | None = None):
    """Features and class indices for every labelled die of a rendered dataset split."""
    feats, labels = [], []
    images = sorted((dataset / "images" / split).glob("*.jpg"))[:limit]
    for img_path in tqdm(images, desc=f"colour features {split}", disable=None):
        lab_path = dataset / "labels" / split / (img_path.stem + ".txt")
        col_path = dataset / "colors" / split / (img_path.stem + ".txt")
        rows = [ln.split() for ln in lab_path.read_text().splitlines() if ln.strip()]
        names = [ln.strip() for ln in col_path.read_text().splitlines() if ln.strip()]
        if not rows:
            continue
        img = cv2.imread(str(img_path))
        h, w = img.shape[:2]
        r = np.array(rows, np.float64)
        boxes = np.stack([(r[:, 1] - r[:, 3] / 2) * w, (r[:, 2] - r[:, 4] / 2) * h,
                          (r[:, 1] + r[:, 3] / 2) * w, (r[:, 2] + r[:, 4] / 2) * h], 1)
        feats.append(die_features(img, boxes))
        labels += [CLASSES.index(n) if n in GAME_COLORS else CLASSES.index("other")
                   for n in names]
    return np.concatenate(feats), np.array(labels)


def main(argv: list[str]) -> int:
    dataset = Path(argv[0])
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT_WEIGHTS
    x, y = collect(dataset, "train")
    weights = fit(x, y, epochs=600)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(weights))
    print(f"colour classifier: {len(y)} dice -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
