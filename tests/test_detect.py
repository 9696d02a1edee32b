"""Inference without torch: image loading edge cases, letterbox maths, decoding, NMS, the Dice
type's validation, and the shipped ONNX's pinned output shape."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner.errors import InputError
from scanner.vision.detect import DEFAULT_MODEL, DiceDetector, decode, letterbox, load_image, nms
from scanner.vision.dice import Dice

DICE8 = __import__("pathlib").Path(__file__).resolve().parents[1] / "datasets" / "dice8"

# ---------------------------------------------------------------- loading


def test_missing_empty_corrupt_files(tmp_path):
    with pytest.raises(InputError) as e:
        load_image(tmp_path / "nope.jpg", "$.images[3]")
    assert e.value.code == "image.not-found" and e.value.path == "$.images[3]"
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(InputError) as e:
        load_image(tmp_path / "empty.jpg")
    assert e.value.code == "image.empty"
    (tmp_path / "bad.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg" * 10)
    with pytest.raises(InputError) as e:
        load_image(tmp_path / "bad.jpg")
    assert e.value.code == "image.unreadable"
    with pytest.raises(InputError):
        load_image(tmp_path)  # a folder is not an image


def test_truncated_jpeg_is_an_error_or_an_image(tmp_path):
    img = (np.random.default_rng(0).random((200, 300, 3)) * 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    (tmp_path / "cut.jpg").write_bytes(buf.tobytes()[:300])
    try:
        out = load_image(tmp_path / "cut.jpg")
    except InputError as err:
        assert err.code == "image.unreadable"
    else:  # libjpeg may return a grey-filled partial image: then it must still be valid BGR
        assert out.shape == (200, 300, 3) and out.dtype == np.uint8


def test_grayscale_alpha_and_16bit_become_bgr8(tmp_path):
    gray = np.full((50, 70), 128, np.uint8)
    cv2.imwrite(str(tmp_path / "g.png"), gray)
    rgba = np.zeros((40, 30, 4), np.uint8)
    rgba[..., 3] = 255
    cv2.imwrite(str(tmp_path / "a.png"), rgba)
    deep = np.full((20, 20, 3), 65535, np.uint16)
    cv2.imwrite(str(tmp_path / "d.png"), deep)
    assert load_image(tmp_path / "g.png").shape == (50, 70, 3)
    assert load_image(tmp_path / "a.png").shape == (40, 30, 3)
    d = load_image(tmp_path / "d.png")
    assert d.dtype == np.uint8 and d.max() == 255


def test_huge_image_refused(tmp_path, monkeypatch):
    cv2.imwrite(str(tmp_path / "big.png"), np.zeros((100, 100, 3), np.uint8))
    import scanner.inputs.image_input

    monkeypatch.setattr(scanner.inputs.image_input, "MAX_PIXELS", 5_000)
    with pytest.raises(InputError) as e:
        load_image(tmp_path / "big.png")
    assert e.value.code == "image.too-large"


# ---------------------------------------------------------------- maths


@pytest.mark.parametrize(
    "shape,imgsz",
    [((720, 1280), 640), ((640, 640), 640), ((300, 97), 640), ((480, 640), 0), ((1, 5000), 640)],
)
def test_letterbox_round_trip(shape, imgsz):
    img = np.zeros((*shape, 3), np.uint8)
    out, scale, px, py = letterbox(img, imgsz)
    assert out.shape[0] % 32 == 0 and out.shape[1] % 32 == 0
    if imgsz:
        assert max(out.shape[:2]) == imgsz or max(shape) * scale <= imgsz
    # a point in the original maps into the padded image and back
    x, y = shape[1] * 0.3, shape[0] * 0.6
    nx, ny = x * scale + px, y * scale + py
    assert abs((nx - px) / scale - x) < 1e-6 and abs((ny - py) / scale - y) < 1e-6
    assert 0 <= nx <= out.shape[1] and 0 <= ny <= out.shape[0]


def test_letterbox_by_a_factor_scales_every_size_alike():
    """A board detector shrinks the whole board and a small crop of it by the same factor."""
    for shape in ((896, 1280), (90, 70)):
        out, scale, px, py = letterbox(np.zeros((*shape, 3), np.uint8), 640, factor=0.5)
        assert scale == 0.5 and out.shape[0] % 32 == 0 and out.shape[1] % 32 == 0
        assert out.shape[0] - 2 * py in (round(shape[0] / 2), round(shape[0] / 2) + 1)


def test_letterbox_1280x720_is_rect():
    out, scale, px, py = letterbox(np.zeros((720, 1280, 3), np.uint8), 640)
    assert out.shape[:2] == (384, 640) and scale == 0.5 and px == 0 and py == 12


def test_nms_keeps_best_of_overlaps():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], float)
    keep = nms(boxes, np.array([0.5, 0.9, 0.7]), 0.45)
    assert keep.tolist() == [1, 2]


def test_decode_picks_value_and_thresholds():
    out = np.zeros((1, 10, 4), np.float32)
    out[0, :4, 0] = [50, 60, 20, 20]
    out[0, 4 + 2, 0] = 0.9  # value 3
    out[0, :4, 1] = [52, 61, 20, 20]
    out[0, 4 + 4, 1] = 0.6  # overlapping, weaker, other value: suppressed (class-agnostic)
    out[0, :4, 2] = [200, 100, 30, 30]
    out[0, 4 + 5, 2] = 0.8  # value 6
    out[0, 4 + 0, 3] = 0.1  # below threshold
    boxes, values, scores = decode(out, conf=0.35, iou=0.45)
    assert values.tolist() == [3, 6]
    assert np.allclose(boxes[0], [40, 50, 60, 70]) and np.allclose(scores, [0.9, 0.8])
    with pytest.raises(ValueError):
        decode(np.zeros((1, 7, 4), np.float32), 0.3, 0.5)


def test_decode_votes_value_over_overlapping_anchors():
    out = np.zeros((1, 10, 3), np.float32)
    for k, (shift, scores) in enumerate([(0, {3: 0.50, 5: 0.45}), (1, {5: 0.49}), (2, {5: 0.48})]):
        out[0, :4, k] = [100 + shift, 100, 40, 40]
        for value, sc in scores.items():
            out[0, 4 + value - 1, k] = sc
    boxes, values, scores = decode(out, conf=0.35, iou=0.45)
    # the single best anchor says 3, the three overlapping anchors together say 5
    assert values.tolist() == [5] and np.isclose(scores[0], 0.50)
    assert decode(np.zeros((1, 10, 5), np.float32), 0.35, 0.45)[1].size == 0


# ---------------------------------------------------------------- Dice


def test_dice_validates_on_creation():
    box = np.array([[0, 0, 10, 10]], float)
    with pytest.raises(ValueError):
        Dice(box, np.array([7]), np.array([0.5]), [None])
    with pytest.raises(ValueError):
        Dice(box, np.array([3]), np.array([1.5]), [None])
    with pytest.raises(ValueError):
        Dice(box, np.array([3]), np.array([0.5]), ["red"])
    with pytest.raises(ValueError):
        Dice(np.array([[10, 0, 0, 10]], float), np.array([3]), np.array([0.5]), [None])
    d = Dice(box, np.array([3]), np.array([0.5]), ["blue"])
    assert d.to_json() == [
        {"value": 3, "color": "blue", "confidence": 0.5, "bbox": [0.0, 0.0, 10.0, 10.0]}
    ]
    assert len(Dice.empty()) == 0 and Dice.empty().to_json() == []


# ---------------------------------------------------------------- the shipped model


@pytest.fixture(scope="module")
def detector():
    assert DEFAULT_MODEL.is_file(), "models/dice.onnx must ship with the repository"
    return DiceDetector(DEFAULT_MODEL, imgsz=640)


def test_onnx_output_shape_is_pinned(detector):
    # ultralytics 8.4 yolo11 head: (1, 4 + 6 values, anchors); 640x640 -> 8400 anchors.
    blob = np.zeros((1, 3, 640, 640), np.float32)
    out = detector.session.run(None, {detector.input_name: blob})[0]
    assert out.shape == (1, 10, 8400)
    blob = np.zeros((1, 3, 384, 640), np.float32)
    assert detector.session.run(None, {detector.input_name: blob})[0].shape == (1, 10, 5040)


def test_degenerate_images_give_valid_results(detector):
    for img in (
        np.zeros((1, 1, 3), np.uint8),
        np.zeros((3, 2000), np.uint8),
        np.full((480, 640, 4), 200, np.uint8),
    ):
        dice = detector.detect(img)
        assert isinstance(dice, Dice)
        h, w = img.shape[:2]
        if len(dice):
            assert dice.xyxy[:, [0, 2]].max() <= w and dice.xyxy[:, [1, 3]].max() <= h


def test_boxes_are_in_original_pixels(detector):
    # The same scene at two sizes: boxes must scale with the photo.
    from scanner.synth.scene import SceneConfig, render_scene

    img = render_scene(42, SceneConfig(width=640, height=640, min_dice=6, max_dice=6)).image
    a = detector.detect(img)
    big = cv2.resize(img, (1280, 1280), interpolation=cv2.INTER_LINEAR)
    b = detector.detect(big)  # imgsz 640: scaled back down, same network input
    assert len(a) == len(b)
    if len(a):
        assert np.allclose(np.sort(b.xyxy.ravel()), np.sort(a.xyxy.ravel() * 2), atol=4)


def test_the_board_detector_is_picked_with_its_scale_and_boxes_come_back_in_board_pixels(
    tmp_path, monkeypatch
):
    """With a board detector shipped, the board read runs it on the board shrunk to the scale
    it learnt (its models/board.json), and its boxes are the board's pixels."""
    import json
    import shutil

    from scanner.synth.table import mid_game_states, render_table
    from scanner.vision import models
    from scanner.vision.boxes import iou_matrix
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout

    model = tmp_path / "board.onnx"
    shutil.copy(DEFAULT_MODEL, model)  # any detector will do
    (tmp_path / "board.json").write_text(json.dumps({"px_per_mm": 2.0}))
    monkeypatch.setattr(models, "BOARD_MODEL", model)
    models._shipped.cache_clear()
    try:
        board_detector = models.load_detector(None, 0, 3.0)
        assert board_detector.factor == pytest.approx(2 / 3)
        assert models.load_detector(None, 0, 4.0).factor == pytest.approx(0.5)
        assert models.load_detector(None, 640).factor is None  # photos: not the board's
        # Named as --model, a board detector is read at its scale too; others are not.
        assert models.load_detector(str(model)).factor == pytest.approx(2 / 3)
        assert models.load_detector(str(DEFAULT_MODEL)).factor is None
        # The palette is learnt at full scale, whichever detector reads the board.
        full = models.at_full_scale(board_detector.detect)
        assert full.factor is None and full.model == DEFAULT_MODEL
        plain = DiceDetector(DEFAULT_MODEL, imgsz=0, reader=False)
        assert models.at_full_scale(plain) is plain
    finally:
        models._shipped.cache_clear()
    lay = default_layout()
    st = next(iter(mid_game_states(3, lay)))
    frame = render_table(st, (3, 0), lay)
    board = calibrate(frame.image, lay).rectify(frame.image)
    full = DiceDetector(DEFAULT_MODEL, imgsz=0, reader=False).candidates(board)[0]
    shrunk = board_detector.candidates(board)[0]
    assert len(full) >= 4 and len(shrunk) == len(full)
    assert (iou_matrix(full, shrunk).max(1) > 0.6).all()


