"""Where each die lies: its box on the rectified board → its centre in board millimetres, the
building whose zone holds it and, in the Forum, its pedestal; and which two boxes are one die.

Kept apart from the board reading (`scanner.vision.board`) because it is geometry, not rules:
the camera's parallax and the layout's tolerance band decide it, and the web page's boxes and
the evaluation's matching of dice to the truth use it without any state being built.
"""

from __future__ import annotations

import numpy as np

from scanner.rules.components import forum_columns
from scanner.vision.dice import Dice
from scanner.vision.layout import Layout

# Two dice cannot lie closer than a die's width, centre to centre. A leaning camera sees a
# tall die's top face and its whole body, and the detector now and then boxes both: two
# boxes whose centres fall well inside one die. Located closer than this share of a die,
# they are one die, kept once (chosen on validation tables: model card, "One die, two boxes").
SEEN_TWICE = 0.75


def undo_parallax(
    point: tuple[float, float], camera: tuple[float, float, float], lift: float
) -> tuple[float, float]:
    """Where a point seen at `point` (on the board plane) lies if it is really `lift` mm above
    the board: the ray from the camera through it meets the plane farther out by lift/height.

    >>> undo_parallax((400.0, 100.0), (100.0, 100.0, 600.0), 8.0)
    (396.0, 100.0)
    """
    cx, cy, height = camera
    if height <= lift:
        return point
    k = (height - lift) / height
    return cx + (point[0] - cx) * k, cy + (point[1] - cy) * k


def seen_once(centres: np.ndarray, confidence: np.ndarray, reach: float) -> np.ndarray:
    """Indices (ascending) of the dice to keep when every die closer than `reach` (mm) to a
    more confident one is that die seen twice; ties go to the first.

    >>> seen_once(np.array([[0.0, 0], [7, 0], [20, 0]]), np.array([0.6, 0.9, 0.5]), 12.0)
    array([1, 2])
    """
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < reach
    kept = np.zeros(len(centres), bool)
    for i in np.argsort(-np.asarray(confidence), kind="stable"):
        kept[i] = not (near[i] & kept).any()
    return np.flatnonzero(kept)


def locate(
    dice: Dice,
    layout: Layout,
    players: int | None = None,
    camera: tuple[float, float, float] | None = None,
) -> tuple[Dice, list[str]]:
    """The dice with each one's centre in board mm and its building (None outside every zone)
    and Forum pedestal in `data`.

    With the camera's position known (`Calibration.camera_position`), the centre is corrected
    for parallax: a die's box spans its footprint and its top face, which the camera sees
    pushed outwards, so the box centre is taken as a point `layout.parallax_height` (half a
    die) above the board.
    The tolerance band covers what remains (and everything, without a camera position).
    A die located within `SEEN_TWICE` of a die's width of a more confident one is that die
    boxed twice and is left out.

    With `players` known, only the first players + 2 Forum pedestals are laid out; a die on a
    pedestal beyond them lies where no Forum piece is and gets building None and a warning."""
    s = layout.px_per_mm
    # Rectified pixel (i, j) covers mm [i/s, (i+1)/s): see sheet.board_to_pixels.
    centres = ((dice.xyxy[:, :2] + dice.xyxy[:, 2:]) / 2 + 0.5) / s
    buildings: list[str | None] = []
    pedestals: list[int | None] = []
    warnings = []
    if camera is not None and layout.parallax_height > 0:
        for i, (x, y) in enumerate(centres.tolist()):
            centres[i] = undo_parallax((x, y), camera, layout.parallax_height)
    keep = seen_once(centres, dice.confidence, SEEN_TWICE * layout.die_size)
    dice, centres = dice.take(keep), centres[keep]
    for centre in centres.tolist():
        hit = layout.zone_at(tuple(centre))
        building, pedestal = hit if hit is not None else (None, None)
        if pedestal is not None and players is not None and pedestal >= forum_columns(players):
            warnings.append(
                f"a die on Forum pedestal {pedestal + 1}, but a {players}-player Forum has "
                f"{forum_columns(players)} columns; counted as outside the buildings"
            )
            building, pedestal = None, None
        buildings.append(building)
        pedestals.append(pedestal)
    return dice.with_data(center_mm=centres, building=buildings, pedestal=pedestals), warnings
