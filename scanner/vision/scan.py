"""A photo of the table → the board state: locate, rectify, detect, read (DESIGN.md's flow).

The detector is a parameter (`detect(board_image) -> dice`), not an import: the pipeline is tested
with a fake one, and `alea scan` passes the real ONNX detector from `scanner.vision.detect`.
The detector sees the *rectified* board, at the fixed scale it was trained for; its boxes are in
that image's pixels. The reading reports each box in the original photo's pixels (`bbox`, as
`alea dice` does) and in the rectified board's (`board_bbox`), plus the centre in board mm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from scanner.vision.board import BoardReading, read_board
from scanner.vision.calibrate import BoardNotFound, Calibration, calibrate, spread_warning
from scanner.vision.dice import Dice
from scanner.vision.palette import (
    Palette,
    body_colors,
    exposure_warning,
    held_glare,
    sheet_light,
    swatch_at,
    take_reference,
    top_faces,
)
from scanner.vision.sixes import emblem_colors, read_emblems
from scanner.vision.tracking import Calibrator

Detect = Callable[[np.ndarray], Dice]


def scan_image(
    image: np.ndarray,
    calibration: Calibration,
    detect: Detect,
    players: Sequence[str] | None = None,
    fixed_camera: bool = False,
    fitted: bool = False,
) -> BoardReading:
    """Read the board in one photo.

    The board is located afresh from the markers in this photo (the camera may have moved since
    `calibration` was made; its layout and lens are what is reused). With `fixed_camera`, the stored
    homography is kept when hands hide markers (with a warning if none can be fitted), unless
    the markers in view show that the camera has moved. A photo where
    the board cannot be located gives a reading with state None and the reason as its warning.
    `fitted`: `calibration` was fitted on this very photo, so it is used as it is.
    """
    warnings: list[str] = []
    h, w = image.shape[:2]
    if fitted:
        cal = calibration
    elif fixed_camera and (w, h) == tuple(calibration.image_size):
        # The stored fit stands unless the markers in view say the camera moved, exactly as in
        # the live loop; a fresh fit replaces it only if it sees at least as many markers.
        keeper = Calibrator(calibration.layout, calibration.lens, initial=calibration)
        found = keeper.update(image)
        if found is None:
            return BoardReading(None, Dice.empty(), [keeper.reason or "board not found"])
        if found is calibration and keeper.reason:
            warnings.append(f"{keeper.reason}; using the stored calibration (fixed camera)")
        cal = found
    else:
        try:
            cal = calibrate(image, calibration.layout, calibration.lens)
        except BoardNotFound as exc:
            return BoardReading(None, Dice.empty(), [str(exc)])
    spread = spread_warning(cal)
    if spread:
        warnings.append(spread)
    board = cal.rectify(image)
    clipped = exposure_warning(board)
    if clipped:
        warnings.append(clipped)
    reading = read_board_image(board, cal, detect, players, calibration.palette)
    reading.warnings[:0] = warnings
    reading.dice = with_image_boxes(reading.dice, cal)
    return reading


# The ablation switch of benchmarks/colour_source.py (--drop-reference): False leaves a die of a
# colour the palette never took unknown.
READER_FOR_UNTAKEN = True


def read_board_image(
    board_image: np.ndarray,
    cal: Calibration,
    detect: Detect,
    players: Sequence[str] | None,
    palette: Palette | None = None,
) -> BoardReading:
    """Detect on an already rectified board and read it (the live loop rectifies once per frame
    and shares the image with the stability check). With a `palette` taken at this table, each
    die's colour is its body's against the palette (scanner.vision.palette), not the reader's,
    the reader's agreeing reading naming a die a little beyond its reference's limit
    (`palette.AGREE_REACH`); a die the palette cannot name, read by the reader as a colour the
    palette never took, keeps the reader's colour (`READER_FOR_UNTAKEN`)."""
    dice = detect(board_image)
    if palette is not None and len(dice):
        light = sheet_light(board_image, cal.layout)
        # Where each die lies, in board mm (rectified pixel i covers mm [i/s, (i+1)/s)).
        where = ((dice.xyxy[:, :2] + dice.xyxy[:, 2:]) / 2 + 0.5) / cal.layout.px_per_mm
        faces = top_faces(dice.xyxy, cal.layout, cal.camera_position())
        body = body_colors(board_image, faces)
        held = held_glare(board_image, faces, light, where, body)
        named = palette.name(body, light, where, dice.color, held, dice.data.get("color_p"))
        # A colour the palette never took (its die was not found on its square, or not set
        # down) is one it cannot name: there the reader's colour stands, as without a palette.
        fill = [
            READER_FOR_UNTAKEN and n is None and r is not None and r not in palette.colors
            for r, n in zip(dice.color, named, strict=True)
        ]
        colors = [r if f else n for r, n, f in zip(dice.color, named, fill, strict=True)]
        sure = dice.data.get("value_confidence")  # the palette's colours are not the reader's
        if sure is not None:
            sure = np.where(np.array(fill)[:, None], dice.confidence[:, None], sure)[:, 0]
        dice = replace(dice, color=colors, confidence=dice.confidence if sure is None else sure)
        if palette.emblems:  # sets whose six is an emblem, seen at calibration
            dice = read_emblems(board_image, dice, palette.emblems)
    return read_board(dice, cal.layout, players, cal.camera_position())


def learn_colors(
    board_image: np.ndarray, cal: Calibration, detect: Detect, palette: Palette | None = None
) -> tuple[Palette, list[str]]:
    """The palette learnt from the dice lying on the sheet's swatch squares of a rectified
    board (one die of each colour on its square, six up), and the colours taken; colours with
    no die on their square keep what `palette` had. Each taken colour's six is learnt too: an
    emblem or pips (`sixes.emblem_colors`). A board detector hands over to the full-scale one
    here (`models.at_full_scale`)."""
    from scanner.vision.models import at_full_scale

    reading = read_board_image(board_image, cal, at_full_scale(detect), None)
    dice, centres = reading.dice, reading.dice.data["center_mm"]
    learnt, taken = take_reference(
        board_image, dice.xyxy, centres, cal.layout, palette, cal.camera_position()
    )
    on_swatch = [swatch_at(cal.layout, c) for c in centres]
    seen = emblem_colors(board_image, dice, on_swatch) & set(taken)
    emblems = (learnt.emblems - set(taken)) | seen
    return replace(learnt, emblems=frozenset(emblems)), taken


def with_image_boxes(dice: Dice, cal: Calibration) -> Dice:
    """The dice with their boxes mapped from the rectified board back into the photo
    (`image_xyxy`: the box around the four corners' images)."""
    if not len(dice):
        return dice.with_data(image_xyxy=np.zeros((0, 4)))
    x0, y0, x1, y1 = dice.xyxy.T
    corners = np.stack([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).transpose(2, 0, 1)  # (N,4,2)
    img = cal.board_to_image(cal.rectified_to_board(corners.reshape(-1, 2))).reshape(-1, 4, 2)
    return dice.with_data(image_xyxy=np.concatenate([img.min(axis=1), img.max(axis=1)], axis=1))
