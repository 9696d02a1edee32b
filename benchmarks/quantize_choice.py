"""Choose how the detector is quantized, on validation data only (scanner.training.quantize).

For each candidate ONNX detector, prints the figures that decide: the rendered validation scenes
and the real validation photos (the face reader's own, as in benchmarks/tune_face.py, at the
shipped thresholds), validation table frames read as `alea scan` reads them (eval_table's
pipeline on seed 7000, never the 9000+ test frames), and the forward time on a rectified board.

    python benchmarks/quantize_choice.py MODEL [MODEL ...] [--frames 60]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.eval_table import evaluate  # noqa: E402
from benchmarks.tune_face import cache, figures  # noqa: E402
from scanner.training.face_sets import real_split  # noqa: E402
from scanner.vision.detect import READ_CONF, DiceDetector  # noqa: E402
from scanner.vision.evaluate import images_in  # noqa: E402
from scanner.vision.face import FaceReader  # noqa: E402

VALIDATION_TABLE_SEED = 7000


def forward_ms(det: DiceDetector, shape=(891, 1260), runs: int = 15) -> float:
    """Median forward time on a board-sized grey image (the network's cost does not depend on
    what the pixels show)."""
    import numpy as np

    img = np.full((*shape, 3), 128, np.uint8)
    det.forward(img)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        det.forward(img)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--frames", type=int, default=60, help="validation table frames")
    ap.add_argument("--synth-dir", default=str(REPO / "datasets" / "generated" / "face" / "synth"))
    ap.add_argument(
        "--real-dir", default=str(REPO.parent / "shared" / "realdice" / "photos_a" / "train")
    )
    args = ap.parse_args()
    synth, real = Path(args.synth_dir), Path(args.real_dir)
    reader = FaceReader.load()
    for model in args.models:
        det = DiceDetector(model, reader=False, colors=False)
        row = {
            "model": model,
            "board_forward_ms": forward_ms(DiceDetector(model, imgsz=0, reader=False)),
        }
        rows = cache(
            det,
            reader,
            images_in(synth / "images" / "val"),
            synth / "labels" / "val",
            synth / "colors" / "val",
        )
        row["synthetic val"] = figures(rows, READ_CONF, 0.5)
        rows = cache(det, reader, real_split(real)[1], real / "labels", None)
        row["real val"] = figures(rows, READ_CONF, 0.5)
        table = evaluate(args.frames, VALIDATION_TABLE_SEED, 0, model)
        row["table val"] = {
            k: table[k] for k in ("frames", "dice", "states_exactly_right", "per_die_error")
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
