"""`alea markers`, `alea calibrate`, `alea board`, `alea scan`: the calibration and board-reading
stages on files (CONTRACT.md). OpenCV is imported inside each command, so `alea check` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scanner.cli import command, emit, read_json
from scanner.commands._base import players_arg
from scanner.errors import InputError
from scanner.vision.models import load_detector


def _load_layout(path: str | None):
    from scanner.vision.layout import Layout, default_layout

    return default_layout() if path is None else Layout.load(path)


def _load_lens(path: str | None):
    if path is None:
        return None
    from scanner.vision.calibrate import Lens

    return Lens.from_json(read_json(path))


# ---------------------------------------------------------------------------- markers
def _markers_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="folder to write the sheets into")
    p.add_argument("--layout", help="layout JSON (default: calibration/layout.json, A3)")
    p.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")


@command("markers", "Write the printable ArUco marker sheet (PNG + PDF, A3 and A4).", _markers_args)
def run_markers(args: argparse.Namespace) -> int:
    from scanner.vision.sheet import write_sheets

    if not 72 <= args.dpi <= 1200:
        raise InputError("value.range", "--dpi must be between 72 and 1200", "$.dpi")
    try:
        written = write_sheets(_load_layout(args.layout), args.out, args.dpi)
    except OSError as exc:
        raise InputError("output.unwritable", f"cannot write to {args.out}: {exc}") from None
    emit({"written": [str(p) for p in written]})
    return 0


# -------------------------------------------------------------------------- calibrate
def _calibrate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", help="a photo from the table camera showing the marker sheet")
    p.add_argument("--out", required=True, help="calibration profile to write (JSON)")
    p.add_argument("--png", help="rectified preview with zones drawn (default: OUT with .png)")
    p.add_argument("--layout", help="layout JSON (default: calibration/layout.json, A3)")
    p.add_argument("--lens", help="camera matrix + distortion JSON {matrix, distortion}")
    p.add_argument("--max-error", type=float, default=None, help="reject fits above this (mm)")


@command(
    "calibrate",
    "Locate the marker sheet in a photo; write the calibration profile and a preview PNG.",
    _calibrate_args,
)
def run_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from scanner.vision.calibrate import MAX_ERROR_MM, BoardNotFound, calibrate, spread_warning
    from scanner.vision.camera import read_image
    from scanner.vision.sheet import draw_layout

    layout, lens = _load_layout(args.layout), _load_lens(args.lens)
    image = read_image(args.image)
    try:
        cal = calibrate(image, layout, lens, args.max_error or MAX_ERROR_MM)
    except BoardNotFound as exc:
        raise InputError("calibration.no-board", str(exc), "$.image") from None
    out = Path(args.out)
    png = Path(args.png) if args.png else out.with_suffix(".png")
    from scanner.store import write_json

    try:
        write_json(out, cal.to_json())  # whole or not at all: a profile replaced is never lost
        if not cv2.imwrite(str(png), draw_layout(cal.rectify(image), layout)):
            raise OSError("OpenCV could not write the PNG")
    except OSError as exc:
        raise InputError("output.unwritable", f"cannot write {out} / {png}: {exc}") from None
    warning = spread_warning(cal)
    emit(
        {
            "calibration": str(out),
            "preview": str(png),
            "markers": list(cal.markers),
            "error_mm": round(cal.error_mm, 3),
            "warnings": [warning] if warning else [],
        }
    )
    return 0


# ------------------------------------------------------------------------------ board
def _board_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help='detections JSON {"dice": [...]} on the rectified board, or -')
    where = p.add_mutually_exclusive_group()
    where.add_argument("--calibration", help="calibration profile (its layout is used)")
    where.add_argument("--layout", help="layout JSON (default: calibration/layout.json)")
    p.add_argument("--players", nargs="+", help="player colours in seating order")


@command(
    "board",
    "Detected dice (rectified-board pixels) to a board state: the board stage alone.",
    _board_args,
)
def run_board(args: argparse.Namespace) -> int:
    from scanner.vision.board import read_board
    from scanner.vision.dice import Dice

    camera = None
    if args.calibration:
        from scanner.vision.calibrate import Calibration

        cal = Calibration.load(args.calibration)
        layout, camera = cal.layout, cal.camera_position()
    else:
        layout = _load_layout(args.layout)
    data = read_json(args.file)
    if not isinstance(data, dict) or not isinstance(data.get("dice"), list):
        raise InputError("schema.type", 'expected {"dice": [...]}', "$")
    dice = Dice.from_json(data["dice"], "$.dice")
    emit(read_board(dice, layout, players_arg(args.players), camera).to_json())
    return 0


# ------------------------------------------------------------------------------- scan
def _scan_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "images",
        nargs="+",
        metavar="IMAGE",
        help="photos of the table; with several, one JSON line each, with its path",
    )
    p.add_argument("--calibration", required=True, help="profile written by alea calibrate")
    p.add_argument("--players", nargs="+", help="player colours in seating order")
    p.add_argument("--model", help="detector model (default: the detector's own default)")
    p.add_argument(
        "--fixed-camera",
        action="store_true",
        help="if the markers are hidden, use the stored calibration (camera has not moved)",
    )


@command(
    "scan",
    "A photo of the table to a board state (locate board, rectify, detect dice, read zones).",
    _scan_args,
)
def run_scan(args: argparse.Namespace) -> int:
    from scanner.inputs import read_image_file
    from scanner.vision.calibrate import Calibration
    from scanner.vision.camera import read_image
    from scanner.vision.scan import scan_image

    cal = Calibration.load(args.calibration)
    players = players_arg(args.players)
    if len(args.images) == 1:  # the contract's one photo, one object
        image = read_image(args.images[0])
        detect = load_detector(args.model)
        emit(scan_image(image, cal, detect, players, fixed_camera=args.fixed_camera).to_json())
        return 0
    # Several photos, the models loaded once: every path is checked before the first is read,
    # so a typo at the end is not found minutes in.
    for i, path in enumerate(args.images):
        if not Path(path).is_file():
            raise InputError("image.not-found", f"no such image file: {path}", f"$.images[{i}]")
    detect = load_detector(args.model)
    for i, path in enumerate(args.images):
        image = read_image_file(path, f"$.images[{i}]")
        reading = scan_image(image, cal, detect, players, fixed_camera=args.fixed_camera)
        emit({"path": path, **reading.to_json()})
        sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------- palette
def _palette_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", help="a photo with a die of each player's colour on its swatch square")
    p.add_argument("--calibration", required=True, help="profile written by alea calibrate")
    p.add_argument("--out", help="profile to write with the colours (default: --calibration)")
    p.add_argument("--model", help="detector model (default: the detector's own default)")


@command(
    "palette",
    "Learn the players' dice colours at this table from dice set on the sheet's swatch squares "
    "six up, and whether each set's six is an emblem.",
    _palette_args,
)
def run_palette(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from scanner.store import write_json
    from scanner.vision.calibrate import BoardNotFound, Calibration, calibrate
    from scanner.vision.camera import read_image
    from scanner.vision.palette import exposure_warning, no_swatch_dice
    from scanner.vision.scan import learn_colors

    cal = Calibration.load(args.calibration)
    if not cal.layout.swatches:
        raise InputError(
            "palette.no-swatches",
            "this layout has no swatch squares; print the sheet again with `alea markers`",
            "$.calibration",
        )
    image = read_image(args.image)
    detect = load_detector(args.model)
    try:
        here = calibrate(image, cal.layout, cal.lens)
    except BoardNotFound as exc:
        raise InputError("calibration.no-board", str(exc), "$.image") from None
    board = here.rectify(image)
    palette, taken = learn_colors(board, here, detect, cal.palette)
    clipped = exposure_warning(board)
    if not taken:
        raise no_swatch_dice(clipped, "$.image")
    out = Path(args.out or args.calibration)
    try:
        write_json(out, replace(cal, palette=palette).to_json())
    except OSError as exc:
        raise InputError("output.unwritable", f"cannot write {out}: {exc}") from None
    missing = [c for c in cal.layout.swatches if c not in palette.colors]
    emit(
        {
            "calibration": str(out),
            "taken": taken,
            "palette": palette.to_json(),
            "warnings": [f"no die on the {c} square: {c} dice read as unknown" for c in missing]
            + ([clipped] if clipped else []),
        }
    )
    return 0


# ------------------------------------------------------------------------------ watch
def _watch_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="webcam index (0), video file, or folder of images")
    p.add_argument("--calibration", required=True, help="profile written by alea calibrate")
    p.add_argument("--players", nargs="+", help="player colours in seating order")
    p.add_argument("--model", help="detector model (default: the detector's own default)")
    p.add_argument("--max-frames", type=int, default=0, help="stop after N frames (0: never)")


@command(
    "watch",
    "The live loop on a camera, video or folder: one JSON line per newly settled board.",
    _watch_args,
)
def run_watch(args: argparse.Namespace) -> int:
    import json
    import sys

    from scanner.vision.calibrate import Calibration
    from scanner.vision.camera import open_source
    from scanner.vision.live import LiveBoard

    cal = Calibration.load(args.calibration)
    players = players_arg(args.players)
    detect = load_detector(args.model)
    live = LiveBoard(cal.layout, detect, players, cal.lens, cal, palette=cal.palette)
    with open_source(args.source) as source:
        for frame in source:
            status = live.process(frame.image)
            if status.changed and status.settled is not None:
                line = {"frame": frame.index, "name": frame.name, **status.settled.to_json()}
                sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            if args.max_frames and frame.index + 1 >= args.max_frames:
                break
    return 0
