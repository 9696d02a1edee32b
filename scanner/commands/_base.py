"""What several `alea` commands share: arguments parsed the same way everywhere."""

from __future__ import annotations

import argparse


def reader_args(p: argparse.ArgumentParser) -> None:
    """`--conf`, `--face` and `--coarse`: the face reader's threshold and model, and a second,
    coarser look for dice too big for `--imgsz` (`alea dice`, `alea eval`)."""
    p.add_argument(
        "--conf",
        type=float,
        default=None,
        help=(
            "minimum confidence (default: the face reader's P(die) 0.5, or 0.05 for a box the "
            "detector scores 0.5 or more; 0.35 without the reader). Given, it is the only rule"
        ),
    )
    p.add_argument(
        "--face",
        default=None,
        help=(
            "face reader ONNX (default: models/photos_face.onnx on photos, models/face.onnx on "
            "the board); 'none': the detector alone"
        ),
    )
    p.add_argument(
        "--coarse",
        type=int,
        default=0,
        help="also look at each photo at this long side, under --imgsz, for dice too big for "
        "it (close-ups; 320 chosen on validation, see the model card); 0 (default): off",
    )


def check_coarse(coarse: int, imgsz: int) -> None:
    """`--coarse` is off (0) or a long side from 32 up to under `--imgsz`."""
    from scanner.errors import InputError

    if coarse and (imgsz == 0 or not 32 <= coarse < imgsz):
        raise InputError(
            "dice.coarse", "--coarse must be 0 (off) or from 32 up to under --imgsz", "$.coarse"
        )


def players_arg(values: list[str] | None) -> list[str] | None:
    """`--players grey brown blue` or `--players grey,brown,blue`, in seating order; a bad
    seating (unknown colour, repeated, not 2–5) is bad input, exit 2."""
    if not values:
        return None
    from scanner.inputs import parse_seating

    return list(parse_seating([p for v in values for p in v.split(",") if p], "$.players"))
