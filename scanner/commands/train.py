"""`alea train`: render data, train the detector, export ONNX, fit the colour classifier.

Needs the `train` extra (torch, ultralytics). Every step is skipped when its output exists, so
re-running the same command after an interruption resumes: the dataset is not re-rendered and
ultralytics resumes from runs/detect/NAME/weights/last.pt.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scanner.cli import command, emit

REPO = Path(__file__).resolve().parents[2]
REALDICE_TRAIN = REPO.parent / "shared" / "realdice" / "photos_a" / "train"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", default=str(REPO / "datasets" / "generated" / "mix"),
                   help="where the mixed dataset is rendered")
    p.add_argument("--synth-n", type=int, default=1200)
    p.add_argument("--synth-val", type=int, default=150)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--real-dir", default=str(REALDICE_TRAIN),
                   help="real photos (images/, labels/) to tile into training; '' for none")
    p.add_argument("--real-per-photo", type=int, default=6)
    p.add_argument("--color-n", type=int, default=2500,
                   help="rendered scenes for the colour classifier (seed = --seed + 1)")
    p.add_argument("--color-dir", default=None,
                   help="where they are rendered (default: DATA_DIR/../color_train)")
    p.add_argument("--model", default="yolo11n.yaml",
                   help="ultralytics model YAML, or a .pt checkpoint to fine-tune")
    p.add_argument("--lr0", type=float, default=0.01, help="initial learning rate")
    p.add_argument("--epochs", type=int, default=16)
    p.add_argument("--imgsz", type=int, default=320)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--name", default="dice", help="run name under runs/detect/")
    p.add_argument("--out", default=str(REPO / "models" / "dice.onnx"))
    p.add_argument("--resume", action="store_true", help="continue runs/detect/NAME/last.pt")


@command("train", "Train the dice detector (needs the 'train' extra) and export ONNX.", _arguments)
def run(args: argparse.Namespace) -> int:
    from scanner.errors import InputError

    try:
        import ultralytics  # noqa: F401
    except ImportError:
        raise InputError("train.missing-extra",
                         "training needs the train extra: pip install 'alea[train]'") from None
    from scanner.train import export_onnx, prepare, train
    from scanner.vision.color import fit
    from scanner.vision.color_train import collect

    data_dir = Path(args.data_dir)
    real = Path(args.real_dir) if args.real_dir else None
    data = prepare(data_dir, args.synth_n, args.synth_val, args.seed, real, args.real_per_photo,
                   size=args.imgsz)
    best = train(data, args.model, args.epochs, args.imgsz, args.batch, args.name,
                 args.workers, args.resume, args.seed, lr0=args.lr0)
    onnx_path = export_onnx(best, Path(args.out))
    from scanner.synth.dataset import write_dataset

    color_dir = Path(args.color_dir) if args.color_dir else data_dir.parent / "color_train"
    if not (color_dir / "data.yaml").exists():
        write_dataset(color_dir, args.color_n, args.seed + 1)
    x, y = collect(color_dir, "train")
    color_path = Path(args.out).with_name("color.json")
    color_path.write_text(json.dumps(fit(x, y, epochs=600)))
    emit({"weights": str(best), "onnx": str(onnx_path), "colors": str(color_path)})
    return 0
