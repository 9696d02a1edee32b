"""`alea train`: render data, train the detector and export ONNX, then the face reader.

Needs the `train` extra (torch, ultralytics). Stages `--stage detector`, `--stage int8` (the
detector at `--out` quantized to 8-bit integers, scanner.training.quantize; onnxruntime only),
`--stage face`, or all three in that order (the default): the face reader learns from the boxes
the detector at `--out` proposes, so it comes last. Every step is skipped when its output
exists, so re-running the same command after an interruption resumes: datasets are not
re-rendered, ultralytics resumes from runs/detect/NAME/weights/last.pt (with --resume) and the
reader from runs/face/NAME/last.pt.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scanner import shipped
from scanner.cli import command, emit

REPO = shipped.REPO
REALDICE_TRAIN = shipped.REALDICE / "photos_a" / "train"


# ultralytics' own choice ("auto" ignores lr0: the recipes' shipped models were trained so), or
# an optimizer that keeps the given lr0.
OPTIMIZERS = ("auto", "AdamW", "SGD")

# Each stage's recipe key KEY is the option --PREFIX-KEY (scanner/training/recipes/*.yaml).
STAGES = (("detector", ""), ("board", "board-"), ("face", "face-"))
GROUPS = {
    "detector": None,
    "board": "board detector: the detector at --out, fine-tuned to read the rectified board shrunk",
    "face": "face reader (scanner.vision.face)",
}


def _recipe_options(p: argparse.ArgumentParser, stage: str, prefix: str) -> None:
    from scanner.training.recipe import comments, recipe

    group = p.add_argument_group(GROUPS[stage]) if GROUPS[stage] else p
    helps = comments(stage)
    for key, value in recipe(stage).items():
        option = "--" + prefix + key.replace("_", "-")
        text = helps.get(key, "")
        if key.endswith("dir"):  # folders are the checkout's
            group.add_argument(option, default=str(REPO / value), help=text)
        elif isinstance(value, bool):  # --KEY / --no-KEY
            group.add_argument(
                option, action=argparse.BooleanOptionalAction, default=value, help=text
            )
        elif isinstance(value, list):
            kind = type(value[0])
            group.add_argument(option, type=kind, nargs=len(value), default=tuple(value), help=text)
        else:
            group.add_argument(option, type=type(value), default=value, help=text)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--stage",
        choices=("all", "detector", "int8", "board", "face"),
        default="all",
        help="train the detector, quantize it, teach a board detector at a smaller scale, "
        "train the face reader, or all (default)",
    )
    p.add_argument(
        "--real-dir",
        default=str(REALDICE_TRAIN),
        help="real photos (images/, labels/) to tile into training; '' for none",
    )
    p.add_argument(
        "--int8-out",
        default=str(REPO / "models" / "dice.int8.onnx"),
        help="where --stage int8 writes the quantized detector",
    )
    p.add_argument(
        "--int8-px-per-mm",
        type=float,
        default=None,
        help="--stage int8 of a board detector: the scale it reads the board at (written "
        "beside --int8-out as NAME.json)",
    )
    p.add_argument("--name", default="dice", help="run name under runs/detect/")
    p.add_argument("--out", default=str(REPO / "models" / "dice.onnx"))
    p.add_argument("--resume", action="store_true", help="continue runs/detect/NAME/last.pt")
    for stage, prefix in STAGES:
        _recipe_options(p, stage, prefix)
    p.add_argument("--board-name", default="board", help="run name under runs/detect/")
    p.add_argument("--board-out", default=str(REPO / "models" / "board.onnx"))
    p.add_argument("--face-name", default="face", help="run name under runs/face/")
    p.add_argument("--face-out", default=str(REPO / "models" / "face.onnx"))


@command(
    "train",
    "Train the dice detector and the face reader (needs the 'train' extra), export ONNX.",
    _arguments,
)
def run(args: argparse.Namespace) -> int:
    from scanner.errors import InputError

    # Checked before anything is rendered: a wrong number found an hour in is an hour lost.
    least = {
        "epochs": 1,
        "imgsz": 32,
        "batch": 1,
        "workers": 0,
        "synth_n": 1,
        "synth_val": 1,
        "real_per_photo": 0,
        "face_n": 0,
        "face_val": 1,
        "face_boards": 0,
        "face_board_val": 1,
        "face_board_others": 0,
        "face_epochs": 1,
        "face_hard_n": 0,
        "board_n": 1,
        "board_val": 1,
        "board_epochs": 1,
        "board_real_per_photo": 0,
        "face_detector_imgsz": 32,
    }
    for name, low in least.items():
        if getattr(args, name) < low:
            option = "--" + name.replace("_", "-")
            raise InputError("train.bad-option", f"{option} must be {low} or more", f"$.{name}")
    low, high = args.board_px_per_mm
    if not 0.5 <= low <= high <= 3.0:
        raise InputError(
            "train.bad-option",
            "--board-px-per-mm needs 0.5 <= LOW <= HIGH <= 3",
            "$.board_px_per_mm",
        )
    if not 0 <= args.board_max_tilt <= 45 or not 0 <= args.board_random_dice <= 1:
        raise InputError(
            "train.bad-option",
            "--board-max-tilt must be 0..45 degrees and --board-random-dice a share 0..1",
            "$.board_max_tilt" if not 0 <= args.board_max_tilt <= 45 else "$.board_random_dice",
        )
    for share in ("face_board_sheen", "face_board_glare"):
        if not 0 <= getattr(args, share) <= 1:
            option = "--" + share.replace("_", "-")
            raise InputError(
                "train.bad-option",
                f"{option} must be a share of the paper's white, 0..1",
                f"$.{share}",
            )
    if args.face_n == 0 and args.face_boards == 0:
        raise InputError(
            "train.bad-option",
            "the face reader needs --face-n or --face-boards above 0",
            "$.face_n",
        )
    if args.face_init and not Path(args.face_init).is_file():
        raise InputError(
            "train.bad-option", f"--face-init: no file {args.face_init}", "$.face_init"
        )
    if not 0 <= args.face_board_max_tilt <= 45:
        raise InputError(
            "train.bad-option",
            "--face-board-max-tilt must be 0..45 degrees",
            "$.face_board_max_tilt",
        )
    if not args.face_lr > 0:
        raise InputError("train.bad-option", "--face-lr must be above 0", "$.face_lr")
    if args.face_learns not in ("all", "gate"):
        raise InputError("train.bad-option", "--face-learns must be all or gate", "$.face_learns")
    if args.face_learns == "gate" and not args.face_init:
        raise InputError(
            "train.bad-option",
            "--face-learns gate needs --face-init: the reader whose value and colour it keeps",
            "$.face_init",
        )
    from scanner.synth.dice import SHADE_CHOICES

    if args.face_shades not in SHADE_CHOICES:
        raise InputError(
            "train.bad-option",
            f"--face-shades must be one of {', '.join(SHADE_CHOICES)}",
            "$.face_shades",
        )
    for share in (
        "world",
        "face_world",
        "logo_sixes",
        "keyboards",
        "tiles",
        "face_logo_sixes",
        "face_long_pips",
        "face_translucent",
        "face_keyboards",
        "face_tiles",
        "face_board_logo_sixes",
    ):
        if not 0 <= getattr(args, share) <= 1:
            option = "--" + share.replace("_", "-")
            raise InputError("train.bad-option", f"{option} must be a share 0..1", f"$.{share}")
    for name in ("optimizer", "board_optimizer"):
        if getattr(args, name) not in OPTIMIZERS:
            option = "--" + name.replace("_", "-")
            raise InputError(
                "train.bad-option", f"{option} must be one of {', '.join(OPTIMIZERS)}", f"$.{name}"
            )
    if not args.lr0 > 0 or not args.board_lr0 > 0:
        raise InputError("train.bad-option", "--lr0 and --board-lr0 must be above 0", "$.lr0")
    if args.stage != "int8":
        try:
            import ultralytics  # noqa: F401
        except ImportError:
            raise InputError(
                "train.missing-extra", "training needs the train extra: pip install 'alea[train]'"
            ) from None
    real = Path(args.real_dir) if args.real_dir else None
    result: dict[str, str] = {}
    if args.stage in ("all", "detector"):
        from scanner.training.detector import export_onnx, prepare, train

        data = prepare(
            Path(args.data_dir),
            args.synth_n,
            args.synth_val,
            args.seed,
            real,
            args.real_per_photo,
            size=args.imgsz,
            world=args.world,
            side_pips=args.side_pips,
            logo_sixes=args.logo_sixes,
            keyboards=args.keyboards,
            tiles=args.tiles,
        )
        best = train(
            data,
            args.model,
            args.epochs,
            args.imgsz,
            args.batch,
            args.name,
            args.workers,
            args.resume,
            args.seed,
            lr0=args.lr0,
            optimizer=args.optimizer,
        )
        result.update(weights=str(best), onnx=str(export_onnx(best, Path(args.out))))
    if args.stage in ("all", "int8"):
        from scanner.training.quantize import calibration_images, float_nodes, quantize_detector
        from scanner.vision.detect import DiceDetector

        if not Path(args.out).is_file():
            raise InputError("model.not-found", f"no detector at {args.out} to quantize", "$.out")
        # A board detector is calibrated on boards (and real photos) shrunk as it reads them.
        from scanner.vision.layout import default_layout

        rectified = default_layout().px_per_mm
        factor = args.int8_px_per_mm / rectified if args.int8_px_per_mm else None
        detector = DiceDetector(args.out, reader=False, colors=False, factor=factor)
        blobs = calibration_images(detector, real_dir=real)
        int8 = quantize_detector(args.out, Path(args.int8_out), blobs, float_nodes(args.out))
        result.update(int8_onnx=str(int8))
        if args.int8_px_per_mm:
            # Its sidecar says the scale it reads the board at (scanner.vision.models).
            sidecar = Path(int8).with_suffix(".json")
            sidecar.write_text(json.dumps({"px_per_mm": args.int8_px_per_mm}) + "\n")
            result.update(int8_scale=str(sidecar))
    if args.stage in ("all", "board"):
        from scanner.training.detector import export_onnx, prepare_board, train
        from scanner.vision.detect import DiceDetector

        if not Path(args.out).is_file():
            raise InputError("model.not-found", f"no detector at {args.out} to teach from", "$.out")
        # The board detector starts from the detector's weights and learns its boxes.
        teacher = DiceDetector(args.out, imgsz=0, reader=False, colors=False)
        data = prepare_board(
            Path(args.board_dir),
            teacher,
            args.board_n,
            args.board_val,
            args.board_seed,
            real,
            args.board_real_per_photo,
            (low, high),
            size=args.imgsz,
            max_tilt=args.board_max_tilt,
            random_share=args.board_random_dice,
        )
        best = train(
            data,
            str(Path(args.out).with_suffix(".pt")),
            args.board_epochs,
            args.imgsz,
            args.batch,
            args.board_name,
            args.workers,
            args.resume,
            args.board_seed,
            lr0=args.board_lr0,
            optimizer=args.board_optimizer,
        )
        result.update(
            board_weights=str(best), board_onnx=str(export_onnx(best, Path(args.board_out)))
        )
    if args.stage in ("all", "face"):
        from scanner.training import face_model, face_sets, face_train
        from scanner.vision.detect import DiceDetector

        # The reader learns from the boxes this detector proposes, as at run time.
        detector = DiceDetector(
            args.out, imgsz=args.face_detector_imgsz, reader=False, colors=False
        )
        train_set, val_sets = face_sets.prepare(
            Path(args.face_dir),
            detector,
            args.face_n,
            args.face_val,
            args.face_seed,
            real,
            hard_n=args.face_hard_n,
            world=args.face_world,
            side_pips=args.face_side_pips,
            logo_sixes=args.face_logo_sixes,
            long_pips=args.face_long_pips,
            translucent=args.face_translucent,
            keyboards=args.face_keyboards,
            tiles=args.face_tiles,
            board_sheen=args.face_board_sheen,
            shades=args.face_shades,
            boards=args.face_boards,
            board_val=args.face_board_val,
            board_glare=args.face_board_glare,
            board_max_tilt=args.face_board_max_tilt,
            board_others=args.face_board_others,
            board_logo_sixes=args.face_board_logo_sixes,
        )
        best = face_train.train(
            train_set,
            val_sets,
            args.face_name,
            args.face_epochs,
            lr=args.face_lr,
            seed=args.face_train_seed,
            log=lambda row: print(row, file=sys.stderr, flush=True),
            init=Path(args.face_init) if args.face_init else None,
            learns=args.face_learns,
        )
        out = face_model.export_onnx(best, Path(args.face_out))
        result.update(face_weights=str(best), face_onnx=str(out))
    emit(result)
    return 0
