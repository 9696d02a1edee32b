"""Full-table synthetic frames: rendered truth, marker calibration on them, and the whole
pipeline (calibrate → rectify → board) with an oracle in place of the detector, so a wrong
zone, parallax or grouping shows up here whatever the model does."""

import itertools

import numpy as np
import pytest

from scanner.synth.arrange import TooManyDice
from scanner.synth.table import mid_game_states, render_table
from scanner.vision.calibrate import calibrate
from scanner.vision.dice import Dice
from scanner.vision.layout import default_layout
from scanner.vision.scan import scan_image
from tests.helpers import forum, state

LAYOUT = default_layout()


def sample_states(n: int, seed: int = 0) -> list:
    """Mid-game board states from random simulated games, each fitting the printed zones."""
    return list(itertools.islice(mid_game_states(seed), n))


def oracle(frame, cal):
    """A perfect detector: each die's cube as the camera sees it, boxed in the rectified board."""
    boxes = frame.boxes(lambda p: cal.board_to_rectified(cal.image_to_board(p)))
    return Dice.from_json(
        [
            {"value": d.value, "color": d.player, "confidence": 0.99, "bbox": list(b)}
            for d, b in zip(frame.dice, boxes, strict=True)
        ]
    )


class Oracle:
    """The perfect detector as the live loop gets it: called with a board, and with `within`
    for the parts of one (`scanner.vision.reread`), like the real one. `frame` gives the table
    frame shown now (the scene changes under a demo feed)."""

    def __init__(self, frame, cal) -> None:
        self.frame, self.cal = frame, cal

    def __call__(self, board_image):
        return oracle(self.frame(), self.cal)

    def within(self, board_image, regions, others=()):
        def inside(b):
            return any(
                x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for x0, y0, x1, y1 in regions
            )

        dice = self(board_image)
        return dice.take([inside(b) for b in dice.xyxy])


def seen_as(st) -> dict:
    """What a camera can know of a state: not the supply, nor the order Castrum sets were laid
    in (scoring ranks them by size anyway); Forum order and Latrina counts it does see."""
    data = st.to_json()
    data["supply"] = {}
    data["castrum"] = sorted(data["castrum"], key=lambda s: (s["player"], s["value"]))
    return data


def test_render_is_deterministic_and_truthful():
    s = state(senatus={"grey": [3, 4, 5]}, forum=forum(("blue", 2)))
    a, b = render_table(s, 11), render_table(s, 11)
    assert np.array_equal(a.image, b.image) and a.image.shape == (720, 1280, 3)
    assert sorted((d.building, d.player, d.value) for d in a.dice) == [
        ("forum", "blue", 2),
        ("senatus", "grey", 3),
        ("senatus", "grey", 4),
        ("senatus", "grey", 5),
    ]
    for d in a.dice:  # every truth position lies inside its own building's zone
        assert LAYOUT.zone_at((d.x, d.y), tolerance=0)[0] == d.building


def test_too_many_dice_for_a_zone():
    s = state(latrina={p: 8 for p in ("grey", "brown", "blue", "green")})
    with pytest.raises(TooManyDice):
        render_table(s, 1)


@pytest.mark.parametrize("seed", range(6))
def test_markers_calibrate_on_rendered_frames(seed):
    frame = render_table(sample_states(1, seed)[0], seed)
    cal = calibrate(frame.image, LAYOUT)
    probe = np.array([[60, 60], [360, 240], [210, 148.5], [100, 200]], np.float64)
    truth = frame.project(np.column_stack([probe, np.zeros(len(probe))]))
    assert np.abs(cal.board_to_image(probe) - truth).max() < 1.5  # pixels
    x, y, height = cal.camera_position()
    assert 250 < height < 1500


def test_pipeline_with_an_oracle_detector_reads_every_state_exactly():
    wrong = []
    for i, truth in enumerate(sample_states(12, seed=42)):
        frame = render_table(truth, 100 + i)
        cal = calibrate(frame.image, LAYOUT)
        reading = scan_image(
            frame.image,
            cal,
            lambda board, f=frame, c=cal: oracle(f, c),
            players=list(truth.players),
        )
        got, want = seen_as(reading.state), seen_as(truth)
        if got != want:
            wrong.append((i, reading.warnings, got, want))
    assert not wrong, wrong


def test_an_illegal_board_is_seen_as_it_lies_and_read_as_the_closest_legal_one():
    truth = state(
        strict=False,
        senatus={"grey": [2, 4], "blue": [5, 6]},
        forum=forum(("blue", 4), ("grey", 1)),
    )
    frame = render_table(truth, 5)
    cal = calibrate(frame.image, LAYOUT)
    reading = scan_image(
        frame.image, cal, lambda board: oracle(frame, cal), players=list(truth.players)
    )
    assert reading.seen.senatus == {"grey": (2, 4), "blue": (5, 6)}
    assert [(d.player, d.value) for d in reading.seen.forum] == [("blue", 4), ("grey", 1)]
    assert reading.state.senatus["grey"] == (4,)
    assert [d.value for d in reading.state.forum] == [1, 4]
    assert any("not one run" in w for w in reading.warnings)


def test_a_ceiling_lamps_sheen_pales_the_dice_in_a_patch_and_leaves_the_paper():
    """`render_table(sheen=S)`: the lamp's mirror image lies over the dice's glossy tops, more
    on some dice than on others, never on the matte paper; 0 draws the frame as before."""
    st = next(iter(mid_game_states(8, LAYOUT)))  # 23 dice across the sheet
    plain = render_table(st, 5)
    assert np.array_equal(render_table(st, 5, sheen=0.0).image, plain.image)
    shiny = render_table(st, 5, sheen=0.3)
    lift = shiny.image.astype(int).sum(2) - plain.image.astype(int).sum(2)
    boxes = plain.boxes()
    on_dice = np.zeros(lift.shape, bool)
    gains = []
    for x0, y0, x1, y1 in boxes.astype(int):
        on_dice[max(0, y0 - 16) : y1 + 16, max(0, x0 - 16) : x1 + 16] = True
        gains.append(lift[y0:y1, x0:x1].mean())
    assert np.abs(lift[~on_dice]).max() <= 6  # the paper and the table: JPEG's noise at most
    assert min(gains) >= -1 and max(gains) > 15  # paler, never darker
    assert max(gains) - np.median(gains) > 10  # a patch, not a veil over every die
