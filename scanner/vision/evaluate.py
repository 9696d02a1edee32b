"""The figures table: per-die recall, precision, value and colour accuracy, fully-right images.

A prediction matches a labelled die when their boxes overlap with IoU >= 0.5 (greedy, best IoU
first, one-to-one). Value and colour accuracy are over matched dice; an image is "fully right"
when every die is found with the right value (and colour, where colours are labelled) and
nothing else is reported; "right but colour" drops the colour condition, which says how many
images colour alone keeps from being right. Labels are YOLO files (class = value - 1);
synthetic datasets add colors/ sidecars, where a colour outside the five players' means the
right answer is null.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scanner.rules.components import PLAYER_COLORS
from scanner.vision.boxes import iou_matrix


@dataclass
class Tally:
    """Running counts for one test set."""

    name: str
    images: int = 0
    truth: int = 0
    predicted: int = 0
    matched: int = 0
    value_ok: int = 0
    color_total: int = 0
    color_ok: int = 0
    images_right: int = 0
    values_right: int = 0  # images right if colour were not asked
    ms: list[float] = field(default_factory=list)

    def add(
        self, boxes: np.ndarray, values: np.ndarray, colors: list | None, dice, pairs=None
    ) -> None:
        """Count one image: its labelled dice (boxes, values, colours or None) against `dice`,
        matched by box overlap unless the (label, reading) `pairs` are given."""
        pairs = match(boxes, dice.xyxy) if pairs is None else pairs
        self.images += 1
        self.truth += len(values)
        self.predicted += len(dice)
        self.matched += len(pairs)
        values_ok = colors_ok = len(pairs) == len(values) == len(dice)
        for i, j in pairs:
            v_ok = int(dice.value[j]) == int(values[i])
            self.value_ok += v_ok
            values_ok &= v_ok
            if colors is not None:
                c_ok = dice.color[j] == colors[i]
                self.color_total += 1
                self.color_ok += c_ok
                colors_ok &= c_ok
        self.values_right += bool(values_ok)
        self.images_right += bool(values_ok and colors_ok)

    def row(self) -> dict:
        def pct(a: int, b: int) -> float | None:
            return round(100.0 * a / b, 2) if b else None

        return {
            "set": self.name,
            "images": self.images,
            "dice": self.truth,
            "recall": pct(self.matched, self.truth),
            "precision": pct(self.matched, self.predicted),
            "value_acc": pct(self.value_ok, self.matched),
            "color_acc": pct(self.color_ok, self.color_total),
            "images_right": pct(self.images_right, self.images),
            "right_but_colour": pct(self.values_right, self.images),
            "median_ms": round(float(np.median(self.ms)), 1) if self.ms else None,
        }


def images_in(folder: Path) -> list[Path]:
    """The JPEG and PNG files of a folder, in name order."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".png"))


def match(truth: np.ndarray, pred: np.ndarray, thr: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by IoU (best first); pairs (truth index, pred index)."""
    if not len(truth) or not len(pred):
        return []
    iou = iou_matrix(truth, pred)
    pairs: list[tuple[int, int]] = []
    for flat in np.argsort(-iou, axis=None):
        i, j = divmod(int(flat), iou.shape[1])
        if iou[i, j] < thr:
            break
        if all(i != a and j != b for a, b in pairs):
            pairs.append((i, j))
    return pairs


def read_truth(label: Path, colors: Path | None, w: int, h: int):
    rows = (
        [ln.split() for ln in label.read_text().splitlines() if ln.strip()]
        if label.exists()
        else []
    )
    r = np.array(rows, np.float64).reshape(-1, 5)
    boxes = np.stack(
        [
            (r[:, 1] - r[:, 3] / 2) * w,
            (r[:, 2] - r[:, 4] / 2) * h,
            (r[:, 1] + r[:, 3] / 2) * w,
            (r[:, 2] + r[:, 4] / 2) * h,
        ],
        1,
    )
    values = r[:, 0].astype(int) + 1
    names: list[str | None] | None = None
    if colors is not None and colors.exists():
        lines = [ln.strip() for ln in colors.read_text().splitlines() if ln.strip()]
        names = [n if n in PLAYER_COLORS else None for n in lines]
    return boxes, values, names


def evaluate(
    detector,
    images_dir: Path,
    labels_dir: Path,
    name: str,
    colors_dir: Path | None = None,
    limit: int | None = None,
) -> Tally:
    """Run `detector` over a labelled image folder and tally the figures."""
    from scanner.vision.detect import load_image

    tally = Tally(name)
    for path in tqdm(images_in(images_dir)[:limit], desc=f"eval {name}", disable=None):
        img = load_image(path)
        h, w = img.shape[:2]
        tb, tv, tc = read_truth(
            labels_dir / f"{path.stem}.txt",
            colors_dir / f"{path.stem}.txt" if colors_dir else None,
            w,
            h,
        )
        t0 = time.perf_counter()
        dice = detector.detect(img)
        tally.ms.append((time.perf_counter() - t0) * 1000)
        tally.add(tb, tv, tc, dice)
    return tally


def format_table(rows: list[dict]) -> str:
    """A fixed-width text table, one row per test set (the MODEL_CARD's table)."""
    cols = [
        "set",
        "images",
        "dice",
        "recall",
        "precision",
        "value_acc",
        "color_acc",
        "images_right",
        "right_but_colour",
        "median_ms",
    ]
    cols += [
        c for c in ("color_acc_white_pips", "color_acc_black_pips") if any(c in r for r in rows)
    ]
    text = [list(cols)] + [["-" if r.get(c) is None else str(r[c]) for c in cols] for r in rows]
    widths = [max(len(t[i]) for t in text) for i in range(len(cols))]
    return "\n".join("  ".join(t[i].ljust(widths[i]) for i in range(len(cols))) for t in text)


def markdown_table(rows: list[dict], first: str = "set") -> str:
    """The rows as the model card's markdown tables, for the benchmarks to print; `first`
    heads the column of the rows' names."""
    keys = (
        "set",
        "recall",
        "precision",
        "value_acc",
        "color_acc",
        "images_right",
        "right_but_colour",
    )
    head = (first, "recall", "precision", "value", "colour", "images right", "right but colour")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [
        "| " + " | ".join("-" if r[k] is None else str(r[k]) for k in keys) + " |" for r in rows
    ]
    return "\n".join(lines)
