"""`alea synth`: render a synthetic YOLO dataset of dice on a table (scanner.synth)."""

from __future__ import annotations

import argparse

from scanner.cli import command, emit
from scanner.errors import InputError


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="output folder (e.g. datasets/generated/synth)")
    p.add_argument("--n", type=int, default=1000, help="training images to render")
    p.add_argument("--val", type=int, default=0, help="validation images (a derived seed)")
    p.add_argument("--seed", type=int, default=0, help="dataset seed; same seed, same images")
    p.add_argument("--size", type=int, default=320, help="image side in pixels")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument(
        "--portable",
        action="store_true",
        help="omit the absolute path: from the YAML's folder (committed samples)",
    )


@command("synth", "Render a synthetic dice dataset (YOLO layout + data.yaml).", _arguments)
def run(args: argparse.Namespace) -> int:
    from scanner.synth.dataset import write_dataset
    from scanner.synth.scene import SceneConfig

    if args.n < 0 or args.val < 0:
        raise InputError("synth.count", "--n and --val must not be negative", "$.n")
    if not 64 <= args.size <= 4096:
        raise InputError("synth.size", "--size must be between 64 and 4096", "$.size")
    cfg = SceneConfig(width=args.size, height=args.size)
    yaml_path = write_dataset(
        args.out, args.n, args.seed, args.val, cfg, args.workers, args.portable
    )
    emit({"dataset": str(yaml_path), "train": args.n, "val": args.val, "seed": args.seed})
    return 0