@pytest.fixture(scope="module")
def board_and_full_read():
    """A rendered mid-game board, and the full-scale detector's read of it whole."""
    from scanner.synth.table import mid_game_states, render_table
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout

    lay = default_layout()
    st = next(iter(mid_game_states(8, lay)))  # 23 dice, rows of them touching
    frame = render_table(st, (8, 0), lay)
    board = calibrate(frame.image, lay).rectify(frame.image)
    full = DiceDetector(DEFAULT_MODEL, imgsz=0)
    return board, full, full.detect(board)


def test_a_die_found_elsewhere_is_boxed_as_the_whole_board_read_boxes_it(board_and_full_read):
    """`around` draws, on crops around a finder's boxes (here the whole read's, moved a few
    pixels as another detector draws them), the boxes a whole-board forward draws; a box in
    no crop's middle is not made up, and nothing found gives nothing."""
    from scanner.vision.boxes import iou_matrix

    board, full, whole = board_and_full_read
    assert len(whole) >= 6
    moved = whole.xyxy + np.random.default_rng(0).uniform(-4, 4, whole.xyxy.shape)
    boxed = full.around(board, moved)
    best = iou_matrix(whole.xyxy, boxed).max(1)
    assert (best > 0.9).all(), best
    # Each die once: a die in a neighbour's crop is cut there, or the same box suppressed.
    assert len(boxed) <= len(whole) + 1
    assert full.around(board, np.zeros((0, 4))).shape == (0, 4)
    # A die cut by the image's own edge is still boxed: that edge cuts nothing more.
    die = whole.xyxy[np.argmin(whole.xyxy[:, 0])]
    x = int(die[0]) + 2
    cut = full.around(board[:, x:], die[None] - np.array([x, 0, x, 0]))
    assert len(cut) and (cut[:, 0] == 0).any()


