"""Train the face reader (scanner.vision.face) with torch and export it to ONNX (extra `train`).

Data, all cut by the same `face_crops` the runtime uses, so training and inference see dice
alike:

- rendered scenes (`alea synth` scenes at the test set's 640 px, 4–40 dice): value and colour
  labels exact by construction;
- the real photos of `photos_a/train` (never `test/`): value labels only, colour unknown (its
  loss is masked), each die cut many times turned and shifted because there are few of them;
- negatives: what the shipped detector reports at a low threshold that is no die (pip-less cubes,
  coins, shadows, dice halves at a crop's edge), so the reader learns to reject them, and a few
  squares of bare surface from each training image.

Positives are cut around both the labelled box (jittered) and the box the detector actually
gives, so the reader is used to the detector's box errors. Steps are cached: the crop arrays are
written once (`crops_train.npz`), the model checkpoints every epoch and a re-run resumes.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scanner.training.detector import OPSET
from scanner.vision.evaluate import images_in, iou_matrix, read_truth
from scanner.vision.face import (
    COLOR_CLASSES,
    CROP,
    DICE_LIGHT,
    N_LIGHT,
    crop_transform,
    face_crops,
    scene_light,
)

REPO = Path(__file__).resolve().parents[2]
RUNS = REPO / "runs" / "face"
FIELDS = ("crops", "light", "die", "value", "color")


@dataclass
class CropSet:
    """Training rows: crops (N, S, S, 3) uint8, light (N, N_LIGHT), die 0/1, value 0..5 or -1,
    color index into COLOR_CLASSES or -1 (unknown)."""

    crops: np.ndarray
    light: np.ndarray
    die: np.ndarray
    value: np.ndarray
    color: np.ndarray

    @classmethod
    def concat(cls, parts: list[CropSet]) -> CropSet:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **{f: getattr(self, f) for f in FIELDS})
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> CropSet:
        with np.load(path) as z:
            return cls(*(z[f] for f in FIELDS))

    def __len__(self) -> int:
        return len(self.die)


def _jitter(rng: np.random.Generator, box, strong: bool) -> np.ndarray:
    s = 0.08 if strong else 0.04
    return crop_transform(
        box,
        CROP,
        angle=float(rng.uniform(0, 2 * np.pi)),
        shift=(float(rng.normal(0, s)), float(rng.normal(0, s))),
        zoom=float(np.exp(rng.normal(0, 0.08 if strong else 0.05))),
        flip=bool(rng.random() < 0.5),
    )


# Bare-surface squares cut as negatives from each training image. The detector rarely proposes
# plain cloth or wood, so its proposals alone never taught the reader that these are no die: a
# reader trained without them read P(die) ~0.5 on a plain magenta cloth (tests/test_face.py).
SURFACE_NEGATIVES = 2


def surface_boxes(
    rng: np.random.Generator, taken: np.ndarray, h: int, w: int, n: int = SURFACE_NEGATIVES
) -> list[np.ndarray]:
    """Up to `n` die-sized squares (xyxy) with no box of `taken` within half a side."""
    sides = (taken[:, 2:] - taken[:, :2]).max(1) if len(taken) else np.array([40.0])
    out: list[np.ndarray] = []
    for _ in range(25 * n):
        side = float(rng.choice(sides)) * float(rng.uniform(0.9, 1.1))
        if len(out) == n or side >= min(h, w):
            break
        x, y = rng.uniform(0, w - side), rng.uniform(0, h - side)
        g = side / 2
        if (
            not len(taken)
            or (
                (taken[:, 0] > x + side + g)
                | (taken[:, 2] < x - g)
                | (taken[:, 1] > y + side + g)
                | (taken[:, 3] < y - g)
            ).all()
        ):
            out.append(np.array([x, y, x + side, y + side]))
    return out


def crops_from_image(
    img: np.ndarray,
    truth: np.ndarray,
    values: np.ndarray,
    colors: list[int] | None,
    found: np.ndarray,
    rng: np.random.Generator,
    copies: int = 1,
    jitter: bool = True,
) -> CropSet:
    """Positives around each labelled die (its own box and the detector's matching one) and
    negatives at the detector's boxes that overlap no die, `copies` random cuts of each, plus
    `SURFACE_NEGATIVES` squares of bare surface (`surface_boxes`) when training.

    `jitter=False` cuts each once as the runtime will (validation): at the detector's box where
    it found the die, else at the labelled box."""
    # The light as the runtime reads it: the frame and every proposed box cut at rest.
    light = scene_light(img, face_crops(img, found) if len(found) else None)
    boxes, die, value, color = [], [], [], []
    iou = (
        iou_matrix(found, truth)
        if len(found) and len(truth)
        else np.zeros((len(found), len(truth)))
    )
    for i, box in enumerate(truth):
        match = np.flatnonzero(iou[:, i] >= 0.5)
        sources = [box] + [found[j] for j in match[:1]]
        poses = (
            [
                _jitter(rng, sources[k % len(sources)], strong=k % len(sources) == 0)
                for k in range(copies)
            ]
            if jitter
            else [crop_transform(sources[-1])]
        )
        for pose in poses:
            boxes.append(pose)
            die.append(1)
            value.append(int(values[i]) - 1)
            color.append(colors[i] if colors is not None else -1)
    negatives = []
    for j in range(len(found)):
        if len(truth) and iou[j].max() >= 0.25:
            continue
        negatives += (
            [_jitter(rng, found[j], strong=False) for _ in range(copies)]
            if jitter
            else [crop_transform(found[j])]
        )
    if jitter:
        taken = np.concatenate([truth.reshape(-1, 4), found.reshape(-1, 4)])
        negatives += [
            _jitter(rng, box, strong=False) for box in surface_boxes(rng, taken, *img.shape[:2])
        ]
    boxes += negatives
    die += [0] * len(negatives)
    value += [-1] * len(negatives)
    color += [-1] * len(negatives)
    n = len(die)
    crops = (
        face_crops(img, np.zeros((n, 4)), CROP, boxes)
        if n
        else np.zeros((0, CROP, CROP, 3), np.uint8)
    )
    return CropSet(
        crops,
        np.repeat(light[None], n, 0),
        np.array(die, np.int8),
        np.array(value, np.int8),
        np.array(color, np.int8),
    )


def collect(
    paths: list[Path],
    labels_dir: Path,
    colors_dir: Path | None,
    detector,
    copies: int,
    seed: int,
    desc: str = "crops",
    jitter: bool = True,
) -> CropSet:
    """Crops for labelled images (YOLO labels, optional colour sidecars); `detector` proposes
    the boxes the reader will be given at run time (None: labelled boxes only)."""
    from scanner.vision.detect import load_image

    rng = np.random.default_rng(seed)
    parts = []
    for path in tqdm(paths, desc=desc, disable=None):
        img = load_image(path)
        h, w = img.shape[:2]
        tb, tv, tc = read_truth(
            labels_dir / f"{path.stem}.txt",
            colors_dir / f"{path.stem}.txt" if colors_dir else None,
            w,
            h,
        )
        # read_truth names a non-player colour None: that is the colour head's `other`.
        cidx = None if tc is None else [COLOR_CLASSES.index(c or "other") for c in tc]
        found = detector.propose(img) if detector is not None else np.zeros((0, 4))
        parts.append(crops_from_image(img, tb, tv, cidx, found, rng, copies, jitter))
    return CropSet.concat(parts)


def board_crops(boards: int, seed: int, detector, copies: int, jitter: bool = True) -> CropSet:
    """Crops from the rectified board as `alea scan` sees it: whole-table frames of mid-game
    states under random cameras and light (scanner.synth.table), located by their markers and
    rectified, the detector run at the board's own scale as at the table. The player colours
    are known from the state, so these teach colour on the printed board too; each frame's
    dice are a random set (`random_dice`: shades and pips), not the table's own."""
    from scanner.synth.table import mid_game_states, random_dice, render_table
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout

    layout = default_layout()
    rng = np.random.default_rng(seed)
    parts = []
    states = mid_game_states(seed, layout)
    for n in tqdm(range(boards), desc="board crops", disable=None):
        frame = render_table(next(states), (seed, n), layout, dice=random_dice(rng))
        cal = calibrate(frame.image, layout)
        board = cal.rectify(frame.image)
        truth = frame.boxes(lambda p, cal=cal: cal.board_to_rectified(cal.image_to_board(p)))
        values = np.array([d.value for d in frame.dice])
        colors = [COLOR_CLASSES.index(d.player) for d in frame.dice]
        found = detector.propose(board) if detector is not None else np.zeros((0, 4))
        parts.append(crops_from_image(board, truth, values, colors, found, rng, copies, jitter))
    return CropSet.concat(parts)


# ---------------------------------------------------------------- the network


def build_model(width: tuple[int, int, int, int] = (16, 32, 64, 128), n_light: int = N_LIGHT):
    """The reader's CNN; its forward takes (crop 0..1 BGR, light) and returns probabilities."""
    import torch
    from torch import nn

    def block(cin, cout):
        return [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]

    c1, c2, c3, c4 = width

    class FaceNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                # One convolution at full size (the costly one), two at each smaller size:
                # about 14 M multiply-adds a die, ~2 ms of one core to train on.
                *block(6, c1),
                nn.MaxPool2d(2),
                *block(c1, c2),
                *block(c2, c2),
                nn.MaxPool2d(2),
                *block(c2, c3),
                *block(c3, c3),
                nn.MaxPool2d(2),
                *block(c3, c4),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.head = nn.Sequential(
                nn.Linear(c4 + n_light, 128), nn.ReLU(inplace=True), nn.Dropout(0.1)
            )
            self.die = nn.Linear(128, 1)
            self.value = nn.Linear(128, 6)
            self.color = nn.Linear(128, len(COLOR_CLASSES))

        def logits(self, crop, light):
            # The crop as seen and divided by the light's colour as the scene's dice show it
            # (scanner.vision.face.dice_light): the network weighs both.
            gain = light[:, DICE_LIGHT] / light[:, DICE_LIGHT].mean(1, keepdim=True)
            corrected = (crop / gain[:, :, None, None]).clamp(0, 2)
            f = self.features(torch.cat([crop, corrected], 1))
            h = self.head(torch.cat([f, light], 1))
            return self.die(h)[:, 0], self.value(h), self.color(h)

        def forward(self, crop, light):
            d, v, c = self.logits(crop, light)
            return torch.sigmoid(d), torch.softmax(v, 1), torch.softmax(c, 1)

    return FaceNet()


def _batches(data: CropSet, idx: np.ndarray, batch: int, rng, augment: bool):
    import torch

    for k in range(0, len(idx), batch):
        b = idx[k : k + batch]
        crops = data.crops[b]
        if augment:
            # Exact, resampling-free turns and flips on top of the cut-time rotations.
            turn = int(rng.integers(4))
            crops = np.rot90(crops, turn, axes=(1, 2))
            if rng.random() < 0.5:
                crops = crops[:, :, ::-1]
        # (N, S, S, 3) uint8 is already channels-last in memory: permute without a copy.
        x = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255
        if augment:
            # Real dice have no colour label: vary their brightness and contrast freely.
            free = torch.from_numpy(data.color[b] < 0)
            gain = torch.empty(len(b)).uniform_(0.7, 1.3)
            bias = torch.empty(len(b)).uniform_(-0.1, 0.1)
            x = torch.where(
                free[:, None, None, None],
                (x * gain[:, None, None, None] + bias[:, None, None, None]).clamp(0, 1),
                x,
            )
            x = (x + torch.randn_like(x) * float(rng.uniform(0, 0.02))).clamp(0, 1)
        yield (
            x,
            torch.from_numpy(data.light[b]).float(),
            torch.from_numpy(data.die[b].astype(np.float32)),
            torch.from_numpy(data.value[b].astype(np.int64)),
            torch.from_numpy(data.color[b].astype(np.int64)),
        )


def loss_fn(model, x, light, die, value, color):
    import torch.nn.functional as F

    d, v, c = model.logits(x, light)
    loss = F.binary_cross_entropy_with_logits(d, die)
    pos = value >= 0
    if pos.any():
        loss = loss + F.cross_entropy(v[pos], value[pos], label_smoothing=0.02)
    known = color >= 0
    if known.any():
        loss = loss + F.cross_entropy(c[known], color[known], label_smoothing=0.02)
    return loss


def evaluate(model, data: CropSet, batch: int = 512) -> dict:
    """Die/no-die, value and colour accuracy of `model` on a crop set (rest poses)."""
    import torch

    model.eval()
    dp, vp, cp = [], [], []
    with torch.no_grad():
        for x, light, *_ in _batches(data, np.arange(len(data)), batch, None, False):
            d, v, c = model(x, light)
            dp.append(d.numpy())
            vp.append(v.argmax(1).numpy())
            cp.append(c.argmax(1).numpy())
    d, v, c = np.concatenate(dp), np.concatenate(vp), np.concatenate(cp)
    pos, known = data.value >= 0, data.color >= 0

    def pct(ok):
        return round(100.0 * float(np.mean(ok)), 2) if len(ok) else None

    return {
        "die_acc": pct((d >= 0.5) == (data.die == 1)),
        "value_acc": pct(v[pos] == data.value[pos]),
        "color_acc": pct(c[known] == data.color[known]),
    }


def train(
    train_set: CropSet,
    val_sets: dict[str, CropSet],
    name: str,
    epochs: int,
    batch: int = 256,
    lr: float = 3e-3,
    seed: int = 0,
    threads: int | None = None,
    log=print,
) -> Path:
    """Train (or resume runs/face/NAME/last.pt) and return the best checkpoint's path.

    The best epoch is chosen on the validation sets' mean die, value and colour accuracy (never
    on a test split).
    """
    import torch

    # torch's default counts physical cores: on this 2-vCPU machine that is 1, half the speed.
    torch.set_num_threads(threads or len(os.sched_getaffinity(0)))
    torch.manual_seed(seed)
    run = RUNS / name
    run.mkdir(parents=True, exist_ok=True)
    # channels-last convolutions train ~1.6x faster on this CPU (measured).
    model = build_model().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(train_set) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=0.15)
    start, best_score = 0, -1.0
    last = run / "last.pt"
    if last.exists():
        ck = torch.load(last, weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best_score = ck["epoch"] + 1, ck["best"]
    rng = np.random.default_rng(seed + start)
    for epoch in range(start, epochs):
        model.train()
        t0, total, n = time.time(), 0.0, 0
        idx = rng.permutation(len(train_set))
        bar = tqdm(
            _batches(train_set, idx, batch, rng, True),
            total=(len(idx) + batch - 1) // batch,
            desc=f"face epoch {epoch + 1}/{epochs}",
            disable=None,
        )
        for x, light, die, value, color in bar:
            loss = loss_fn(model, x, light, die, value, color)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(x)
            n += len(x)
        figures = {k: evaluate(model, v) for k, v in val_sets.items()}
        score = float(
            np.mean(
                [
                    f[m]
                    for f in figures.values()
                    for m in ("value_acc", "color_acc", "die_acc")
                    if f[m] is not None
                ]
            )
        )
        row = {
            "epoch": epoch + 1,
            "loss": round(total / max(n, 1), 4),
            "seconds": round(time.time() - t0, 1),
            "val": figures,
            "score": round(score, 3),
        }
        log(json.dumps(row))
        with open(run / "log.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")
        if score > best_score:
            best_score = score
            torch.save({"model": model.state_dict(), "epoch": epoch}, run / "best.pt")
        torch.save(
            {
                "model": model.state_dict(),
                "opt": opt.state_dict(),
                "sched": sched.state_dict(),
                "epoch": epoch,
                "best": best_score,
            },
            last,
        )
    return run / "best.pt" if (run / "best.pt").exists() else last


def export_onnx(weights: Path, dest: Path) -> Path:
    """The checkpoint as ONNX (opset 18, dynamic batch): inputs crop (N,3,S,S), light (N,N_LIGHT);
    outputs die (N,), value (N,6), color (N,6)."""
    import torch

    model = build_model()
    model.load_state_dict(torch.load(weights, weights_only=False)["model"])
    model.eval()
    dest.parent.mkdir(parents=True, exist_ok=True)
    args = (torch.zeros(2, 3, CROP, CROP), torch.full((2, N_LIGHT), 0.8))
    # The TorchScript exporter (dynamo=False) needs no onnxscript; it warns that it is legacy.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            args,
            str(dest),
            input_names=["crop", "light"],
            output_names=["die", "value", "color"],
            opset_version=OPSET,
            dynamic_axes={
                "crop": {0: "n"},
                "light": {0: "n"},
                "die": {0: "n"},
                "value": {0: "n"},
                "color": {0: "n"},
            },
            dynamo=False,
        )
    return dest


