"""Does a die's confidence mean something? Reliability tables on validation scenes only.

    python benchmarks/reliability.py [--face models/face.onnx] [--synth-dir DIR] [--model M]
        [--write]

The validation scenes are the face reader's (`alea train --stage face` draws them under
`--face-dir`/synth); alone, without its training scenes: `python -c "from scanner.synth.dataset
import write_dataset; from scanner.synth.scene import photo_config; write_dataset('DIR', 0, 5,
200, photo_config())"` and `--synth-dir DIR`.

A reading is *right* when it is a labelled die (IoU ≥ 0.5) read with the right value and the
right colour (null for a die of no player's colour); its value is right when the value is. For
every reading the pipeline keeps (P(die) ≥ 0.5, two quarter turns, as `alea dice`), a table bins
a score and prints, per bin, how many readings fell in it, their mean score and the share that
were right: a calibrated score has the two equal. The scores: P(die), the confidence reported
before; P(die) × the top value probability × the top colour probability, raw and mapped by the
`read` map; P(die) × the top value probability against the value alone, raw and mapped by the
`value` map (scanner.vision.certainty). The maps are fitted on the first half of the validation
scenes and scored on the second half, so a fit is never scored on what it was fitted on;
`--write` ships them beside the reader. `--photos DIR ...` scores the shipped `value` map on
labelled photo sets (colours unlabelled) read as `alea dice` reads them: the real test photos,
measured after the choice. Also prints the expected calibration error (ECE: the
readings-weighted mean gap between score and share right).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.tune_face import cache  # noqa: E402
from scanner.vision import certainty  # noqa: E402
from scanner.vision.certainty import Certainty  # noqa: E402
from scanner.vision.detect import (  # noqa: E402
    DEFAULT_MODEL,
    PHOTO_MODEL,
    READ_CONF,
    READ_TURNS,
    DiceDetector,
)
from scanner.vision.evaluate import images_in, match  # noqa: E402
from scanner.vision.face import FaceReader, color_names  # noqa: E402

BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001)


def readings(rows):
    """(P(die), value score, read score, value right?, read right?) for every reading kept at
    P(die) ≥ READ_CONF: the value score is P(die) × the top value probability, the read score
    that × the top colour probability (scanner.vision.certainty)."""
    out = []
    for (boxes, values, colors), props, p_die, pv, pc in rows:
        keep = p_die >= READ_CONF
        props, p_die, pv, pc = props[keep], p_die[keep], pv[keep], pc[keep]
        names = color_names(pc)
        value_right = np.zeros(len(props), bool)
        right = np.zeros(len(props), bool)
        for i, j in match(boxes, props):
            value_right[j] = int(pv[j].argmax() + 1) == int(values[i])
            right[j] = value_right[j] and (colors is None or names[j] == colors[i])
        value = p_die * pv.max(1)
        out += list(zip(p_die, value, value * pc.max(1), value_right, right, strict=True))
    return np.array(out, np.float64).reshape(-1, 5)


def table(score: np.ndarray, right: np.ndarray, name: str) -> dict:
    rows, ece = [], 0.0
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        m = (score >= lo) & (score < hi)
        if m.any():
            gap = abs(score[m].mean() - right[m].mean())
            ece += gap * m.sum() / len(score)
            rows.append(
                {
                    "bin": f"{lo:.2f}-{min(hi, 1):.2f}",
                    "readings": int(m.sum()),
                    "mean score": round(float(score[m].mean()), 4),
                    "share right": round(float(right[m].mean()), 4),
                }
            )
    return {"score": name, "ece": round(ece, 4), "bins": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--face", default=str(REPO / "models" / "face.onnx"))
    ap.add_argument("--synth-dir", default=str(REPO / "datasets" / "generated" / "face" / "synth"))
    ap.add_argument(
        "--model",
        default=str(DEFAULT_MODEL),
        help="the detector that proposes the boxes the reader judges on the validation scenes "
        "(models/photos.onnx for the photo reader)",
    )
    ap.add_argument(
        "--write",
        action="store_true",
        help="write the maps fitted on the first half beside --face (NAME.confidence.json)",
    )
    ap.add_argument(
        "--photos",
        nargs="*",
        default=[],
        help="labelled photo sets (images/, labels/; no colours) read as `alea dice` reads them "
        "and scored with the shipped `value` map: test sets, measured after the choice",
    )
    args = ap.parse_args(argv)
    det = DiceDetector(args.model, imgsz=640, reader=False, colors=False)
    reader = FaceReader(args.face, turns=READ_TURNS)
    synth = Path(args.synth_dir)
    paths = images_in(synth / "images" / "val")
    if not paths:
        raise SystemExit(f"no validation scenes under {synth}/images/val (see the docstring)")
    half = len(paths) // 2
    labels, colors = synth / "labels" / "val", synth / "colors" / "val"
    fit = readings(cache(det, reader, paths[:half], labels, colors))
    held = readings(cache(det, reader, paths[half:], labels, colors))
    maps = Certainty(certainty.fit(fit[:, 2], fit[:, 4]), certainty.fit(fit[:, 1], fit[:, 3]))
    out = [
        table(held[:, 0], held[:, 4], "reported before (P(die)), value and colour right"),
        table(held[:, 2], held[:, 4], "P(die) x P(value) x P(colour), value and colour right"),
        table(maps.read(held[:, 2]), held[:, 4], "that, mapped (`read`, fitted on the other half)"),
        table(held[:, 1], held[:, 3], "P(die) x P(value), value right"),
        table(
            maps.value(held[:, 1]), held[:, 3], "that, mapped (`value`, fitted on the other half)"
        ),
    ]
    print(json.dumps({"fit_readings": len(fit), "scored_readings": len(held)}))
    for t in out:
        print(f"\n{t['score']}: ECE {t['ece']}")
        print("| score bin | readings | mean score | share right |\n|---|---|---|---|")
        for r in t["bins"]:
            print(f"| {r['bin']} | {r['readings']} | {r['mean score']} | {r['share right']} |")
    shipped = certainty.load(args.face)
    if args.photos and shipped is not None:
        photos = DiceDetector(PHOTO_MODEL, imgsz=640, reader=False, colors=False)
        for folder in map(Path, args.photos):
            rows = readings(
                cache(photos, reader, images_in(folder / "images"), folder / "labels", None)
            )
            t = table(shipped.value(rows[:, 1]), rows[:, 3], f"{folder}: `value` map, value right")
            print(f"\n{t['score']} ({len(rows)} readings): ECE {t['ece']}")
            print("| score bin | readings | mean score | share right |\n|---|---|---|---|")
            for r in t["bins"]:
                print(f"| {r['bin']} | {r['readings']} | {r['mean score']} | {r['share right']} |")
    if args.write:
        where = certainty.beside(args.face)
        where.write_text(json.dumps(maps.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
