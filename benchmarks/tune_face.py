"""Choose the face reader's thresholds on validation images (never the test splits).

Runs the detector (proposals at the low threshold) and the reader once per image, then sweeps
the P(die) threshold and the colour threshold offline, printing the figures `alea eval` would
give at each: rendered validation scenes (the reader's own held-out seed) and the real
validation photos (the last 20 of photos_a/train, held out from every training set).

    python benchmarks/tune_face.py [--face models/face.onnx] [--synth-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scanner.training.face_sets import real_split  # noqa: E402
from scanner.vision.detect import PROPOSE_CONF, READ_TURNS, DiceDetector, load_image  # noqa: E402
from scanner.vision.dice import Dice  # noqa: E402
from scanner.vision.evaluate import Tally, images_in, read_truth  # noqa: E402
from scanner.vision.face import FaceReader, color_names  # noqa: E402


def cache(det: DiceDetector, reader: FaceReader, paths, labels: Path, colors: Path | None):
    """Per image: the labels, the proposals and the reader's probabilities for each."""
    rows = []
    for path in paths:
        img = load_image(path)
        h, w = img.shape[:2]
        truth = read_truth(
            labels / f"{path.stem}.txt", colors / f"{path.stem}.txt" if colors else None, w, h
        )
        boxes = det.candidates(img, PROPOSE_CONF)[0]
        rows.append((truth, boxes, *reader.read(img, boxes)))
    return rows


def figures(rows, die_min: float, color_min: float) -> dict:
    """The `alea eval` row (scanner.vision.evaluate.Tally) at these two thresholds."""
    tally = Tally(f"die>={die_min} colour>={color_min}")
    for truth, boxes, p_die, pv, pc in rows:
        keep = p_die >= die_min
        dice = Dice(
            boxes[keep], pv[keep].argmax(1) + 1, p_die[keep], color_names(pc[keep], color_min)
        )
        tally.add(*truth, dice)
    return tally.row()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--face", default=str(REPO / "models" / "face.onnx"))
    ap.add_argument("--synth-dir", default=str(REPO / "datasets" / "generated" / "face" / "synth"))
    ap.add_argument(
        "--real-dir", default=str(REPO.parent / "shared" / "realdice" / "photos_a" / "train")
    )
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--turns", type=int, default=READ_TURNS, help="quarter-turn readings averaged")
    args = ap.parse_args()
    det = DiceDetector(imgsz=args.imgsz, reader=False, colors=False)
    reader = FaceReader(args.face, turns=args.turns)
    synth = Path(args.synth_dir)
    sets = {
        "synthetic val": cache(
            det,
            reader,
            images_in(synth / "images" / "val"),
            synth / "labels" / "val",
            synth / "colors" / "val",
        ),
        "real val": cache(
            det, reader, real_split(Path(args.real_dir))[1], Path(args.real_dir) / "labels", None
        ),
    }
    for name, rows in sets.items():
        print(name)
        for die_min in (0.3, 0.4, 0.5, 0.6, 0.7):
            for color_min in (0.3, 0.5):
                print(" ", json.dumps(figures(rows, die_min, color_min)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
