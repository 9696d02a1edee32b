"""Does a die's confidence mean something? Reliability tables on validation scenes only.

    python benchmarks/reliability.py [--face models/face.onnx] [--synth-dir DIR]

A reading is *right* when it is a labelled die (IoU ≥ 0.5) read with the right value and the
right colour (null for a die of no player's colour). For every reading the pipeline reports
(P(die) ≥ 0.5, two quarter turns, as `alea dice`), the table bins a score and prints, per bin,
how many readings fell in it, their mean score and the share that were right: a calibrated
score has the two equal. Three scores: the reported confidence (P(die)); P(die) × the top value
probability × the top colour probability; and that product mapped by a monotone (isotonic) fit
made on the first half of the validation scenes and read on the second half, so the fit is
never scored on what it was fitted on. Also prints the expected calibration error (ECE: the
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
from scanner.vision.detect import READ_CONF, READ_TURNS, DiceDetector  # noqa: E402
from scanner.vision.evaluate import images_in, match  # noqa: E402
from scanner.vision.face import FaceReader, color_names  # noqa: E402

BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001)


def readings(rows):
    """(P(die), product score, right?) for every reading kept at P(die) ≥ READ_CONF."""
    out = []
    for (boxes, values, colors), props, p_die, pv, pc in rows:
        keep = p_die >= READ_CONF
        props, p_die, pv, pc = props[keep], p_die[keep], pv[keep], pc[keep]
        names = color_names(pc)
        right = np.zeros(len(props), bool)
        for i, j in match(boxes, props):
            color_ok = colors is None or names[j] == colors[i]
            right[j] = int(pv[j].argmax() + 1) == int(values[i]) and color_ok
        product = p_die * pv.max(1) * pc.max(1)
        out += list(zip(p_die, product, right, strict=True))
    return np.array(out, np.float64).reshape(-1, 3)


def isotonic(x: np.ndarray, y: np.ndarray):
    """Pool-adjacent-violators fit of y on x; returns a function mapping new x."""
    order = np.argsort(x)
    xs, ys = x[order], y[order].astype(np.float64)
    blocks = [[v, 1.0, xs[i], xs[i]] for i, v in enumerate(ys)]  # mean, weight, lo, hi
    merged: list[list[float]] = []
    for b in blocks:
        merged.append(b)
        while len(merged) > 1 and merged[-2][0] > merged[-1][0]:
            m2, w2, lo, _ = merged.pop(-2)
            m1, w1, _, hi = merged.pop()
            merged.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, lo, hi])
    his = np.array([m[3] for m in merged])
    means = np.array([m[0] for m in merged])
    return lambda q: means[np.clip(np.searchsorted(his, q), 0, len(means) - 1)]


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
    args = ap.parse_args(argv)
    det = DiceDetector(imgsz=640, reader=False, colors=False)
    reader = FaceReader(args.face, turns=READ_TURNS)
    synth = Path(args.synth_dir)
    paths = images_in(synth / "images" / "val")
    half = len(paths) // 2
    fit = readings(
        cache(det, reader, paths[:half], synth / "labels" / "val", synth / "colors" / "val")
    )
    held = readings(
        cache(det, reader, paths[half:], synth / "labels" / "val", synth / "colors" / "val")
    )
    mapped = isotonic(fit[:, 1], fit[:, 2])(held[:, 1])
    out = [
        table(held[:, 0], held[:, 2], "reported confidence (P(die))"),
        table(held[:, 1], held[:, 2], "P(die) x P(value) x P(colour)"),
        table(mapped, held[:, 2], "the product, isotonic fit on the other half"),
    ]
    print(json.dumps({"fit_readings": len(fit), "scored_readings": len(held)}))
    for t in out:
        print(f"\n{t['score']}: ECE {t['ece']}")
        print("| score bin | readings | mean score | share right |\n|---|---|---|---|")
        for r in t["bins"]:
            print(f"| {r['bin']} | {r['readings']} | {r['mean score']} | {r['share right']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
