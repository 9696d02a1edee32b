"""Figures on labelled table frames from a renderer that is not ours: the whole `alea scan` path.

A table set is a folder of scenes, each a game frame `NNNN.png` with its labels `NNNN.json` and,
optionally, a reference frame `NNNN_ref.png` (one die of each seated colour on its swatch
square, same camera and light). Labels: every die's value, player colour (null for a die of no
player's colour), pip colour and centre on the sheet in board mm (benchmarks/blender/README.md).

Each frame is read as `alea scan` reads it (markers → rectify → detect → read), once with the
reader's own colours and, where a reference frame exists, once with the palette learnt from it
(`alea palette`). A reading matches a labelled die when their board positions are within half a
die (greedy, nearest first, one to one); dice whose centre lies off the sheet are not counted (the
board is the sheet). Colour accuracy is also split by pip colour, since the colour must not
depend on it.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scanner.vision.calibrate import BoardNotFound, calibrate
from scanner.vision.dice import Dice
from scanner.vision.evaluate import Tally
from scanner.vision.layout import Layout, default_layout
from scanner.vision.palette import Palette
from scanner.vision.scan import Detect, learn_colors, scan_image


@dataclass
class TableTally(Tally):
    """A Tally with colour right split by the labelled die's pip colour, and board failures."""

    by_pip: Counter = field(default_factory=Counter)
    no_board: int = 0

    def row(self) -> dict:
        row = super().row()
        for pip in ("white", "black"):
            n = self.by_pip[(pip, "n")]
            row[f"color_acc_{pip}_pips"] = (
                round(100.0 * self.by_pip[(pip, "ok")] / n, 2) if n else None
            )
        row["no_board"] = self.no_board
        return row


def pairs_by_position(truth_mm: np.ndarray, seen_mm: np.ndarray, reach: float) -> list:
    """Greedy one-to-one matching of labelled to read dice by board distance (nearest first)."""
    if not len(truth_mm) or not len(seen_mm):
        return []
    d = np.linalg.norm(truth_mm[:, None, :] - seen_mm[None, :, :], axis=2)
    pairs, used_t, used_s = [], set(), set()
    for flat in np.argsort(d, axis=None):
        i, j = np.unravel_index(flat, d.shape)
        if d[i, j] > reach:
            break
        if i not in used_t and j not in used_s:
            pairs.append((int(i), int(j)))
            used_t.add(i)
            used_s.add(j)
    return pairs


def load_scene(label: Path) -> dict:
    return json.loads(label.read_text(encoding="utf-8"))


def on_sheet(die: dict, layout: Layout) -> bool:
    c = die.get("center_mm")
    return c is not None and 0 <= c[0] <= layout.width and 0 <= c[1] <= layout.height


def evaluate_tables(
    folder: Path, detect: Detect, name: str, limit: int | None = None
) -> list[TableTally]:
    """Tallies over a table set: the reader's colours, and (with reference frames) the palette's."""
    from scanner.vision.detect import load_image

    layout = default_layout()
    reader, table = TableTally(f"{name}, reader colours"), TableTally(f"{name}, table palette")
    labels = sorted(p for p in folder.glob("*.json") if not p.stem.endswith("_ref"))[:limit]
    for label in tqdm(labels, desc=f"eval {name}", disable=None):
        scene = load_scene(label)
        image = load_image(folder / scene["image"])
        truth = [d for d in scene["dice"] if on_sheet(d, layout)]
        palette = None
        ref = folder / f"{label.stem}_ref.png"
        if ref.exists():
            palette = _reference(load_image(ref), layout, detect)
        for tally, pal in ((reader, None), (table, palette)):
            if tally is table and palette is None:
                continue
            _count(tally, image, truth, layout, detect, pal)
    return [t for t in (reader, table) if t.images]


def _reference(image: np.ndarray, layout: Layout, detect: Detect) -> Palette | None:
    try:
        cal = calibrate(image, layout)
    except BoardNotFound:
        return None
    palette, taken = learn_colors(cal.rectify(image), cal, detect)
    return palette if taken else None


def _count(
    tally: TableTally,
    image: np.ndarray,
    truth: list[dict],
    layout: Layout,
    detect: Detect,
    palette: Palette | None,
) -> None:
    import time

    try:
        cal = calibrate(image, layout)
    except BoardNotFound:
        tally.no_board += 1
        cal = None
    t0 = time.perf_counter()
    dice = Dice.empty()
    if cal is not None:
        dice = scan_image(image, replace(cal, palette=palette), detect).dice
    tally.ms.append((time.perf_counter() - t0) * 1000)
    truth_mm = np.array([d["center_mm"] for d in truth], np.float64).reshape(-1, 2)
    seen_mm = dice.data.get("center_mm", np.zeros((0, 2)))
    pairs = pairs_by_position(truth_mm, seen_mm, layout.die_size / 2)
    read = replace(dice.bare(), xyxy=dice.image_boxes())
    tally.add(
        np.zeros((len(truth), 4)),
        np.array([d["value"] for d in truth], int),
        [d["color"] for d in truth],
        read,
        pairs,
    )
    for i, j in pairs:
        pip = truth[i].get("pip")
        if truth[i]["color"] is not None and pip in ("white", "black"):
            tally.by_pip[(pip, "n")] += 1
            tally.by_pip[(pip, "ok")] += read.color[j] == truth[i]["color"]
