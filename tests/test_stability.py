"""The table is read only when it is settled: no hand, no rolling die, readings that agree."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.vision.layout import default_layout
from scanner.vision.sheet import render_sheet
from scanner.vision.stability import DiceVote, Settler, Stillness
from tests.scenes import draw_dice, draw_hand

LAY = default_layout()
PPM = 2.0  # rectified-board scale for these tests (the thresholds are in mm², scale-free)
DICE = [(100, 100, "blue", 5), (72, 175, "green", 1), (320, 200, "grey", 3)]
READING = {"state": {"players": ["blue", "green", "grey"]}, "dice": [{"value": 5}]}


@pytest.fixture(scope="module")
def board():
    img = cv2.cvtColor(render_sheet(LAY, PPM), cv2.COLOR_GRAY2BGR)
    draw_dice(img, DICE, PPM)
    return img


def frame(board, rng, hand_at=None, extra_dice=(), gain=1.0):
    img = board.astype(np.float32).copy()
    if extra_dice:
        draw_dice(img, extra_dice, PPM)
    if hand_at is not None:
        # One hand, always the same colour and pose (its own seed): only where it is changes.
        hand = np.random.default_rng(7)
        draw_hand(img, (hand_at[0] * PPM, hand_at[1] * PPM), hand, radius=45 * PPM)
    img = img * gain + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def run(settler, frames, reading=READING):
    return [settler.update(f, reading) for f in frames]


def test_a_still_board_settles_after_a_few_frames(board):
    rng = np.random.default_rng(0)
    out = run(Settler(PPM), [frame(board, rng) for _ in range(8)])
    assert out[:3] == [None, None, None]  # needs 3 still frames, then a vote majority
    assert out[5] == READING and out[-1] == READING


def test_the_reason_says_starting_then_still_then_settled(board):
    rng = np.random.default_rng(4)
    settler = Settler(PPM)
    reasons = []
    for _ in range(5):
        settler.update(frame(board, rng), READING)
        reasons.append(settler.reason)
    assert reasons[0] == "starting"
    assert reasons[1] == "still for 1 of 2 frames"
    assert reasons[-1] == "settled" and not any(r.startswith("moving") for r in reasons)


def test_a_hand_moving_over_the_board_is_not_settled(board):
    rng = np.random.default_rng(1)
    settler = Settler(PPM)
    run(settler, [frame(board, rng) for _ in range(6)])
    path = [(60 + 18 * k, 80 + 6 * k) for k in range(15)]
    out = run(settler, [frame(board, rng, hand_at=p) for p in path])
    assert out == [None] * len(out)
    assert settler.reason.startswith("moving")


def test_a_hand_resting_on_the_board_is_not_settled(board):
    rng = np.random.default_rng(2)
    settler = Settler(PPM, relearn_frames=100)
    assert run(settler, [frame(board, rng) for _ in range(6)])[-1] == READING
    rest = [frame(board, rng, hand_at=(200, 150)) for _ in range(20)]
    out = run(settler, rest, reading={"state": None, "dice": []})
    assert out == [None] * 20
    assert "hand" in settler.reason
    # The hand leaves: the board settles again.
    assert run(settler, [frame(board, rng) for _ in range(8)])[-1] == READING


def test_new_dice_placed_are_a_small_change_and_settle(board):
    rng = np.random.default_rng(3)
    settler = Settler(PPM)
    run(settler, [frame(board, rng) for _ in range(6)])
    placed = [(190, 90, "blue", 3), (210, 90, "blue", 4), (230, 90, "blue", 5)]
    after = {"state": {"players": ["blue"]}, "dice": [{"value": 3}]}
    out = run(settler, [frame(board, rng, extra_dice=placed) for _ in range(8)], after)
    assert out[-1] == after


def test_a_rolling_die_is_not_still(board):
    rng = np.random.default_rng(4)
    still = Stillness(PPM)
    results = [still.update(frame(board, rng)) for _ in range(5)]
    assert results[-1] is True
    rolling = [
        still.update(frame(board, rng, extra_dice=[(150 + 12 * k, 200, "grey", 1 + k % 6)]))
        for k in range(8)
    ]
    assert not any(rolling)


def test_a_lasting_light_change_is_accepted_eventually(board):
    rng = np.random.default_rng(5)
    settler = Settler(PPM, relearn_frames=6)
    run(settler, [frame(board, rng) for _ in range(6)])
    out = run(settler, [frame(board, rng, gain=0.6) for _ in range(14)])
    assert out[3] is None  # at first it looks like a hand
    assert out[-1] == READING


def test_vote_ignores_one_misread_frame():
    vote = DiceVote(window=5, quorum=0.6)
    a = {"state": {"forum": [1]}, "dice": [{"value": 1, "building": "forum", "color": "blue"}]}
    b = {"state": {"forum": [2]}, "dice": [{"value": 2, "building": "forum", "color": "blue"}]}
    results = [vote.add(r) for r in (a, a, b, a, a)]
    assert results[:2] == [None, None]
    assert results[2] is None  # 2 a, 1 b: no 3 of 5 yet
    assert results[3] == a and results[4] == a
    vote.clear()
    assert [vote.add(r) for r in (a, b, a, b, b)][-1] == b
    vote.clear()
    assert [vote.add(r) for r in (a, b, a, b)] == [None] * 4


def test_live_loop_reports_each_settled_board_once(tmp_path):
    """Frames of one camera: a board, a hand placing dice, the board with the new dice."""
    from scanner.vision.layout import Layout
    from scanner.vision.live import LiveBoard
    from tests.fake_detector import FakeDetector
    from tests.scenes import camera_pose, hom_scale, render_scene

    flat = Layout.from_json({**LAY.to_json(), "parallax_height": 0})  # printed dice: no height
    rng = np.random.default_rng(8)
    pose = camera_pose(flat, rng)
    before = [(72, 175, "green", 1), (320, 200, "blue", 4)]
    after = [*before, (190, 90, "grey", 3), (210, 90, "grey", 4)]
    base = [render_scene(flat, np.random.default_rng(1), d, pose, noise=0) for d in (before, after)]

    def shot(scene, hand_at=None):
        img = scene.image.astype(np.float32)
        if hand_at is not None:
            centre = cv2.perspectiveTransform(np.array([[hand_at]], np.float64), pose).ravel()
            draw_hand(img, centre, np.random.default_rng(7), radius=45 * hom_scale(pose))
        return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)

    frames = [shot(base[0]) for _ in range(8)]
    frames += [shot(base[0], (120 + 15 * k, 150 - 8 * k)) for k in range(6)]  # hand comes in
    frames += [shot(base[1], (200 - 20 * k, 100 + 25 * k)) for k in range(5)]  # … and leaves
    frames += [shot(base[1]) for _ in range(8)]
    fake = FakeDetector()
    live = LiveBoard(flat, fake.detect, ["grey", "blue", "green"])
    statuses = [live.process(f) for f in frames]
    changes = [i for i, s in enumerate(statuses) if s.changed]
    assert len(changes) == 2 and changes[0] < 8 and changes[1] >= 19, changes
    assert all(s.board_found for s in statuses)
    first = statuses[changes[0]].settled.state.to_json()
    last = statuses[-1].settled.state.to_json()
    assert first["forum"] == [{"player": "green", "value": 1}] and first["senatus"] == {}
    assert last["senatus"] == {"grey": [3, 4]} and last["latrina"] == {"blue": 1}
    # While the hand moved, the first board stayed the settled one and the detector was idle.
    assert all(s.settled.state.to_json() == first for s in statuses[changes[0] : 19])
    assert fake.calls < len(frames) - 8
