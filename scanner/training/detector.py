"""Train the dice detector offline with ultralytics and export it to ONNX (extra `train`).

Only this module imports torch/ultralytics; the runtime reads the exported ONNX with onnxruntime.
Three steps, each runnable alone (and all of them by `alea train`):

1. `real_tiles`: cut the real photos (640 px, dice 30–53 px) into fixed-size tiles *without
   resizing*, so real dice keep the scale the detector works at (a die ~32–48 px). Resizing a
   640 photo to a 320 training size would halve every die: the classic sim-to-real scale trap.
2. `train`: build the model from its YAML (no pretrained weights exist offline), train with
   checkpoints every epoch (`runs/.../weights/last.pt`), resumable with `resume=True`.
3. `export_onnx`: ONNX at a pinned opset, output (1, 4 + 6, N), copied into `models/`.

ultralytics is kept offline by YOLO_OFFLINE, no auto-install, amp=False (the AMP check downloads a
model) and a font in its config dir (otherwise it fetches Arial.ttf at every plot).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scanner import shipped

OPSET = 18
RUNS = shipped.RUNS


def offline_env(config_dir: Path = RUNS / "yolo_config") -> None:
    """Point ultralytics at a private config dir with a font, and forbid network and installs."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    font = config_dir / "Ultralytics" / "Arial.ttf"
    if not font.exists():
        import matplotlib

        src = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        font.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, font)


def _read_labels(path: Path) -> np.ndarray:
    if not path.exists():
        return np.zeros((0, 5), np.float32)
    rows = [list(map(float, ln.split())) for ln in path.read_text().splitlines() if ln.strip()]
    return np.array(rows, np.float32).reshape(-1, 5)


def _imread(path: Path) -> np.ndarray:
    """The photo as cv2 reads it (BGR), raising where cv2 would hand back None."""
    img = cv2.imread(str(path))
    if img is None:
        raise FileNotFoundError(f"cv2 cannot read {path}")
    return img