def test_a_board_read_with_a_finder_reads_what_the_whole_read_reads(board_and_full_read):
    """The shipped board detector finds (on the board shrunk to `FIND_PX_PER_MM`), the
    full-scale detector boxes, the reader reads: every die of the whole-board read with its
    value and colour; the palette is still learnt by the full-scale detector alone."""
    from scanner.vision.boxes import iou_matrix
    from scanner.vision.models import FIND_PX_PER_MM, at_full_scale, finder

    board, full, whole = board_and_full_read
    found_by = finder(3.0)
    assert found_by.factor == pytest.approx(FIND_PX_PER_MM / 3) and found_by.reader is None
    two_looks = DiceDetector(DEFAULT_MODEL, imgsz=0, finder=found_by)
    learner = at_full_scale(two_looks)
    assert learner.finder is None and learner.factor is None and learner.model == DEFAULT_MODEL
    read = two_looks.detect(board)
    assert len(read) == len(whole)
    match = iou_matrix(whole.xyxy, read.xyxy).argmax(1)
    assert (iou_matrix(whole.xyxy, read.xyxy).max(1) > 0.85).all()
    assert list(read.value[match]) == list(whole.value)
    assert [read.color[j] for j in match] == list(whole.color)
    # No finder without a face reader to judge its boxes: such a detector reads as before.
    assert DiceDetector(DEFAULT_MODEL, imgsz=0, reader=False, finder=found_by).finder is None