def real_split(real_dir: Path, val_photos: int = 20) -> tuple[list[Path], list[Path]]:
    """The real train photos cut into (fit, validation): the last `val_photos` are held out,
    the same ones the detector held out (scanner.training.detector.prepare)."""
    photos = sorted((real_dir / "images").glob("*.jpg"))
    return photos[: len(photos) - val_photos], photos[-val_photos:]


def prepare(
    out: Path,
    detector,
    synth_n: int = 4000,
    synth_val: int = 200,
    seed: int = 5,
    real_dir: Path | None = None,
    synth_copies: int = 2,
    real_copies: int = 12,
    boards: int = 400,
    board_val: int = 40,
    board_copies: int = 3,
    hard_n: int = 0,
):
    """Render (once) and cut (once) the reader's data; returns (train set, validation sets).

    Synthetic scenes are like the held-out test set's (640 px, 4–40 dice) but from their own
    seed; the validation scenes use the dataset's derived seed (scanner.synth.dataset).
    """
    from scanner.synth.dataset import renderer_of, write_dataset
    from scanner.synth.scene import RENDERER, photo_config

    synth = out / "synth"
    new_renderer = renderer_of(synth) != RENDERER
    if (synth / "data.yaml").exists() and (new_renderer or _counts(synth) != (synth_n, synth_val)):
        # Drawn by an older renderer, or for another number of scenes: its scenes and the
        # crops cut from them are redone, and after a new renderer the board frames' crops
        # too (scanner.synth.table draws its dice with the same code).
        names = ["train", "val_synth", "val_real"]
        if new_renderer:
            names += ["train_board", "val_board"]
        shutil.rmtree(synth)
        for name in names:
            (out / f"crops_{name}.npz").unlink(missing_ok=True)
    if not (synth / "data.yaml").exists():
        write_dataset(synth, synth_n, seed, synth_val, photo_config())
    for cached in out.glob("crops_*.npz"):
        with np.load(cached) as z:
            stale = z["light"].shape[1] != N_LIGHT
        if stale:  # cut for a reader that took other light numbers (scanner.vision.face)
            cached.unlink()
    fit, held = real_split(real_dir) if real_dir is not None else ([], [])
    sets = {}
    for name, split, real, copies, jitter in (
        ("train", "train", fit, (synth_copies, real_copies), True),
        ("val_synth", "val", [], (1, 1), False),
        ("val_real", None, held, (1, 1), False),
    ):
        path = out / f"crops_{name}.npz"
        if not path.exists():
            parts = []
            if split is not None:
                parts.append(
                    collect(
                        images_in(synth / "images" / split),
                        synth / "labels" / split,
                        synth / "colors" / split,
                        detector,
                        copies[0],
                        seed,
                        f"{name} rendered",
                        jitter,
                    )
                )
            if real:
                parts.append(
                    collect(
                        real,
                        real_dir / "labels",
                        None,
                        detector,
                        copies[1],
                        seed + 1,
                        f"{name} real",
                        jitter,
                    )
                )
            if not parts:  # no real photos given: no real validation set
                continue
            CropSet.concat(parts).save(path)
        sets[name] = CropSet.load(path)
    # Board frames: a seed apart from the table benchmarks' (eval_table starts at 9000).
    for name, n, board_seed, copies, jitter in (
        ("train_board", boards, seed + 100, board_copies, True),
        ("val_board", board_val, seed + 200, 1, False),
    ):
        path = out / f"crops_{name}.npz"
        if n and not path.exists():
            board_crops(n, board_seed, detector_at_board_scale(detector), copies, jitter).save(path)
        if path.exists():
            sets[name] = CropSet.load(path)
    if hard_n:
        sets["train_hard"] = hard_negatives(
            out / "hard", out / "crops_train_hard.npz", hard_n, seed + 300, detector, synth_copies
        )
    train_set = sets.pop("train")
    for extra in ("train_board", "train_hard"):
        if extra in sets:
            train_set = CropSet.concat([train_set, sets.pop(extra)])
    return train_set, sets


