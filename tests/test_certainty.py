"""A die's confidence means how often such a reading is right (scanner.vision.certainty): the
map's fit, its file, and what the detector and the palette report with it."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from scanner.vision import certainty
from scanner.vision.certainty import Certainty, Step


def test_the_fit_is_monotone_and_says_how_often_readings_are_right():
    rng = np.random.default_rng(0)
    score = rng.uniform(0, 1, 20_000)
    right = rng.uniform(0, 1, 20_000) < score**2  # a score that over-states how often it is right
    step = certainty.fit(score, right)
    assert np.all(np.diff(step.shares) >= 0) and np.all(np.diff(step.bounds) >= 0)
    for q in (0.3, 0.6, 0.9):
        assert abs(float(step(np.array([q]))[0]) - q**2) < 0.05
    # No step claims certainty: 500 readings all right say (500 + 1) / (500 + 2).
    all_right = certainty.fit(np.linspace(0.9, 1, 500), np.ones(500))
    assert len(all_right) == 1 and np.isclose(all_right.shares[0], 501 / 502)
    assert float(all_right(np.array([2.0]))[0]) == pytest.approx(501 / 502)  # past the last bound


def test_the_map_file_round_trips_and_a_bad_one_is_refused(tmp_path):
    sure = Certainty(
        Step(np.array([0.5, 0.9]), np.array([0.4, 0.95])), Step(np.array([1.0]), np.array([0.99]))
    )
    back = Certainty.from_json(json.loads(json.dumps(sure.to_json())))
    assert np.array_equal(back.read.shares, sure.read.shares)
    with pytest.raises(ValueError):
        Step.from_json({"bounds": [0.5, 0.9], "shares": [0.9, 0.4]})  # falling
    model = tmp_path / "reader.onnx"
    certainty.beside(model).write_text("{not json")
    assert certainty.load(model) is None  # unreadable: the reader reports P(die), as before
    certainty.beside(model).write_text(json.dumps(sure.to_json()))
    loaded = certainty.load(model)
    assert loaded is not None and np.array_equal(loaded.value.bounds, sure.value.bounds)


def test_a_reading_unsure_of_its_colour_is_less_sure():
    from scanner.vision.face import DEFAULT_FACE_MODEL

    sure = certainty.load(DEFAULT_FACE_MODEL)
    assert sure is not None, "the shipped reader has its map"
    p_die = np.array([0.999, 0.999])
    p_value = np.array([[0.99, 0, 0, 0, 0, 0.01]] * 2)
    p_color = np.array([[0.99, 0, 0, 0, 0, 0.01], [0.5, 0.45, 0, 0, 0, 0.05]])
    both = sure.of(p_die, p_value, p_color)
    assert both[0] > 0.99 and both[1] < 0.7
    # Its value alone is as sure either way.
    alone = sure.of(p_die, p_value, None)
    assert alone[0] == alone[1] > 0.99


@pytest.fixture(scope="module")
def frame():
    from scanner.synth.scene import SceneConfig, render_scene

    return render_scene((31338, 0), SceneConfig(width=640, height=640, min_dice=10, max_dice=14))


def test_the_detector_reports_the_maps_confidence(frame, tmp_path):
    from scanner.vision.detect import DiceDetector
    from scanner.vision.face import DEFAULT_FACE_MODEL

    mapped = DiceDetector(imgsz=640).detect(frame.image)
    assert len(mapped) >= 8
    sure = certainty.load(DEFAULT_FACE_MODEL)
    shares = set(sure.read.shares.tolist())
    assert set(mapped.confidence.tolist()) <= shares
    assert set(mapped.data["value_confidence"][:, 0].tolist()) <= set(sure.value.shares.tolist())
    # A reader with no map beside it reports P(die), as before.
    bare = tmp_path / "face.onnx"
    shutil.copy(DEFAULT_FACE_MODEL, bare)
    raw = DiceDetector(imgsz=640, reader=str(bare)).detect(frame.image)
    assert np.array_equal(raw.xyxy, mapped.xyxy) and "value_confidence" not in raw.data
    assert not set(raw.confidence.tolist()) <= shares


def test_with_a_palette_a_die_is_as_sure_as_its_value():
    """A board whose colours the table's palette names reports how sure each value is."""
    from dataclasses import replace

    from scanner.synth.table import mid_game_states, render_table
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout
    from scanner.vision.models import load_detector
    from scanner.vision.palette import BUILT_IN
    from scanner.vision.scan import scan_image

    layout = default_layout()
    frame = render_table(next(mid_game_states(21, layout)), 21)
    cal = calibrate(frame.image, layout)
    detect = load_detector(None, 0, layout.px_per_mm)
    reader = scan_image(frame.image, cal, detect).dice
    palette = scan_image(frame.image, replace(cal, palette=BUILT_IN), detect).dice
    assert len(reader) == len(palette) >= 5
    assert np.array_equal(palette.confidence, palette.data["value_confidence"][:, 0])
    assert np.array_equal(reader.data["value_confidence"], palette.data["value_confidence"])