def test_a_coarse_look_drops_a_big_dies_pips_and_a_cluster_seen_as_one_die():
    from scanner.vision.detect import big_dice_checked

    boxes = np.array(
        [
            [100, 100, 260, 260],  # a big die, found by the coarse look
            [170, 170, 190, 190],  # its middle pip, which the fine look took for a one
            [400, 100, 440, 140],  # a die of the usual size, fine look
            [440, 100, 480, 140],  # and its neighbour
            [395, 95, 485, 145],  # both seen as one big die by the coarse look
            [600, 100, 640, 140],  # a die alone
        ],
        float,
    )
    added = np.array([True, False, False, False, True, False])
    kept = big_dice_checked(boxes, np.ones(6, bool), added)
    assert kept.tolist() == [True, False, True, True, False, True]
    # What the reader turned down takes nothing with it.
    kept = big_dice_checked(boxes, np.array([False, True, True, True, True, True]), added)
    assert kept.tolist() == [False, True, True, True, False, True]


def test_the_coarse_look_finds_close_up_dice_and_leaves_usual_photos_as_they_were():
    from scanner.synth.scene import SceneConfig, render_scene
    from scanner.vision.evaluate import match

    plain, coarse = DiceDetector(imgsz=640), DiceDetector(imgsz=640, coarse=320)
    found = {"plain": 0, "coarse": 0}
    truth = 0
    for seed in range(6):  # rendered close-ups: dice of 90-170 px in a 640x480 photo
        scene = render_scene(
            5700 + seed,
            SceneConfig(width=640, height=480, min_dice=2, max_dice=4, die_px=(90.0, 170.0)),
        )
        boxes = np.array([d.box for d in scene.dice], float)
        truth += len(boxes)
        for name, det in (("plain", plain), ("coarse", coarse)):
            found[name] += len(match(boxes, det.detect(scene.image).xyxy))
    # Validation found 88 % of such dice with the coarse look and 18 % without (model card).
    assert found["coarse"] >= 0.75 * truth and found["plain"] <= 0.25 * truth
    photo = load_image(str(DICE8 / "images" / "val" / "s7927_000000.jpg"))
    assert plain.detect(photo).to_json() == coarse.detect(photo).to_json()


