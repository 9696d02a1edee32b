"""The figures' arithmetic: IoU, one-to-one matching, and the tally of a known case."""

from __future__ import annotations

import numpy as np

from scanner.vision.dice import Dice
from scanner.vision.evaluate import evaluate, format_table, iou_matrix, match


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
    pred = Dice(np.array([[10, 10, 30, 30], [100, 50, 140, 90], [150, 0, 160, 10]], float),
                np.array([3, 5, 1]), np.array([0.9, 0.8, 0.4]), ["blue", None, None])
    t = evaluate(FakeDetector(pred), tmp_path / "images", tmp_path / "labels", "t",
                 tmp_path / "colors")
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
    t.add(boxes, truth_values, truth_colors,
          Dice(boxes, np.array([3, 6]), np.array([0.9, 0.9]), ["blue", "grey"]))
    # all right
    t.add(boxes, truth_values, truth_colors,
          Dice(boxes, np.array([3, 6]), np.array([0.9, 0.9]), ["blue", None]))
    # a value wrong: wrong either way
    t.add(boxes, truth_values, truth_colors,
          Dice(boxes, np.array([3, 5]), np.array([0.9, 0.9]), ["blue", None]))
    # one die missed: wrong either way
    t.add(boxes, truth_values, truth_colors,
          Dice(boxes[:1], np.array([3]), np.array([0.9]), ["blue"]))
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
    res = subprocess.run(
        [sys.executable, "-m", "scanner", "eval", "--synth-n", "2", "--synth-dir",
         str(tmp_path / "synth"), "--real-dir", str(real), "--json"],
        capture_output=True, text=True, cwd=repo, timeout=300)
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [r["images"] for r in rows] == [2, 2]
    assert rows[0]["color_acc"] is not None and rows[1]["color_acc"] is None
    assert all(0 <= r["recall"] <= 100 for r in rows)
