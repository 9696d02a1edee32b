"""Reading only what changed (`scanner.vision.reread`): the same dice as a full read, with the
detector run on the changed spots only, or not at all when nothing changed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.vision.layout import default_layout
from scanner.vision.reread import Rereader
from scanner.vision.sheet import render_sheet
from tests.fake_detector import FakeDetector
from tests.scenes import draw_dice

LAY = default_layout()
PPM = 3.0
DICE = [(100, 100, "blue", 5), (72, 175, "green", 1), (320, 100, "grey", 3), (210, 100, "brown", 2)]


class Counting(FakeDetector):
    """The fake detector, counting the pixels it is given (the work a real one would do)."""

    def __init__(self) -> None:
        super().__init__(PPM)
        self.pixels = 0

    def detect(self, board_bgr):
        self.pixels += board_bgr.shape[0] * board_bgr.shape[1]
        return super().detect(board_bgr)

    __call__ = detect


def board(dice, rng):
    img = cv2.cvtColor(render_sheet(LAY, PPM), cv2.COLOR_GRAY2BGR)
    draw_dice(img, dice, PPM)
    noisy = img.astype(np.float32) + rng.normal(0, 2.5, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def key(dice):
    return sorted((d.value, d.color, round(d.xyxy[0] / 6), round(d.xyxy[1] / 6)) for d in dice)


@pytest.fixture
def settled():
    rng = np.random.default_rng(3)
    det = Counting()
    reread = Rereader(det, PPM)
    first = board(DICE, rng)
    dice = reread(first)
    assert reread.mode == "full" and len(dice) == len(DICE)
    reread.settle(first, dice)
    det.pixels = 0
    return reread, det, rng, first.shape[0] * first.shape[1]


def full_read(img):
    return Counting()(img)


def test_nothing_changed_returns_the_settled_dice_without_the_detector(settled):
    reread, det, rng, _ = settled
    dice = reread(board(DICE, rng))
    assert reread.mode == "same" and det.pixels == 0
    assert key(dice) == key(full_read(board(DICE, rng)))


@pytest.mark.parametrize(
    "now",
    [
        DICE + [(150, 180, "yellow", 4)],  # one die added
        DICE[1:],  # one removed
        [(104, 112, "blue", 5)] + DICE[1:],  # one moved a little
        [(100, 100, "blue", 6)] + DICE[1:],  # one turned to another value
        DICE + [(330, 190, "blue", 6), (350, 190, "blue", 6), (250, 200, "green", 2)],
    ],
    ids=["added", "removed", "moved", "turned", "three-added"],
)
def test_a_few_dice_changed_reads_the_crops_alone_and_agrees_with_a_full_read(settled, now):
    reread, det, rng, whole = settled
    img = board(now, rng)
    dice = reread(img)
    assert reread.mode == "crops"
    assert 0 < det.pixels < 0.35 * whole
    assert key(dice) == key(full_read(img))
    assert len(dice) == len(now)


def test_a_large_change_is_read_whole(settled):
    reread, det, rng, whole = settled
    lots = [(40 + 30 * (k % 12), 60 + 40 * (k // 12), "green", 1 + k % 6) for k in range(36)]
    img = board(lots, rng)
    dice = reread(img)
    assert reread.mode == "full" and det.pixels == whole
    assert key(dice) == key(full_read(img))


def test_forget_makes_the_next_read_full(settled):
    reread, det, rng, whole = settled
    reread.forget()
    reread(board(DICE, rng))
    assert reread.mode == "full" and det.pixels == whole


def test_a_stillness_lends_its_coarse_board_and_the_reads_are_the_same(monkeypatch):
    """In the live loop the settler has just made the frame's coarse board: the rereader takes
    it instead of making it again, and reads exactly what it reads alone."""
    from scanner.vision import reread as reread_module
    from scanner.vision import stability

    made = []
    real = stability.coarse

    def counting(img, ppm):
        made.append(img.shape)
        return real(img, ppm)

    monkeypatch.setattr(stability, "coarse", counting)
    monkeypatch.setattr(reread_module, "coarse", counting)
    rng = np.random.default_rng(5)
    frames = [board(DICE, rng), board(DICE, rng), board(DICE + [(150, 180, "yellow", 4)], rng)]
    still = stability.Stillness(PPM)
    lent, alone = Rereader(Counting(), PPM, stillness=still), Rereader(Counting(), PPM)
    for img in frames:
        made.clear()
        still.update(img)
        a, b = lent(img), alone(img)
        assert key(a) == key(b) and lent.mode == alone.mode
        lent.settle(img, a)
        alone.settle(img, b)
        assert len(made) == 3  # the stillness's one, and the lone rereader's two
    assert lent.mode == "crops"
    # An image the stillness has not seen is made afresh, never mistaken for the last one.
    made.clear()
    lent(board(DICE, rng))
    assert len(made) == 1