class _Reader:
    """A face reader that says what it is told: P(die) per box, every die a 3, blue."""

    certainty = None

    def __init__(self, p_die):
        self.p_die = np.asarray(p_die, float)

    def read(self, img, boxes, others=None, paper=False):
        n = len(boxes)
        value, color = np.zeros((n, 6)), np.zeros((n, 6))
        value[:, 2], color[:, 0] = 1.0, 1.0
        return self.p_die[:n], value, color


@pytest.mark.parametrize(
    "options, kept",
    [
        ({}, [0, 3]),  # the sure box the reader doubts stays; the one it rules out goes
        ({"sure": False}, [3]),  # the reader alone
        ({"conf": 0.5}, [3]),  # a threshold given by hand is the only rule
    ],
)
def test_a_box_the_detector_is_sure_of_needs_less_of_the_reader(monkeypatch, options, kept):
    from scanner.vision import detect

    boxes = np.array(
        [[10, 10, 60, 60], [100, 100, 150, 150], [200, 200, 250, 250], [300, 300, 350, 350]],
        float,
    )
    scores = np.array([0.9, 0.9, 0.3, 0.9])  # the detector: sure, sure, unsure, sure
    p_die = [0.2, 0.01, 0.2, 0.8]  # the reader: doubts, rules out, doubts, takes
    det = DiceDetector(DEFAULT_MODEL, reader=False, **options)
    det.reader, det.conf = _Reader(p_die), det.conf if "conf" in options else detect.READ_CONF
    monkeypatch.setattr(det, "candidates", lambda img, conf=None, imgsz=None: (boxes, None, scores))
    dice = det.detect(np.zeros((400, 400, 3), np.uint8))
    assert dice.xyxy.tolist() == boxes[kept].tolist()
    assert set(dice.value.tolist()) == {3}
    # A die kept on the detector's word carries the detector's score, the others the reader's.
    expected = [0.9 if k == 0 else p_die[k] for k in kept]
    assert dice.confidence.tolist() == pytest.approx(expected)


def _blue_and_green(state):
    """`state` (a two-player game) played by blue and green."""
    import json

    from scanner.rules.state import BoardState

    text = json.dumps(state.to_json())
    for player, colour in zip(state.players, ("blue", "green"), strict=True):
        text = text.replace(f'"{player}"', f'"{colour}"')
    return BoardState.from_json(json.loads(text))


@pytest.mark.parametrize("game", [0, 2])
def test_on_the_board_the_paper_not_the_dice_says_the_lights_colour(game):
    """A game of blue and green only, in lighter shades than the reader learnt: the dice's own
    light calls the light blue-green, and divided by it blue dice were read grey and green ones
    yellow. Read in the light of the sheet's paper, every blue die is blue, and no die is
    named the colour of a player who is not at the table (unknown is allowed: a question)."""
    import itertools

    from scanner.synth.table import DiceSet, mid_game_states, render_table
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout
    from scanner.vision.scan import scan_image

    two = (
        s
        for s in mid_game_states(5)
        if len(s.players) == 2 and sum(s.placed(p) for p in s.players) >= 10
    )
    state = _blue_and_green(next(itertools.islice(two, game, None)))
    white = (0.95, 0.95, 0.93)
    lighter = DiceSet(
        {"blue": (0.33, 0.53, 0.83), "green": (0.48, 0.72, 0.2)},
        dict.fromkeys(("blue", "green"), white),
    )
    frame = render_table(state, (77, game, 0), dice=lighter)
    layout = default_layout()
    cal = calibrate(frame.image, layout)
    read = scan_image(
        frame.image, cal, DiceDetector(DEFAULT_MODEL, imgsz=0, board=True), ["blue", "green"]
    )
    blue = sum(d.player == "blue" for d in frame.dice)
    assert blue >= 6 and [d.color for d in read.dice].count("blue") == blue
    assert {d.color for d in read.dice} <= {"blue", "green", None}
