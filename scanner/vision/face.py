"""Read each found die's top face again, up close: is it a die, how many pips, which colour.

Why a second stage: the detector sees a whole photo at once and must find dice, so its value
head works with a few pixels per pip and little capacity per die, and colour is not its job.
Chess-recognition systems (chesscog) find squares first and then classify each square's crop for
good reason: a crop classifier sees every die at one size and orientation-free, can be trained on
far more dice than whole images, and can reject what the detector mistook for a die (a pip-less
cube, a coin, a fingertip). So the detector proposes boxes at a low threshold, and this reader
decides.

The reader is a small CNN (ONNX, onnxruntime only) over a `CROP`×`CROP` square around each box
(side `MARGIN`× the box's longer side, so the whole top face and a little of its surroundings
show whatever the die's size), plus sixteen numbers about the scene's light (`scene_light`).
Grey, brown and yellow drift into each other under warm light; the network sees both the crop and
the light it was taken under, and divides one by the other itself (the division is in the graph).

Output per die: P(die), six value probabilities, six colour probabilities (the five player
colours, then `other`). Trained by scanner.training.face_train on rendered dice and real photo dice.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from scanner.errors import InputError
from scanner.rules.components import PLAYER_COLORS
from scanner.shipped import shipped

DEFAULT_FACE_MODEL = shipped("models/face.onnx")
# The reader for photos (`alea dice`, the photo rows of `alea eval`): the table's reader with a
# die-or-not branch of its own taught keyboards, tiles and cards (scanner.training.face_model's
# `gate`). Its values and colours are the table's reader's; it rejects more of what the wider
# world puts under a camera (model card, "A reader for photos").
PHOTO_FACE_MODEL = shipped("models/photos_face.onnx")
CROP = 40
MARGIN = 1.25
N_LIGHT = 16  # len(scene_light(...))
DICE_LIGHT = slice(10, 13)  # where scene_light keeps the dice's shades-of-grey illuminant
# The colour head's classes: the five player colours, then any other colour (null in JSON).
COLOR_CLASSES: tuple[str, ...] = (*PLAYER_COLORS, "other")


def crop_transform(
    box,
    size: int = CROP,
    margin: float = MARGIN,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
    zoom: float = 1.0,
    flip: bool = False,
) -> np.ndarray:
    """The 2×3 affine taking crop pixels to image pixels for one box (xyxy).

    `angle` (radians), `shift` (fractions of the side), `zoom` and `flip` are augmentations for
    training; at inference they are left at rest. A top-down die reads the same turned any way,
    so rotations are free training data.
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 1.0) * margin / zoom
    cx = (x0 + x1) / 2 + shift[0] * side
    cy = (y0 + y1) / 2 + shift[1] * side
    k = side / size
    c, s = np.cos(angle) * k, np.sin(angle) * k
    fx = -1.0 if flip else 1.0
    # crop (u, v) centred at size/2 -> image: R * diag(fx, 1) * (u - size/2 + 0.5, ...) + centre
    a = np.array([[c * fx, -s], [s * fx, c]])
    off = np.array([cx, cy]) - a @ np.array([size / 2 - 0.5, size / 2 - 0.5])
    return np.hstack([a, off[:, None]])


