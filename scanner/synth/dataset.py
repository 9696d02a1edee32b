"""Write rendered scenes as a YOLO dataset: images/, labels/ (class = value - 1), a data YAML.

Besides the YOLO labels, `colors/<split>/<name>.txt` holds each die's colour name, line for line,
so the colour classifier trains on the same images. Image i of a dataset with seed S is
`render_scene((S, i))`: the dataset is reproducible and any image can be regenerated alone.
Rendering is spread over processes because a scene takes ~0.1 s of one core.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path

import cv2
from tqdm import tqdm

from scanner.synth.scene import RENDERER, Scene, SceneConfig, SceneDie, render_scene

CLASS_NAMES = ["one", "two", "three", "four", "five", "six"]


def labelled(scene: Scene) -> list[SceneDie]:
    """The scene's dice that get a label line, in label order: all but the slivers under two
    pixels that the camera tilt leaves at the frame's edge."""
    return [d for d in scene.dice if d.box[2] - d.box[0] >= 2 and d.box[3] - d.box[1] >= 2]


def _write_one(job: tuple[str, str, int, int, SceneConfig]) -> int:
    out, split, seed, index, cfg = job
    scene = render_scene((seed, index), cfg)
    name = f"s{seed}_{index:06d}"
    root = Path(out)
    h, w = scene.image.shape[:2]
    cv2.imwrite(
        str(root / "images" / split / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95]
    )
    lines, colors = [], []
    for d in labelled(scene):
        x0, y0, x1, y1 = d.box
        lines.append(
            f"{d.value - 1} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} "
            f"{(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
        )
        colors.append(d.color)
    for sub, rows in (("labels", lines), ("colors", colors)):
        (root / sub / split / f"{name}.txt").write_text("".join(r + "\n" for r in rows))
    return len(lines)


def write_yaml(out: Path, splits: dict[str, str | list[str]], portable: bool = False) -> Path:
    """The ultralytics data YAML.

    By default `path:` is absolute, so it works from any directory; `portable` omits it, and
    ultralytics then takes the YAML's own folder as the root (for committed sample sets).
    """
    lines = [] if portable else [f"path: {out.resolve()}"]
    for split, rel in splits.items():
        if isinstance(rel, list):
            lines.append(f"{split}:")
            lines += [f"  - {r}" for r in rel]
        else:
            lines.append(f"{split}: {rel}")
    lines.append("names:")
    lines += [f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES)]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def renderer_of(root: str | os.PathLike) -> int | None:
    """The renderer version a set on disk was drawn with (None: no stamp, older than it)."""
    try:
        return int((Path(root) / "renderer.txt").read_text().strip())
    except (OSError, ValueError):
        return None


def ensure_test_set(out: str | os.PathLike, n: int, seed: int, cfg: SceneConfig) -> Path:
    """A rendered test set of `n` images (train split only) at `out`, drawn once and reused;
    drawn again when short or when this renderer would draw other pixels (its stamp differs).
    Only the set's own images (`s<seed>_*`) are replaced, nothing else in the folder."""
    root = Path(out)
    images = root / "images" / "train"
    ours = sorted(images.glob(f"s{seed}_*.jpg")) if images.is_dir() else []
    stale = bool(ours) and renderer_of(root) != RENDERER
    if stale:
        for sub, ext in (("images", "jpg"), ("labels", "txt"), ("colors", "txt")):
            for f in (root / sub / "train").glob(f"s{seed}_*.{ext}"):
                f.unlink()
    if stale or len(ours) < n:
        write_dataset(root, n, seed, 0, cfg)
    return images


def write_dataset(
    out: str | os.PathLike,
    n: int,
    seed: int,
    val: int = 0,
    cfg: SceneConfig | None = None,
    workers: int | None = None,
    portable: bool = False,
) -> Path:
    """Render n training images (+ `val` validation images) into `out`; returns the YAML path."""
    cfg = cfg or SceneConfig()
    root = Path(out)
    splits = {"train": n, "val": val}
    jobs = []
    for split, count in splits.items():
        if not count:
            continue
        for sub in ("images", "labels", "colors"):
            (root / sub / split).mkdir(parents=True, exist_ok=True)
        # Validation images use a derived seed so they never coincide with training images.
        split_seed = seed if split == "train" else seed + 7_919
        jobs += [(str(root), split, split_seed, i, cfg) for i in range(count)]
    workers = workers or min(len(os.sched_getaffinity(0)), 16)
    if workers > 1 and len(jobs) > 8:
        ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
        with ctx.Pool(workers) as pool:
            for _ in tqdm(
                pool.imap_unordered(_write_one, jobs, chunksize=8),
                total=len(jobs),
                desc="rendering",
                disable=None,
            ):
                pass
    else:
        for job in tqdm(jobs, desc="rendering", disable=None):
            _write_one(job)
    (root / "renderer.txt").write_text(f"{RENDERER}\n")
    yaml_splits: dict[str, str | list[str]] = {"train": "images/train"}
    yaml_splits["val"] = "images/val" if val else "images/train"
    return write_yaml(root, yaml_splits, portable)
