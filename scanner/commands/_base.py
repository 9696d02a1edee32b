"""What several `alea` commands share: arguments parsed the same way everywhere."""

from __future__ import annotations

import argparse


def reader_args(p: argparse.ArgumentParser) -> None:
    """`--conf` and `--face`: the face reader's threshold and model (`alea dice`, `alea eval`)."""
    p.add_argument(
        "--conf",
        type=float,
        default=None,
        help="minimum confidence (default 0.5 with the face reader, 0.35 without)",
    )
    p.add_argument(
        "--face",
        default=None,
        help="face reader ONNX (default: models/face.onnx); 'none': the detector alone",
    )


def players_arg(values: list[str] | None) -> list[str] | None:
    """`--players grey brown blue` or `--players grey,brown,blue`, in seating order; a bad
    seating (unknown colour, repeated, not 2–5) is bad input, exit 2."""
    if not values:
        return None
    from scanner.inputs import parse_seating

    return list(parse_seating([p for v in values for p in v.split(",") if p], "$.players"))
