"""Dice detection with onnxruntime: letterbox, forward, decode, NMS, boxes back to the photo.

No torch at run time. The exported YOLO head gives (1, 4 + 6, N): per anchor a box (cx, cy, w, h)
in network pixels and one score per die value; we keep the best value per anchor, threshold,
run class-agnostic NMS (two dice never overlap much, so two values on one die must compete),
then undo the letterbox. The face reader (scanner.vision.face) then reads every proposed box up
close: it keeps or drops it, and gives the value and the player colour.

The network input keeps the photo's aspect ("rect" letterbox to a multiple of 32), so a 1280×720
frame costs a 640×384 forward, not 640×640. `imgsz` is the long side the photo is scaled to: the
detector was trained with dice ~26–56 px at that scale. `imgsz=0` keeps the photo's own scale,
which is right for the rectified table view (made at the training scale on purpose). The
default 640 was chosen with the face reader on the validation sets (the model card's
"Detector"): the reader reads values from the photo's own pixels, so a larger network input
gains nothing there and costs time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from scanner.shipped import shipped
from scanner.vision.boxes import box_areas, box_sides, intersection_matrix, iou_matrix
from scanner.vision.dice import Dice

# The detector at the table: the rectified board, read at its own scale (`alea scan`, the live
# loop, the board's tables in `alea eval`).
DEFAULT_MODEL = shipped("models/dice.onnx")
# The detector for dice anywhere in photos (`alea dice`, the photo rows of `alea eval`): the
# table's detector fine-tuned on the wider world's scenes as well (keyboards, cards, grids,
# wood, close-ups, leaning cameras). Two, because on validation each was the better one on its
# own kind of picture (model card, "Detector v4").
PHOTO_MODEL = shipped("models/photos.onnx")
NUM_VALUES = 6
# Boxes the face reader judges: low, so a die the detector is unsure of still reaches it.
PROPOSE_CONF = 0.1
# Default thresholds: on P(die) from the face reader, or on the detector's own score without it;
# both chosen on validation scenes (benchmarks/tune_face.py; figures in the model card).
READ_CONF, DETECT_CONF = 0.5, 0.35
# A box the detector itself scores at least SURE_DETECT is kept unless the reader is nearly
# sure it is no die (P(die) < SURE_READ). The reader learnt top faces seen from above and doubts
# leaning dice and dice on grounds it never saw, which the detector, trained on the wider
# world, finds; the reader still vetoes what plainly is no die. Chosen on the validation photo
# sets (model card, "The detector's sure boxes").
SURE_DETECT, SURE_READ = 0.5, 0.05
# Quarter-turned readings averaged per die: each turn costs time a die, and past two the
# validation values stopped improving (benchmarks/tune_face.py; the model card).
READ_TURNS = 2
DEFAULT_IMGSZ = 640
# A die the coarse look finds is added when it is at least this big at `imgsz` (px; the detector
# learnt dice of 26–56 px there) and overlaps no die of the fine look by this IoU or more.
COARSE_SIDE, FINE_SEEN = 48.0, 0.3
# A pip is a fifth of its die's side: a box inside one this many times its size is a pip.
PIP_RATIO = 3.0
# A die's box on a finder's crop (`DiceDetector.around`): the crop reaches this far beyond the
# finder's box (px of the image); a box this close to a crop's cut edge may be a cut die.
AROUND_MARGIN, CUT_EDGE = 16, 2
# The network's coarsest stride: crops start on its grid, as the whole image's cells lie.
STRIDE = 32


def load_image(path: str | os.PathLike, where: str = "$") -> np.ndarray:
    """Read any photo as 8-bit BGR; grayscale, alpha and 16-bit images are converted.

    Raises InputError (never a cv2 traceback) for missing, empty, undecodable or huge files.
    """
    from scanner.inputs import read_image_file

    return to_bgr8(read_image_file(path, where))


def to_bgr8(img: np.ndarray) -> np.ndarray:
    """Normalise an array from imdecode/camera to contiguous uint8 BGR."""
    if img.dtype != np.uint8:
        img = img.astype(np.float64)
        top = 65535.0 if img.max() > 255 else 255.0
        img = np.clip(img / top * 255.0, 0, 255).astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    elif img.shape[2] == 1:
        img = cv2.cvtColor(img[..., 0], cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(img)


def letterbox(
    img: np.ndarray, imgsz: int, stride: int = 32, factor: float | None = None
) -> tuple[np.ndarray, float, int, int]:
    """Scale the long side to `imgsz` (0: keep the scale), or by `factor` whatever the size,
    pad to a multiple of `stride` with grey (114), keeping the aspect.

    Returns (padded image, scale, pad_x, pad_y); original = (net - pad) / scale.
    """
    h, w = img.shape[:2]
    scale = factor if factor else imgsz / max(h, w) if imgsz > 0 else 1.0
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    resized = (
        cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        if (nw, nh) != (w, h)
        else img
    )
    pw, ph = (-nw) % stride, (-nh) % stride
    px, py = pw // 2, ph // 2
    out = cv2.copyMakeBorder(
        resized, py, ph - py, px, pw - px, cv2.BORDER_CONSTANT, value=(114, 114, 114)
    )
    return out, scale, px, py


def network_input(images: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) BGR uint8 images as the network takes them: RGB, NCHW, float 0..1."""
    rgb = images[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(rgb, dtype=np.float32) / 255.0


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Greedy non-maximum suppression; returns kept indices, best first."""
    order = np.argsort(-scores)
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        order = rest[iou_matrix(boxes[i : i + 1], boxes[rest])[0] <= iou]
    return np.array(keep, dtype=np.int64)


def holds(boxes: np.ndarray, cover: float = 0.7) -> tuple[np.ndarray, np.ndarray]:
    """([i, j] box i lies mostly (`cover` of its area) inside box j, each box's longer side)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    inside = intersection_matrix(boxes, boxes)  # [i, j]: box i's area inside box j
    return inside >= cover * np.maximum(box_areas(boxes)[:, None], 1e-9), box_sides(boxes)


def big_dice_checked(boxes: np.ndarray, kept: np.ndarray, added: np.ndarray) -> np.ndarray:
    """`kept` less what a coarse look gets wrong. A kept box inside a kept box `PIP_RATIO`
    times its size or more is a pip of a big die that the fine look took for a die; a box the
    coarse look `added` that holds a kept die of less than that ratio is a cluster of dice
    seen as one big die, and the dice in it are what lies there."""
    within, side = holds(boxes)
    ratio = side[None, :] / np.maximum(side[:, None], 1e-9)  # [i, j]: j's size over i's
    pair = within & kept[:, None] & kept[None, :] & ~np.eye(len(boxes), dtype=bool)
    cluster = (pair & (ratio < PIP_RATIO) & added[None, :]).any(axis=0)
    pip = (pair & (ratio >= PIP_RATIO) & ~cluster[None, :]).any(axis=1)
    return kept & ~cluster & ~pip


def decode(output: np.ndarray, conf: float, iou: float, max_det: int = 300, vote_iou: float = 0.6):
    """(1, 4+6, N) head output -> (boxes xyxy in network pixels, values 1..6, scores).

    The value of a kept box is a vote: the score vectors of all candidate anchors overlapping it
    (IoU >= `vote_iou`, score >= conf / 2) summed, weighted by their best score. Neighbouring
    anchors see the die slightly shifted, so their votes read values better than the single best
    anchor on held-out real validation tiles (the model card), at no cost in recall or time.
    """
    if output.ndim != 3 or output.shape[0] != 1 or output.shape[1] != 4 + NUM_VALUES:
        raise ValueError(f"unexpected detector output shape {output.shape}")
    pred = output[0].T  # (N, 10)
    scores_all = pred[:, 4:]
    best = scores_all.max(1)
    m = best >= conf / 2
    pred, scores_all, best = pred[m], scores_all[m], best[m]
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    keep = nms(boxes, best, iou)
    keep = keep[best[keep] >= conf][:max_det]
    if not len(keep):
        return np.zeros((0, 4)), np.zeros(0, np.int64), np.zeros(0)
    overlap = iou_matrix(boxes[keep], boxes)
    votes = ((overlap >= vote_iou) * best[None, :]) @ scores_all
    return boxes[keep], votes.argmax(1) + 1, best[keep]


def face_reader(option: str | None, photos: bool = False) -> str | os.PathLike | bool:
    """A command's --face option as DiceDetector's `reader`: None the shipped one (for `photos`,
    the photo reader where it ships), 'none' off."""
    if option is None:
        from scanner.vision.face import PHOTO_FACE_MODEL

        return PHOTO_FACE_MODEL if photos and PHOTO_FACE_MODEL.is_file() else True
    return False if option.lower() == "none" else option


class DiceDetector:
    """Load the ONNX once, then `detect(image)` any number of photos.

    >>> det = DiceDetector()                      # doctest: +SKIP
    >>> det.detect(cv2.imread("table.jpg"))       # doctest: +SKIP
    """

    def __init__(
        self,
        model: str | os.PathLike = DEFAULT_MODEL,
        imgsz: int = DEFAULT_IMGSZ,
        conf: float | None = None,
        iou: float = 0.45,
        threads: int | None = None,
        colors: bool = True,
        reader: str | os.PathLike | None | bool = True,
        factor: float | None = None,
        coarse: int | None = None,
        finder: DiceDetector | None = None,
        sure: bool = True,
        board: bool = False,
    ) -> None:
        """`factor`, when given, scales every image by it instead of to `imgsz`: a detector
        that learnt the board at a smaller scale than it is rectified at (load_detector).
        `coarse`, when given with the face reader and an `imgsz`, is the long side of a second,
        coarser look at the photo, for dice too big for `imgsz` (`_proposals`).
        `finder`, when given with the face reader, is a cheaper detector (the board detector
        on a shrunk board) that finds the dice of a whole image; this one then draws their
        boxes on crops around them (`around`, `_proposals`).
        `sure`: a box the detector is sure of needs less of the reader (`SURE_DETECT`); a
        `conf` given by hand is the only rule. `board`: the images are rectified boards of the
        printed sheet, whose paper shows the light's colour to the reader (`FaceReader.read`)."""
        from scanner.vision.runtime import open_session

        self.model = Path(model)
        self.session = open_session(model, threads, "detector model")
        self.input_name = self.session.get_inputs()[0].name
        shape = self.session.get_inputs()[0].shape
        # A model exported with a fixed size dictates it; a dynamic one takes any multiple of 32.
        self.fixed = isinstance(shape[2], int) and isinstance(shape[3], int)
        self.imgsz = int(shape[3]) if self.fixed else imgsz
        self.factor = None if self.fixed else factor
        self.iou = iou
        # The face reader (scanner.vision.face), when shipped, has the last word on every box.
        # `reader=True`: the shipped one if it is there; a path: that one, which must load.
        self.reader = None
        if reader:
            from scanner.vision.face import FaceReader

            self.reader = (
                FaceReader.load(turns=READ_TURNS, threads=threads)
                if reader is True
                else FaceReader(reader, threads, READ_TURNS)
            )
        self.conf = conf if conf is not None else READ_CONF if self.reader else DETECT_CONF
        self.colors = colors
        usable = self.reader is not None and not self.fixed and not self.factor and self.imgsz
        self.coarse = coarse if coarse and usable and coarse < self.imgsz else None
        at_own_scale = self.reader is not None and not self.fixed and not self.factor
        self.finder = finder if at_own_scale and not self.imgsz else None
        self.sure = sure and conf is None
        self.board = board

    def forward(
        self, img: np.ndarray, imgsz: int | None = None
    ) -> tuple[np.ndarray, float, int, int]:
        """Raw head output for one BGR image, with the letterbox parameters; `imgsz` another
        long side than the detector's own."""
        blob, scale, px, py = self.blob(img, imgsz)
        return self.session.run(None, {self.input_name: blob})[0], scale, px, py

    def blob(self, img: np.ndarray, imgsz: int | None = None) -> tuple[np.ndarray, float, int, int]:
        """The network's input for one BGR image (letterboxed, RGB, NCHW, 0..1), with the
        letterbox parameters; also what int8 calibration feeds (scanner.training.quantize)."""
        if self.fixed:
            boxed, scale, px, py = letterbox(img, self.imgsz)
            h, w = boxed.shape[:2]
            boxed = cv2.copyMakeBorder(
                boxed,
                0,
                self.imgsz - h,
                0,
                self.imgsz - w,
                cv2.BORDER_CONSTANT,
                value=(114, 114, 114),
            )
        else:
            size = self.imgsz if imgsz is None else imgsz
            boxed, scale, px, py = letterbox(img, size, factor=self.factor)
        return network_input(boxed[None]), scale, px, py

    def candidates(self, img: np.ndarray, conf: float | None = None, imgsz: int | None = None):
        """The detector's own boxes (xyxy, the image's pixels), values and scores at `conf`,
        the photo seen at the long side `imgsz` (default the detector's)."""
        img = to_bgr8(img)
        h, w = img.shape[:2]
        if h < 2 or w < 2:
            return np.zeros((0, 4)), np.zeros(0, np.int64), np.zeros(0)
        out, scale, px, py = self.forward(img, imgsz)
        boxes, values, scores = decode(out, self.conf if conf is None else conf, self.iou)
        if not len(values):
            return boxes, values, scores
        boxes = (boxes - np.array([px, py, px, py])) / scale
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes, values, np.clip(scores, 0, 1)

    def propose(self, img: np.ndarray) -> np.ndarray:
        """The boxes the face reader is given: everything above the low proposal threshold."""
        return self.candidates(img, PROPOSE_CONF)[0]

    def detect(self, img: np.ndarray) -> Dice:
        """All dice in a BGR (or grayscale/BGRA) image, boxes in its own pixels.

        With the face reader, the detector proposes at a low threshold and the reader decides:
        a box is kept when P(die) >= conf, which is then its confidence; value and colour are
        the reader's. Without it (`reader=False`), the detector's own values and scores, and no
        colours.
        """
        img = to_bgr8(img)
        if self.reader is not None:
            return self._read(img)
        boxes, values, scores = self.candidates(img)
        return Dice(boxes, values, scores, [None] * len(values)) if len(values) else Dice.empty()

    __call__ = detect  # a DiceDetector is the pipeline's `Detect` (scanner.vision.scan)

    def within(
        self,
        img: np.ndarray,
        regions: Sequence[tuple[int, int, int, int]],
        others: np.ndarray | Sequence[tuple[float, float, float, float]] = (),
    ) -> Dice:
        """The dice found inside `regions` (x0 y0 x1 y1, `img`'s pixels) of `img`, boxes in
        `img`'s pixels: the detector runs on each region alone, the face reader reads in the
        light of the whole image, with `others` (the boxes of the dice elsewhere on it) counted
        for that light as a full read would count them (`FaceReader.read`)."""
        img = to_bgr8(img)
        conf = min(PROPOSE_CONF, self.conf) if self.reader is not None else None
        found = []
        for x0, y0, x1, y1 in regions:
            part = self.candidates(img[y0:y1, x0:x1], conf)
            found.append((part[0] + np.array([x0, y0, x0, y0]), *part[1:]))
        boxes = np.concatenate([f[0] for f in found]).reshape(-1, 4)
        if self.reader is None:
            values, scores = (np.concatenate([f[k] for f in found]) for k in (1, 2))
            return (
                Dice(boxes, values, scores, [None] * len(values)) if len(values) else Dice.empty()
            )
        return self._read(img, boxes, np.asarray(others, np.float64).reshape(-1, 4))

    def around(self, img: np.ndarray, found: np.ndarray) -> np.ndarray:
        """This detector's boxes (xyxy, `img`'s pixels, at `PROPOSE_CONF`) of the dice at
        `found` (a finder's boxes), each seen on a crop around it, the crops of a size in one batch.

        The box a die gets decides the crop the face reader reads, and the reader learnt the
        boxes this detector draws on a whole board: a finder's boxes, drawn at another scale,
        move a few dice's readings. Each crop reaches `AROUND_MARGIN` beyond its die and
        starts on the network's `STRIDE` grid of the whole image, so the die falls in the
        same cells as in a whole-image forward, and its box comes out as that forward draws
        it, mostly within a pixel. A box cut by a crop's edge is a neighbour's, found whole in
        its own crop, unless it is the crop's own die, kept at half its score so that a whole
        box of it from another crop wins the suppression."""
        img = to_bgr8(img)
        h, w = img.shape[:2]
        found = np.asarray(found, np.float64).reshape(-1, 4)
        if not len(found) or h < 2 or w < 2:
            return np.zeros((0, 4))
        sides = box_sides(found) + 2 * AROUND_MARGIN
        sides = (np.ceil(sides / STRIDE) * STRIDE).astype(int)
        pad = int(sides.max())
        padded = cv2.copyMakeBorder(
            img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(114, 114, 114)
        )
        grid = np.array([(-w) % STRIDE // 2, (-h) % STRIDE // 2])  # a whole image's letterbox
        centres = (found[:, :2] + found[:, 2:]) / 2
        boxes, scores = [], []
        for side in np.unique(sides):
            ours = np.flatnonzero(sides == side)
            corners = np.round((centres[ours] - side / 2 + grid) / STRIDE) * STRIDE - grid
            corners, crop_of = np.unique(corners.astype(int), axis=0, return_inverse=True)
            crops = [padded[y + pad : y + pad + side, x + pad : x + pad + side] for x, y in corners]
            out = self.session.run(None, {self.input_name: network_input(np.stack(crops))})[0]
            for k, (x, y) in enumerate(corners):
                got, _, score = decode(out[k : k + 1], PROPOSE_CONF, self.iou)
                if not len(got):
                    continue
                # An edge of the crop that is the image's own edge cuts nothing.
                low = np.array([CUT_EDGE if x > 0 else -np.inf, CUT_EDGE if y > 0 else -np.inf])
                high = np.array(
                    [
                        side - CUT_EDGE if x + side < w else np.inf,
                        side - CUT_EDGE if y + side < h else np.inf,
                    ]
                )
                whole = (got[:, :2] > low).all(1) & (got[:, 2:] < high).all(1)
                got = got + np.array([x, y, x, y])
                own = iou_matrix(got, found[ours[crop_of.ravel() == k]]).max(1) >= 0.5
                boxes.append(got[whole | own])
                scores.append(np.where(whole, score, score / 2)[whole | own])
        if not boxes:
            return np.zeros((0, 4))
        boxes_all, scores_all = np.concatenate(boxes), np.concatenate(scores)
        kept = boxes_all[nms(boxes_all, scores_all, self.iou)]
        kept[:, [0, 2]] = kept[:, [0, 2]].clip(0, w)
        kept[:, [1, 3]] = kept[:, [1, 3]].clip(0, h)
        return kept

    def _proposals(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The boxes the face reader is given for a whole photo, the detector's scores (0 where
        a finder found the die), and which the coarse look added. With `coarse`, the photo is
        also seen at that smaller size: a die that fills a good part of a close-up is too big
        for the detector at `imgsz` (it learnt dice of 26–56 px there, and reads a big die's
        single pips as ones), and at the coarser size it is a die of the size it learnt. The
        coarse look adds the dice too big for the fine one (`COARSE_SIDE`) that the fine one
        did not find (`FINE_SEEN`): on photos of dice of the usual size it adds little (the
        model card). With a `finder`, the finder finds and this detector boxes what it found
        (`around`)."""
        conf = min(PROPOSE_CONF, self.conf)
        if self.finder is not None:
            boxes = self.around(img, self.finder.candidates(img, conf)[0])
            return boxes, np.zeros(len(boxes)), np.zeros(len(boxes), bool)
        boxes, _, scores = self.candidates(img, conf)
        none = np.zeros(len(boxes), bool)
        if not self.coarse:
            return boxes, scores, none
        big, _, big_scores = self.candidates(img, conf, self.coarse)
        if not len(big):
            return boxes, scores, none
        h, w = img.shape[:2]
        side = box_sides(big) * self.imgsz / max(h, w)
        seen = np.zeros(len(big), bool)
        if len(boxes):
            seen = iou_matrix(big, boxes).max(axis=1) >= FINE_SEEN
        added = (side >= COARSE_SIDE) & ~seen
        return (
            np.concatenate([boxes, big[added]]),
            np.r_[scores, big_scores[added]],
            np.r_[none, np.ones(int(added.sum()), bool)],
        )

    def _read(self, img: np.ndarray, boxes: np.ndarray | None = None, others=None) -> Dice:
        from scanner.vision.face import color_names

        added = None
        if boxes is None:
            boxes, scores, added = self._proposals(img)
        else:  # boxes found elsewhere (`within`): the reader alone decides
            scores = np.zeros(len(boxes))
        if not len(boxes):
            return Dice.empty()
        assert self.reader is not None  # called only by a detector with a face reader
        p_die, p_value, p_color = self.reader.read(img, boxes, others, self.board)
        keep = p_die >= self.conf
        # Kept on the detector's word: the reader's P(die) says too little of such a die.
        on_word = ~keep & (scores >= SURE_DETECT) & (p_die >= SURE_READ) & self.sure
        keep |= on_word
        if added is not None and added.any():
            keep = big_dice_checked(boxes, keep, added)
        if not keep.any():
            return Dice.empty()
        colors = color_names(p_color[keep]) if self.colors else []
        p_die, p_value, p_color = p_die[keep], p_value[keep], p_color[keep]
        confidence = np.clip(p_die, 0, 1)
        data = {"color_p": p_color} if self.colors else {}
        sure = self.reader.certainty
        if sure is not None:
            # How often such a reading is right (scanner.vision.certainty); the value's alone
            # is kept for a board whose colours the table's palette names.
            confidence = sure.of(p_die, p_value, p_color if self.colors else None)
            data["value_confidence"] = sure.of(p_die, p_value, None)
        if on_word.any():
            # The detector's score: on validation such dice were right about as often as it
            # says, where the reader's maps, fitted on P(die) >= 0.5, say far less.
            word, own = on_word[keep], scores[keep]
            confidence = np.where(word, own, confidence)
            if "value_confidence" in data:
                data["value_confidence"] = np.where(word, own, data["value_confidence"])
        return Dice(boxes[keep], p_value.argmax(1) + 1, confidence, colors, data)
