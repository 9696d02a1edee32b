"""`alea dice IMAGE [IMAGE ...]`: every die in plain photos (CONTRACT.md), no calibration.

The model is loaded once for all images. Output is written only after the last image, so a bad
file anywhere fails the whole call with the contract's error object (exit 2) and no half output;
images are read one at a time, so a long list of big photos does not pile up in memory.
"""

from __future__ import annotations

import argparse

from scanner.cli import command, emit
from scanner.commands._base import check_coarse, reader_args


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (any size, aspect)")
    p.add_argument("--model", default=None, help="ONNX detector (default: models/photos.onnx)")
    p.add_argument(
        "--imgsz",
        type=int,
        default=640,
        help="long side the photo is scaled to for the detector (dice ~30-65 px "
        "there work best); 0 keeps the photo's scale",
    )
    reader_args(p)


@command("dice", "Detect dice (value, player colour, box) in photos.", _arguments)
def run(args: argparse.Namespace) -> int:
    from scanner.errors import InputError
    from scanner.vision.detect import PHOTO_MODEL, DiceDetector, face_reader, load_image

    if args.imgsz != 0 and not 32 <= args.imgsz <= 4096:
        raise InputError("dice.imgsz", "--imgsz must be 0 (native) or 32..4096", "$.imgsz")
    if args.conf is not None and not 0.0 <= args.conf <= 1.0:
        raise InputError("dice.conf", "--conf must be between 0 and 1", "$.conf")
    check_coarse(args.coarse, args.imgsz)
    # The first image is checked before the model loads: a typo fails fast.
    first = load_image(args.images[0], "$.images[0]")
    detector = DiceDetector(
        args.model or PHOTO_MODEL,
        imgsz=args.imgsz,
        conf=args.conf,
        reader=face_reader(args.face, photos=True),
        coarse=args.coarse or None,
    )
    out = []
    for i, path in enumerate(args.images):
        img = first if i == 0 else load_image(path, f"$.images[{i}]")
        h, w = img.shape[:2]
        out.append({"path": path, "width": w, "height": h, "dice": detector.detect(img).to_json()})
    emit({"images": out})
    return 0
