"""The face reader's training rows (CropSet) and how they are cut from labelled images.

Every crop is cut by the runtime's own `face_crops`, so training and inference see dice alike.
Positives are cut around both the labelled box (jittered) and the box the detector actually
gives, so the reader is used to the detector's box errors; negatives are what the detector
proposes that is no die, and squares of bare surface. Which images these come from, and their
caching on disk, is scanner.training.face_sets's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scanner.synth.table import (
    MAX_TILT_DEG,
    PIPS,
    emblem_set,
    mid_game_states,
    random_dice,
    render_table,
)
from scanner.vision.boxes import iou_matrix
from scanner.vision.evaluate import read_truth
from scanner.vision.face import COLOR_CLASSES, CROP, crop_transform, face_crops, scene_light

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


def board_crops(
    boards: int,
    seed: int,
    detector,
    copies: int,
    jitter: bool = True,
    sheen: float = 0.0,
    shades: str = "game",
    glare: float = 0.0,
    max_tilt: float = MAX_TILT_DEG,
    others: int = 0,
    logo_sixes: float = 0.0,
) -> CropSet:
    """Crops from the rectified board as `alea scan` sees it: whole-table frames of mid-game
    states under random cameras and light (scanner.synth.table), located by their markers and
    rectified, the detector run at the board's own scale as at the table. The player colours
    are known from the state, so these teach colour on the printed board too; each frame's
    dice are a random set (`random_dice`: shades and pips), not the table's own. With `sheen`,
    each frame mirrors a ceiling lamp in the dice's glossy tops, up to a random share of it
    (render_table's `sheen`): a die's body then reads paler in one patch of the board, as
    under a real lamp; 0 draws the frames of before, number for number. With `glare`, half the
    frames mirror a lamp wider than a die across whole top faces (render_table's `glare`), up
    to a random share of it: the pale glossy faces the Blender tables showed (model card).
    `shades` names the dice's ranges (scanner.synth.dice.SHADE_CHOICES); `max_tilt` how far the
    cameras may lean, in degrees. With `others`, each
    frame holds up to that many dice of no player's colour anywhere on the sheet (`other_dice`),
    labelled `other`: without them a reader taught on boards alone forgets that class.
    `logo_sixes` of the frames' sets print a maker's emblem on every six (`emblem_set`)."""
    from scanner.synth.arrange import lay_out
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout

    layout = default_layout()
    rng = np.random.default_rng(seed)
    parts = []
    states = mid_game_states(seed, layout)
    for n in tqdm(range(boards), desc="board crops", disable=None):
        dice = random_dice(rng, shades=shades)
        state = next(states)
        if others:
            dice = other_dice(rng, dice, lay_out(state, layout, (seed, n)), layout, others)
        dice = emblem_set(dice, (seed, n), logo_sixes)
        lamp = float(sheen * rng.uniform(0, 1)) if sheen else 0.0
        wide = float(glare * rng.uniform(0, 1)) if glare and rng.uniform() < 0.5 else 0.0
        frame = render_table(
            state, (seed, n), layout, dice=dice, sheen=lamp, glare=wide, max_tilt=max_tilt
        )
        cal = calibrate(frame.image, layout)
        board = cal.rectify(frame.image)
        truth = frame.boxes(lambda p, cal=cal: cal.board_to_rectified(cal.image_to_board(p)))
        values = np.array([d.value for d in frame.dice])
        colors = [COLOR_CLASSES.index(_class(d.player)) for d in frame.dice]
        found = detector.propose(board) if detector is not None else np.zeros((0, 4))
        parts.append(crops_from_image(board, truth, values, colors, found, rng, copies, jitter))
    return CropSet.concat(parts)


def _class(name: str) -> str:
    """A drawn die's colour class: its player colour, or `other`."""
    return name if name in COLOR_CLASSES else "other"


def other_dice(rng: np.random.Generator, dice, laid: list, layout, most: int):
    """`dice` (a DiceSet) with 0 to `most` loose dice of no player's colour, each at a random
    point of the sheet at least a die and a quarter from every die in `laid` and from the
    others, and clear of the markers (the board must still be found)."""
    from dataclasses import replace

    from scanner.synth.arrange import TrueDie
    from scanner.synth.dice import OTHER_COLORS, other_colors

    names = other_colors("wide")  # no lime: a player may call a lime die green
    taken = [(d.x, d.y) for d in laid]
    gap = layout.die_size * 1.25
    loose, bodies, pips = [], dict(dice.bodies), dict(dice.pips)
    for _ in range(int(rng.integers(most + 1))):
        x = rng.uniform(gap, layout.width - gap, 40)
        y = rng.uniform(gap, layout.height - gap, 40)
        ok = np.ones(40, bool)
        for mx, my, side in layout.markers.values():
            ok &= (abs(x - mx) > side / 2 + gap) | (abs(y - my) > side / 2 + gap)
        for tx, ty in taken:
            ok &= np.hypot(x - tx, y - ty) > gap
        if not ok.any():
            continue
        k = int(np.argmax(ok))
        name = str(rng.choice(names))
        yaw = float(rng.uniform(0, 2 * np.pi))
        loose.append(TrueDie(name, int(rng.integers(1, 7)), "loose", float(x[k]), float(y[k]), yaw))
        taken.append((float(x[k]), float(y[k])))
        bodies[name] = OTHER_COLORS[name]
        pips[name] = PIPS[int(rng.integers(2))]
    return replace(dice, bodies=bodies, pips=pips, loose=tuple(loose))