def face_crops(
    img: np.ndarray, boxes: np.ndarray, size: int = CROP, transforms: list[np.ndarray] | None = None
) -> np.ndarray:
    """(N, size, size, 3) uint8 BGR crops of the dice at `boxes` (xyxy, image pixels)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = np.empty((len(boxes), size, size, 3), np.uint8)
    h, w = img.shape[:2]
    corners = np.array([[0, 0, 1], [size, 0, 1], [0, size, 1], [size, size, 1]], np.float64).T
    for i, box in enumerate(boxes):
        m = transforms[i] if transforms is not None else crop_transform(box, size)
        # Warp from a small region around the crop (not the whole frame), blurred first when
        # shrinking: bilinear sampling alone would alias a 4-pixel pip away.
        pts = m @ corners
        rx0, ry0 = (int(max(0, np.floor(pts[k].min()) - 3)) for k in (0, 1))
        rx1, ry1 = int(min(w, np.ceil(pts[0].max()) + 4)), int(min(h, np.ceil(pts[1].max()) + 4))
        if rx1 <= rx0 or ry1 <= ry0:  # a box wholly outside the image: nothing to read
            out[i] = 114
            continue
        region = img[ry0:ry1, rx0:rx1]
        factor = np.hypot(m[0, 0], m[1, 0])
        if factor > 1.3:
            region = cv2.GaussianBlur(region, (0, 0), 0.45 * factor)
        m_roi = m.copy()
        m_roi[:, 2] -= (rx0, ry0)
        out[i] = cv2.warpAffine(
            region,
            m_roi,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return out


def illuminant(small: np.ndarray) -> np.ndarray:
    """Shades-of-grey estimate of the light (BGR, 0..1; Minkowski p = 6) over a thumbnail of the
    scene: its colour and its brightness."""
    return _shades_of_grey(small.reshape(-1, 3).astype(np.float64) / 255.0)


def _shades_of_grey(x: np.ndarray) -> np.ndarray:
    """Minkowski p = 6 mean per channel of (N, 3) values in 0..1 (x⁶ by multiplying, which is
    much cheaper than np.power on every pixel of every frame)."""
    x2 = x * x
    return np.power(np.mean(x2 * x2 * x2, axis=0), 1 / 6) + 1e-6


def white_level(small: np.ndarray) -> float:
    """Lab lightness (0..1) of the scene's whites: the 98th percentile of a thumbnail.

    A white die and a grey one differ in how close they come to the brightest surfaces around,
    not in absolute brightness, which follows the exposure.
    """
    lum = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)[..., 0].astype(np.float64) / 255.0
    return float(np.quantile(lum, 0.98)) + 1e-3


def dice_light(crops: np.ndarray) -> np.ndarray:
    """Shades-of-grey illuminant and mean colour (BGR, 0..1) over the middles of all the dice
    proposed in a scene (`face_crops` at rest), six numbers.

    Why the dice and not only the whole frame: the surface under them is often a coloured cloth
    or a tinted print, and a frame-wide estimate takes its colour for the light's. The dice are
    many small objects of many colours with white pips and glints, a far better grey world. On
    the 200 rendered validation scenes, this estimate followed the light's true warmth
    (log red/blue gain) with correlation 0.84, against 0.54 for the frame-wide shades-of-grey,
    and its green tint with 0.63 against 0.23; in two of the eight scenes whose colours the
    reader got wrong, the frame-wide estimate called a cool light warm.
    """
    middle = slice(crops.shape[1] // 4, crops.shape[1] - crops.shape[1] // 4)  # the top face
    x = crops[:, middle, middle].reshape(-1, 3).astype(np.float64) / 255.0
    return np.array([*_shades_of_grey(x), *x.mean(0)])


def scene_light(
    img: np.ndarray, crops: np.ndarray | None = None, paper: bool = False
) -> np.ndarray:
    """The reader's sixteen numbers about the scene's light (BGR, 0..1): over one 64×64
    thumbnail (resizing the frame is the costly part, so it is done once) the shades-of-grey
    illuminant, the whites' lightness, the grey-world mean and the brightest percentile; then
    `dice_light` over `crops`, the scene's proposed dice cut at rest (without any, the frame's
    illuminant and mean stand in).

    `paper`: `img` is a rectified board, nearly all white paper, so its shades-of-grey colour is
    the light's; it then stands in for the dice's colour (their brightness kept), the colour
    the network divides each crop by. The dice are a poor grey world on a board: a game of
    blue and green players has mostly blue and green dice, and dividing by their colour made
    blue dice grey. The shipped reader learnt with the dice's colour there (its training cuts
    crops as before); the paper's was chosen on validation boards (model card).

    Several estimates of the light because each fails somewhere: grey-world on a coloured
    cloth, shades-of-grey on a scene without whites, the brightest pixels under a glint, the
    dice when there are few or they are all of one colour; the network learns which to believe
    from the renders' random light and white balance.
    """
    small = cv2.resize(img, (64, 64), interpolation=cv2.INTER_AREA)
    x = small.reshape(-1, 3).astype(np.float32) / 255.0
    sog, mean = illuminant(small), x.mean(0)
    dice = dice_light(crops) if crops is not None and len(crops) else np.array([*sog, *mean])
    if paper:
        dice[:3] = sog * (dice[:3].mean() / sog.mean())
    return np.array(
        [*sog, white_level(small), *mean, *np.quantile(x, 0.99, axis=0), *dice], np.float32
    )


def to_blob(crops: np.ndarray) -> np.ndarray:
    """uint8 (N, S, S, 3) BGR -> float32 (N, 3, S, S) in 0..1, the network's input."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class FaceReader:
    """Load the reader's ONNX once, then `read(img, boxes)` as often as needed."""

    def __init__(
        self,
        model: str | os.PathLike = DEFAULT_FACE_MODEL,
        threads: int | None = None,
        turns: int = 1,
    ) -> None:
        from scanner.vision.runtime import open_session

        self.model = str(model)  # which reader, for the figures that name it
        self.session = open_session(model, threads, "face reader model", "$.face")
        inputs = {i.name: i.shape for i in self.session.get_inputs()}
        if set(inputs) != {"crop", "light"} or inputs["light"][1:] != [N_LIGHT]:
            # Another model (the detector's ONNX given as --face, a reader exported for other
            # light numbers) would fail inside onnxruntime at the first die: say so up front.
            raise InputError(
                "model.unreadable",
                f"{model} is not a face reader for this version: it takes "
                f"{inputs}, not crop (N, 3, {CROP}, {CROP}) and light "
                f"(N, {N_LIGHT}); retrain it with `alea train --stage face` or use "
                "the shipped models/face.onnx",
                "$.face",
            )
        shape = inputs["crop"]
        self.size = int(shape[2]) if isinstance(shape[2], int) else CROP
        self.turns = turns
        # What its readings' scores mean (scanner.vision.certainty), when fitted for it.
        from scanner.vision import certainty

        self.certainty = certainty.load(model)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike = DEFAULT_FACE_MODEL,
        threads: int | None = None,
        turns: int = 1,
    ):
        """The shipped reader, or None when there is none (the detector then reads alone)."""
        return cls(path, threads, turns) if Path(path).is_file() else None

    def read(
        self,
        img: np.ndarray,
        boxes: np.ndarray,
        others: np.ndarray | None = None,
        paper: bool = False,
    ):
        """(P(die) (N,), value probabilities (N, 6), colour probabilities (N, 6)).

        `boxes` should be every box the detector proposed in `img`, as in training: the light
        is read off all of them (`scene_light`). When only some are to be read (a board read
        again where it changed), `others` are the rest of the board's dice: they count for
        the light and are not read. `paper`: `img` is a rectified board, whose paper gives the
        light's colour (`scene_light`).
        """
        boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
        if not len(boxes):
            return np.zeros(0), np.zeros((0, 6)), np.zeros((0, len(COLOR_CLASSES)))
        crops = face_crops(img, boxes, self.size)
        rest = np.asarray(others if others is not None else [], np.float64).reshape(-1, 4)
        light = scene_light(img, np.concatenate([crops, face_crops(img, rest, self.size)]), paper)
        blob = to_blob(crops)
        # `turns` > 1 also reads the crop turned by quarter turns (exact, no resampling) and
        # averages: a die reads the same any way up, the network's small mistakes do not.
        n = len(boxes)
        blob = np.concatenate([np.rot90(blob, k, axes=(2, 3)) for k in range(self.turns)])
        scene = np.repeat(light[None], len(blob), 0).astype(np.float32)
        die, value, color = self.session.run(
            None, {"crop": np.ascontiguousarray(blob), "light": scene}
        )
        die, value, color = (a.reshape(self.turns, n, -1).mean(0) for a in (die, value, color))
        return (
            die.reshape(-1).astype(np.float64),
            value.astype(np.float64),
            color.astype(np.float64),
        )


def color_names(p_color: np.ndarray, min_prob: float = 0.5) -> list[str | None]:
    """Colour probabilities -> a player colour, or None for `other` or an unsure reading."""
    out: list[str | None] = []
    for row in np.asarray(p_color).reshape(-1, len(COLOR_CLASSES)):
        k = int(row.argmax())
        out.append(COLOR_CLASSES[k] if COLOR_CLASSES[k] != "other" and row[k] >= min_prob else None)
    return out