def real_tiles(
    src: Path,
    out: Path,
    split: str,
    photos: list[Path],
    per_photo: int,
    size: int = 320,
    seed: int = 0,
    min_visible: float = 0.6,
) -> int:
    """Crop `per_photo` size×size tiles from each photo at native scale, with clipped labels
    (a photo narrower or lower than `size` gives tiles as wide or high as it is).

    Each crop is the best of 25 random positions, the one cutting the fewest dice; dice at least
    `min_visible` inside are kept (clipped box), smaller slivers are dropped. Returns tile count.
    """
    rng = np.random.default_rng(seed)
    (out / "images" / split).mkdir(parents=True, exist_ok=True)
    (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    count = 0
    for photo in tqdm(photos, desc=f"real tiles {split}", disable=None):
        img = _imread(photo)
        h, w = img.shape[:2]
        lab = _read_labels(src / "labels" / (photo.stem + ".txt"))
        boxes = np.stack(
            [
                (lab[:, 1] - lab[:, 3] / 2) * w,
                (lab[:, 2] - lab[:, 4] / 2) * h,
                (lab[:, 1] + lab[:, 3] / 2) * w,
                (lab[:, 2] + lab[:, 4] / 2) * h,
            ],
            1,
        )
        tw, th = min(size, w), min(size, h)  # a photo smaller than a tile is one tile
        for k in range(per_photo):
            best = None
            for _ in range(25):
                x, y = int(rng.integers(0, w - tw + 1)), int(rng.integers(0, h - th + 1))
                ix0, iy0 = np.clip(boxes[:, 0], x, x + tw), np.clip(boxes[:, 1], y, y + th)
                ix1, iy1 = np.clip(boxes[:, 2], x, x + tw), np.clip(boxes[:, 3], y, y + th)
                inter = (ix1 - ix0) * (iy1 - iy0)
                area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
                frac = inter / np.maximum(area, 1e-6)
                cut = int(((frac > 0.02) & (frac < 0.98)).sum())
                score = (cut, -int((frac >= 0.98).sum()))
                if best is None or score < best[0]:
                    best = (score, x, y, frac, (ix0, iy0, ix1, iy1))
            assert best is not None  # 25 tries, each one a candidate
            _, x, y, frac, (ix0, iy0, ix1, iy1) = best
            lines = []
            for i in np.flatnonzero(frac >= min_visible):
                cx, cy = ((ix0[i] + ix1[i]) / 2 - x) / tw, ((iy0[i] + iy1[i]) / 2 - y) / th
                bw, bh = (ix1[i] - ix0[i]) / tw, (iy1[i] - iy0[i]) / th
                lines.append(f"{int(lab[i, 0])} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
            name = f"{photo.stem}_t{k}"
            cv2.imwrite(
                str(out / "images" / split / f"{name}.jpg"),
                img[y : y + th, x : x + tw],
                [cv2.IMWRITE_JPEG_QUALITY, 95],
            )
            (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + "\n")
            count += 1
    return count


def prepare(
    out: Path,
    synth_n: int,
    synth_val: int,
    seed: int,
    real_dir: Path | None,
    real_per_photo: int,
    real_val_photos: int = 20,
    size: int = 320,
    world: float = 0.0,
    side_pips: bool = False,
    logo_sixes: float = 0.0,
    keyboards: float = 0.0,
    tiles: float = 0.0,
) -> Path:
    """Synthetic set + real tiles (train split only) -> one mixed data YAML; returns its path.

    The last `real_val_photos` photos of real train/ are held out as validation tiles; the real
    test/ split is never read here. `world`: the share of scenes from the wider world
    (`SceneConfig.world`), whose dice show pips on their sides with `side_pips`; `logo_sixes`
    of the dice print an emblem on their six (`SceneConfig.logo_sixes`); `keyboards` of the world's
    scenes lie on sculpted keycaps (`SceneConfig.keyboards`), `tiles` of them hold loose tiles
    and a card sized to the dice (`SceneConfig.tiles`). A set on disk
    is kept as it is: other scenes need another `out`.
    """
    from scanner.synth.dataset import write_dataset, write_yaml
    from scanner.synth.scene import SceneConfig

    synth = out / "synth"
    if not (synth / "data.yaml").exists():
        write_dataset(
            synth,
            synth_n,
            seed,
            synth_val,
            SceneConfig(
                width=size,
                height=size,
                world=world,
                side_pips=side_pips,
                logo_sixes=logo_sixes,
                keyboards=keyboards,
                tiles=tiles,
            ),
        )
    train_list = [str((synth / "images" / "train").resolve())]
    val_list = [str((synth / "images" / "val").resolve())]
    if real_dir is not None:
        real = out / "real"
        if not (real / "images" / "train").exists():
            photos = sorted((real_dir / "images").glob("*.jpg"))
            fit, held = photos[: len(photos) - real_val_photos], photos[-real_val_photos:]
            real_tiles(real_dir, real, "train", fit, real_per_photo, size, seed)
            real_tiles(real_dir, real, "val", held, 2, size, seed + 1)
        train_list.append(str((real / "images" / "train").resolve()))
        val_list.append(str((real / "images" / "val").resolve()))
    return write_yaml(out, {"train": train_list, "val": val_list})


def teacher_boxes(detector):
    """`label_boxes` for `write_board_tiles`: each true die's box as `detector` (one that reads
    the board at its own scale) proposes it, the proposal overlapping it most (IoU ≥ 0.3), else
    the true box grown by the margin the detector's boxes have on that board (median). A
    detector taught these boxes at a smaller scale gives the face reader the crops it learnt
    from."""
    from scanner.vision.boxes import iou_matrix

    def label(board: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        found = detector.propose(board)
        if not len(boxes) or not len(found):
            return boxes
        overlap = iou_matrix(boxes, found)
        best = overlap.argmax(1)
        hit = overlap[np.arange(len(boxes)), best] >= 0.3
        out = boxes.copy()
        out[hit] = found[best[hit]]
        if hit.any() and not hit.all():
            out[~hit] += np.median(found[best[hit]] - boxes[hit], axis=0)
        return out

    return label


def shrunk_photos(
    src: Path, out: Path, photos: list[Path], factors: tuple[float, float], seed: int
):
    """Copies of real photos shrunk by a factor drawn in `factors` (area interpolation, labels
    unchanged: YOLO labels are fractions of the image), so real dice come in at the size a
    board detector sees them; returns the new photos."""
    rng = np.random.default_rng(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    made = []
    for photo in photos:
        img = _imread(photo)
        f = rng.uniform(*factors)
        small = cv2.resize(
            img, (round(img.shape[1] * f), round(img.shape[0] * f)), interpolation=cv2.INTER_AREA
        )
        dest = out / "images" / photo.name
        cv2.imwrite(str(dest), small, [cv2.IMWRITE_JPEG_QUALITY, 95])
        label = src / "labels" / (photo.stem + ".txt")
        if label.exists():
            shutil.copy(label, out / "labels" / label.name)
        made.append(dest)
    return made


def prepare_board(
    out: Path,
    detector,
    boards: int,
    val_boards: int,
    seed: int,
    real_dir: Path | None,
    real_per_photo: int,
    px_per_mm: tuple[float, float],
    real_val_photos: int = 20,
    size: int = 320,
    max_tilt: float | None = None,
    random_share: float = 0.0,
) -> Path:
    """Data for a detector of the rectified board at a smaller scale than it is rectified at:
    board tiles shrunk to `px_per_mm` with the boxes `detector` draws at full scale
    (`teacher_boxes`), and real photos shrunk so their dice are as small (train split only;
    the last `real_val_photos` are validation). `max_tilt` and `random_share`: see
    `write_board_tiles`. Returns the data YAML."""
    from scanner.synth.board_tiles import write_board_tiles
    from scanner.synth.dataset import write_yaml
    from scanner.synth.table import MAX_TILT_DEG
    from scanner.vision.layout import default_layout

    label = teacher_boxes(detector)
    tilt = MAX_TILT_DEG if max_tilt is None else max_tilt
    for split, n, s in (("train", boards, seed), ("val", val_boards, seed + 1)):
        if not (out / "board" / split / "labels").exists():
            write_board_tiles(
                out / "board" / split,
                n,
                s,
                size,
                px_per_mm=px_per_mm,
                label_boxes=label,
                max_tilt=tilt,
                random_share=random_share,
            )
    train_list = [str((out / "board" / "train" / "images").resolve())]
    val_list = [str((out / "board" / "val" / "images").resolve())]
    if real_dir is not None:
        real = out / "real"
        if not (real / "images" / "train").exists():
            photos = sorted((real_dir / "images").glob("*.jpg"))
            # The real dice are ~30–53 px in 640 px photos; the board's at px/mm are 16 mm.
            die_mm = default_layout().die_size
            factors = (px_per_mm[0] * die_mm / 42, px_per_mm[1] * die_mm / 42)
            small = shrunk_photos(real_dir, out / "real_small", photos, factors, seed)
            fit, held = small[: len(small) - real_val_photos], small[-real_val_photos:]
            real_tiles(out / "real_small", real, "train", fit, real_per_photo, size, seed)
            real_tiles(out / "real_small", real, "val", held, 2, size, seed + 1)
        train_list.append(str((real / "images" / "train").resolve()))
        val_list.append(str((real / "images" / "val").resolve()))
    return write_yaml(out, {"train": train_list, "val": val_list})


def train(
    data: Path,
    model: str,
    epochs: int,
    imgsz: int,
    batch: int,
    name: str,
    workers: int,
    resume: bool = False,
    seed: int = 0,
    project: Path = RUNS / "detect",
    cache: str | bool = "ram",
    *,
    lr0: float,
    optimizer: str,
) -> Path:
    """Train (or resume) and return the best checkpoint path; last.pt is saved every epoch.

    `model` is a YAML (from scratch) or a .pt checkpoint to fine-tune from (then use a lower
    `lr0`, e.g. 0.002). `optimizer` "auto" lets ultralytics choose and ignores `lr0` (it picks
    AdamW at 0.001 for runs under 10,000 steps): every shipped detector was trained so; "AdamW" or
    "SGD" keeps `lr0`. The recipe's values (scanner/training/recipes) are `alea train`'s
    defaults; this function has none of its own.
    """
    offline_env()
    from ultralytics import YOLO

    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    if resume and last.exists():
        YOLO(str(last)).train(resume=True, amp=False)
    else:
        YOLO(model).train(
            data=str(data),
            epochs=epochs,
            imgsz=imgsz,
            batch=batch,
            workers=workers,
            project=str(project),
            name=name,
            exist_ok=True,
            amp=False,
            seed=seed,
            deterministic=False,
            pretrained=str(model).endswith(".pt"),
            plots=False,
            cache=cache,
            close_mosaic=max(1, epochs // 5),
            lr0=lr0,
            optimizer=optimizer,
            warmup_epochs=0 if str(model).endswith(".pt") else 1,
            # The renderer already rotates dice and varies colour; dice are symmetric under flips.
            degrees=0.0,
            fliplr=0.5,
            flipud=0.5,
            scale=0.3,
            translate=0.1,
            mosaic=1.0,
            hsv_h=0.02,
            hsv_s=0.5,
            hsv_v=0.4,
            patience=0,
        )
    best = run_dir / "weights" / "best.pt"
    return best if best.exists() else last


def export_onnx(weights: Path, dest: Path, imgsz: int = 640) -> Path:
    """Export to ONNX (pinned opset, dynamic input size) and copy it to `dest`."""
    offline_env()
    from ultralytics import YOLO

    onnx_path = Path(
        YOLO(str(weights)).export(
            format="onnx", opset=OPSET, imgsz=imgsz, dynamic=True, simplify=False
        )
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    if onnx_path.resolve() != dest.resolve():
        shutil.copy(onnx_path, dest)
    return dest
