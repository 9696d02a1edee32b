"""`alea eval`: print the figures table (synthetic held-out test, real photos test split, and
any other labelled photo sets or table sets named).

The synthetic test set is rendered on first use with a seed no training set uses (default 1000)
into datasets/generated/, so the figures are reproducible from the command alone.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scanner import shipped
from scanner.cli import command
from scanner.commands._base import check_coarse, reader_args
from scanner.errors import InputError

REALDICE = shipped.REALDICE / "photos_a" / "test"


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        default=None,
        help="ONNX detector (default: models/photos.onnx for photos, models/dice.onnx for tables)",
    )
    p.add_argument("--synth-dir", default=str(shipped.DATASETS / "generated" / "synth_test"))
    p.add_argument("--synth-n", type=int, default=300, help="synthetic test images")
    p.add_argument("--synth-seed", type=int, default=1000, help="never used for training")
    p.add_argument("--real-dir", default=str(REALDICE), help="folder with images/ and labels/")
    p.add_argument("--imgsz", type=int, default=640, help="0 = native scale")
    reader_args(p)
    p.add_argument(
        "--photos",
        nargs="*",
        default=[],
        help="more labelled photo sets (images/, labels/ as --real-dir), read as `alea dice` "
        "reads them, a row each: the stress sets of benchmarks/blender/README.md",
    )
    p.add_argument(
        "--tables",
        nargs="*",
        default=[],
        help="table sets to read as `alea scan` does (benchmarks/blender/README.md): rows with "
        "the reader's colours and with the palette learnt from each scene's reference frame",
    )
    p.add_argument(
        "--board-px-per-mm",
        type=float,
        default=None,
        help="read the tables' boards with --model shrunk to this scale (a board detector's)",
    )
    p.add_argument(
        "--finder",
        action="store_true",
        help="read the tables' boards in two looks: the shipped board detector finds the dice, "
        "--model (default the detector) boxes them at full scale (the model card)",
    )
    p.add_argument("--json", action="store_true", help="print JSON rows instead of a table")


@command(
    "eval", "Print the detector's figures on the held-out synthetic and real test sets.", _arguments
)
def run(args: argparse.Namespace) -> int:
    from scanner.synth.dataset import ensure_test_set
    from scanner.synth.scene import photo_config
    from scanner.vision.detect import DEFAULT_MODEL, PHOTO_MODEL, DiceDetector, face_reader
    from scanner.vision.evaluate import evaluate, format_table

    # Checked before minutes of evaluation, not after.
    check_coarse(args.coarse, args.imgsz)
    if args.finder and args.board_px_per_mm:
        # Two looks box every die at full scale: a board scale would be silently dropped.
        raise InputError(
            "eval.bad-option",
            "--finder boxes the dice at the board's full scale; leave out --board-px-per-mm",
            "$.board_px_per_mm",
        )
    for folder in args.photos or ():
        if not (Path(folder) / "images").is_dir():
            raise InputError("eval.no-set", f"no labelled photos at {folder}/images", "$.photos")
    for folder in args.tables or ():
        if not Path(folder).is_dir():
            raise InputError("eval.no-set", f"no table set at {folder}", "$.tables")
    detector = DiceDetector(
        args.model or PHOTO_MODEL,
        imgsz=args.imgsz,
        conf=args.conf,
        reader=face_reader(args.face, photos=True),
        coarse=args.coarse or None,
    )
    rows = []
    synth = Path(args.synth_dir)
    if args.synth_n:
        images = ensure_test_set(synth, args.synth_n, args.synth_seed, photo_config())
        rows.append(
            evaluate(
                detector,
                images,
                synth / "labels" / "train",
                f"synthetic seed {args.synth_seed}",
                synth / "colors" / "train",
                limit=args.synth_n,
            ).row()
        )
    real = Path(args.real_dir)
    if (real / "images").is_dir():
        rows.append(evaluate(detector, real / "images", real / "labels", "realdice test").row())
    for folder in args.photos or ():
        path = Path(folder)
        rows.append(evaluate(detector, path / "images", path / "labels", path.name).row())
    if args.tables:
        from scanner.vision.layout import default_layout
        from scanner.vision.models import board_factor, board_model, finder
        from scanner.vision.table_eval import evaluate_tables

        # The board as `alea scan` reads it: the shipped board detector when there is one, and
        # a board detector (a model with its NAME.json) at its own scale; with --finder, the
        # board detector finds and --model (default the detector) boxes at full scale.
        model = args.model or (DEFAULT_MODEL if args.finder else board_model()) or DEFAULT_MODEL
        rectified = default_layout().px_per_mm
        factor = (
            args.board_px_per_mm / rectified
            if args.board_px_per_mm
            else board_factor(model, rectified)
        )
        board = DiceDetector(
            model,
            imgsz=0,
            conf=args.conf,
            reader=face_reader(args.face),
            factor=factor,
            finder=finder(rectified) if args.finder else None,
            board=True,
        )
        for folder in args.tables:
            path = Path(folder)
            rows += [t.row() for t in evaluate_tables(path, board.detect, path.name)]
    print(json.dumps(rows) if args.json else format_table(rows))
    return 0
