"""The figures' arithmetic: IoU, one-to-one matching, and the tally of a known case."""

from __future__ import annotations

import numpy as np

from scanner.vision.boxes import iou_matrix
from scanner.vision.dice import Dice
from scanner.vision.evaluate import evaluate, format_table, match


def test_iou_and_match():
    a = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], float)
    b = np.array([[0, 0, 10, 6], [21, 21, 31, 31], [100, 100, 110, 110]], float)
    iou = iou_matrix(a, b)
    assert np.isclose(iou[0, 0], 0.6) and iou[0, 2] == 0
    assert match(a, b) == [(1, 1), (0, 0)]
    assert match(a, b, thr=0.65) == [(1, 1)]  # iou 81/119
    assert match(a, np.zeros((0, 4))) == []


class FakeDetector:
    def __init__(self, dice):
        self.dice = dice

    def detect(self, img):
        return self.dice


def test_tally(tmp_path):
    import cv2

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "colors").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.zeros((100, 200, 3), np.uint8))
    # two dice: value 3 at (10..30, 10..30), value 6 at (100..140, 50..90)
    (tmp_path / "labels" / "a.txt").write_text("2 0.1 0.2 0.1 0.2\n5 0.6 0.7 0.2 0.4\n")
    (tmp_path / "colors" / "a.txt").write_text("blue\nred\n")
    pred = Dice(
        np.array([[10, 10, 30, 30], [100, 50, 140, 90], [150, 0, 160, 10]], float),
        np.array([3, 5, 1]),
        np.array([0.9, 0.8, 0.4]),
        ["blue", None, None],
    )
    t = evaluate(
        FakeDetector(pred), tmp_path / "images", tmp_path / "labels", "t", tmp_path / "colors"
    )
    row = t.row()
    assert row["recall"] == 100.0 and row["precision"] == 66.67
    assert row["value_acc"] == 50.0 and row["color_acc"] == 100.0 and row["images_right"] == 0.0
    assert "recall" in format_table([row]).splitlines()[0]


def test_an_image_wrong_only_in_colour_is_right_but_colour():
    from scanner.vision.evaluate import Tally

    boxes = np.array([[10, 10, 30, 30], [100, 50, 140, 90]], float)
    truth_values, truth_colors = np.array([3, 6]), ["blue", None]
    t = Tally("t")
    # every die found with its value, one colour wrong
    t.add(
        boxes,
        truth_values,
        truth_colors,
        Dice(boxes, np.array([3, 6]), np.array([0.9, 0.9]), ["blue", "grey"]),
    )
    # all right
    t.add(
        boxes,
        truth_values,
        truth_colors,
        Dice(boxes, np.array([3, 6]), np.array([0.9, 0.9]), ["blue", None]),
    )
    # a value wrong: wrong either way
    t.add(
        boxes,
        truth_values,
        truth_colors,
        Dice(boxes, np.array([3, 5]), np.array([0.9, 0.9]), ["blue", None]),
    )
    # one die missed: wrong either way
    t.add(
        boxes, truth_values, truth_colors, Dice(boxes[:1], np.array([3]), np.array([0.9]), ["blue"])
    )
    row = t.row()
    assert row["images_right"] == 25.0 and row["right_but_colour"] == 50.0


def test_eval_command_prints_rows(tmp_path):
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    real = tmp_path / "real"
    shutil.copytree(repo / "datasets" / "dice8" / "images" / "val", real / "images")
    shutil.copytree(repo / "datasets" / "dice8" / "labels" / "val", real / "labels")
    keys = tmp_path / "keys"  # a stress set: any labelled photos, a row of their own
    shutil.copytree(repo / "datasets" / "dice8" / "images" / "train", keys / "images")
    shutil.copytree(repo / "datasets" / "dice8" / "labels" / "train", keys / "labels")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "scanner",
            "eval",
            "--synth-n",
            "2",
            "--synth-dir",
            str(tmp_path / "synth"),
            "--real-dir",
            str(real),
            "--photos",
            str(keys),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=repo,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [r["images"] for r in rows] == [2, 2, 6]
    assert rows[2]["set"] == "keys"
    assert rows[0]["color_acc"] is not None and rows[1]["color_acc"] is None
    assert all(0 <= r["recall"] <= 100 for r in rows)


def test_dice_take_keeps_the_chosen_dice_in_order():
    d = Dice(
        np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float),
        np.array([1, 2, 3]),
        np.array([0.5, 0.6, 0.7]),
        ["brown", None, "blue"],
    )
    t = d.take([2, 0])
    assert t.value.tolist() == [3, 1] and t.color == ["blue", "brown"]
    assert t.xyxy[0].tolist() == [40, 0, 50, 10] and t.confidence.tolist() == [0.7, 0.5]
    assert d.take(np.array([False, True, False])).value.tolist() == [2]
    assert len(d.take([])) == 0 and len(Dice.empty().take([])) == 0


def test_dice_the_frame_cuts_are_set_aside_with_the_boxes_over_them():
    # benchmarks/frame_edge.py: a die mostly out of the frame need not be found, and whatever
    # is reported over it is neither right nor false; every other die is scored as before.
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from frame_edge import set_aside

    truth = np.array([[0, 0, 12, 40], [100, 100, 140, 140], [200, 0, 240, 15]], float)
    keep = np.array([False, True, False])
    found = np.array(
        [
            [0, 0, 12, 40],  # matched to the first cut die: goes with it
            [101, 100, 140, 141],  # the whole die: kept
            [205, 0, 225, 25],  # not matched, but mostly over the third: goes
            [300, 300, 340, 340],
        ],
        float,
    )  # a false box elsewhere: kept
    ti, dj = set_aside(truth, found, keep)
    assert ti.tolist() == [1] and dj == [1, 3]
    # nothing set aside: nothing changes
    ti, dj = set_aside(truth, found, np.ones(3, bool))
    assert ti.tolist() == [0, 1, 2] and dj == [0, 1, 2, 3]


def test_markdown_table_is_the_model_cards_shape():
    from scanner.vision.evaluate import Tally, markdown_table

    t = Tally("seed 9")
    boxes = np.array([[10, 10, 30, 30]], float)
    t.add(boxes, np.array([3]), None, Dice(boxes, np.array([3]), np.array([0.9]), [None]))
    lines = markdown_table([t.row()], "light").splitlines()
    assert lines[0] == (
        "| light | recall | precision | value | colour | images right | right but colour |"
    )
    assert lines[1] == "|---|---|---|---|---|---|---|"
    assert lines[2] == "| seed 9 | 100.0 | 100.0 | 100.0 | - | 100.0 | 100.0 |"
