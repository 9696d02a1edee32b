"""Board tiles for training a detector on the rectified board: whole-table frames located by
their markers, rectified as `alea scan` rectifies them and cut into labelled squares.

Apart from scanner.synth.table, which draws the frames, because this is dataset writing (YOLO
images and labels on disk) for scanner.training.detector, not part of the table scene.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scanner.synth.table import MAX_TILT_DEG, mid_game_states, random_dice, render_table
from scanner.vision.layout import Layout, default_layout


def write_board_tiles(
    out,
    boards: int,
    seed: int,
    tile: int = 320,
    per_board: int = 4,
    layout: Layout | None = None,
    px_per_mm: tuple[float, float] | None = None,
    label_boxes=None,
    max_tilt: float = MAX_TILT_DEG,
    random_share: float = 0.0,
) -> int:
    """A YOLO dataset of the rectified board as the scanner sees it (class = pips − 1), cut
    into `tile`-pixel squares. Boards come from mid-game states of random games, under random
    cameras and light. The board is rectified at the layout's px/mm, as the scanner does; with
    `px_per_mm` (low, high) each board is then shrunk to a scale drawn in that range, as the
    detector's letterbox shrinks it (area interpolation), so a detector can learn the board at
    a cheaper scale. `label_boxes(board, boxes)`, when given, turns the dice's true boxes on the
    rectified board into the boxes to teach (for example those a detector that reads the board
    well draws, so a new one learns the same boxes). `max_tilt` bounds the cameras' lean (a
    webcam on a stand beside the table sees tall dice from the side); `random_share` of the
    boards draw their dice as a random set of shades and pip colours (`random_dice`), the rest
    as the table draws the game's dice. Returns the tile count."""
    from scanner.vision.calibrate import calibrate

    layout = layout or default_layout()
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = 0
    for n, st in enumerate(mid_game_states(seed, layout)):
        if written >= boards * per_board:
            break
        # Drawn from a generator of their own, so the default boards stay the boards they were.
        dice = None
        if random_share > 0:
            pick = np.random.default_rng((seed, n, 5))
            dice = random_dice(pick) if pick.random() < random_share else None
        frame = render_table(st, (seed, n), layout, dice=dice, max_tilt=max_tilt)
        cal = calibrate(frame.image, layout)
        board = cal.rectify(frame.image)
        boxes = frame.boxes(lambda p, cal=cal: cal.board_to_rectified(cal.image_to_board(p)))
        if label_boxes is not None:
            boxes = label_boxes(board, boxes)
        if px_per_mm is not None:
            f = rng.uniform(*px_per_mm) / layout.px_per_mm
            h0, w0 = board.shape[:2]
            board = cv2.resize(board, (round(w0 * f), round(h0 * f)), interpolation=cv2.INTER_AREA)
            boxes = boxes * np.tile([board.shape[1] / w0, board.shape[0] / h0], 2)
        values = [d.value for d in frame.dice]
        h, w = board.shape[:2]
        for _ in range(per_board):
            # Centre tiles on dice most of the time: empty paper teaches little.
            if len(boxes) and rng.random() < 0.85:
                b = boxes[int(rng.integers(len(boxes)))]
                cx, cy = (
                    (b[0] + b[2]) / 2 + rng.uniform(-tile / 3, tile / 3),
                    (b[1] + b[3]) / 2 + rng.uniform(-tile / 3, tile / 3),
                )
            else:
                cx, cy = rng.uniform(tile / 2, w - tile / 2), rng.uniform(tile / 2, h - tile / 2)
            x0 = int(np.clip(cx - tile / 2, 0, w - tile))
            y0 = int(np.clip(cy - tile / 2, 0, h - tile))
            crop = board[y0 : y0 + tile, x0 : x0 + tile]
            lines = []
            for (bx0, by0, bx1, by1), v in zip(boxes, values, strict=True):
                cx0, cy0 = max(bx0 - x0, 0), max(by0 - y0, 0)
                cx1, cy1 = min(bx1 - x0, tile), min(by1 - y0, tile)
                area = (bx1 - bx0) * (by1 - by0)
                if cx1 <= cx0 or cy1 <= cy0 or (cx1 - cx0) * (cy1 - cy0) < 0.6 * area:
                    continue
                lines.append(
                    f"{v - 1} {(cx0 + cx1) / 2 / tile:.6f} {(cy0 + cy1) / 2 / tile:.6f} "
                    f"{(cx1 - cx0) / tile:.6f} {(cy1 - cy0) / tile:.6f}"
                )
            name = f"board{seed}_{written:05d}"
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
            (out / "labels" / f"{name}.txt").write_text("\n".join(lines))
            written += 1
    return written
