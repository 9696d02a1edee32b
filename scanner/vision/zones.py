"""Where each die lies: its box on the rectified board → its centre in board millimetres, the
building whose zone holds it and, in the Forum, its pedestal.

Kept apart from the board reading (`scanner.vision.board`) because it is geometry, not rules:
the camera's parallax and the layout's tolerance band decide it, and the web page's boxes and
the evaluation's matching of dice to the truth use it without any state being built.
"""

from __future__ import annotations

from scanner.rules.components import forum_columns
from scanner.vision.dice import Dice
from scanner.vision.layout import Layout


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

    With `players` known, only the first players + 2 Forum pedestals are laid out; a die on a
    pedestal beyond them lies where no Forum piece is and gets building None and a warning."""
    s = layout.px_per_mm
    # Rectified pixel (i, j) covers mm [i/s, (i+1)/s): see sheet.board_to_pixels.
    centres = ((dice.xyxy[:, :2] + dice.xyxy[:, 2:]) / 2 + 0.5) / s
    buildings: list[str | None] = []
    pedestals: list[int | None] = []
    warnings = []
    for i, (x, y) in enumerate(centres.tolist()):
        centre = (x, y)
        if camera is not None and layout.parallax_height > 0:
            centre = undo_parallax(centre, camera, layout.parallax_height)
            centres[i] = centre
        hit = layout.zone_at(centre)
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