def hard_negatives(out: Path, cached: Path, n: int, seed: int, detector, copies: int) -> CropSet:
    """Crops of `n` extra training scenes crowded with what the reader most often takes for a
    die: pip-less cubes, most of them swirled, and printed cards. Their real dice are cut as
    positives as usual. Rendered (into `out`) and cut (into `cached`) once, like the other
    sets."""
    from scanner.synth.dataset import renderer_of, write_dataset
    from scanner.synth.scene import RENDERER, photo_config

    if cached.exists() and renderer_of(out) == RENDERER and _counts(out) == (n, 0):
        return CropSet.load(cached)
    if out.exists():
        shutil.rmtree(out)
    write_dataset(
        out,
        n,
        seed,
        0,
        photo_config(blank_cube_share=0.3, blank_marble_share=0.6, distractors=(2, 5)),
    )
    crops = collect(
        images_in(out / "images" / "train"),
        out / "labels" / "train",
        out / "colors" / "train",
        detector,
        copies,
        seed,
        "hard negatives",
        True,
    )
    crops.save(cached)
    return crops


def _counts(synth: Path) -> tuple[int, int]:
    """How many train and validation scenes a rendered set on disk holds."""
    return tuple(
        len(images_in(synth / "images" / split)) if (synth / "images" / split).is_dir() else 0
        for split in ("train", "val")
    )


def detector_at_board_scale(detector):
    """The same detector, run at the rectified board's own scale as `alea scan` runs it."""
    if detector is None:
        return None
    import copy

    board = copy.copy(detector)
    board.imgsz = 0
    return board
