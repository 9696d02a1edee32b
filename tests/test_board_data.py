"""The board detector's data (`alea train --stage board`): board tiles shrunk to the scale it
is to learn, with the boxes the full-scale detector draws, and real photos shrunk alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np

from scanner.training.detector import prepare_board, teacher_boxes
from scanner.vision.detect import DEFAULT_MODEL, DiceDetector

# Any photos with YOLO labels will do: the committed sample set's.
REAL = Path(__file__).resolve().parents[1] / "datasets" / "dice8"


def labels(folder: Path) -> list[np.ndarray]:
    """Per image: its label rows (class, cx, cy, w, h) with w and h in pixels."""
    out = []
    for image in sorted((folder / "images").rglob("*.jpg")):
        rows = Path(str(image).replace("/images/", "/labels/")).with_suffix(".txt").read_text()
        lab = np.array([r.split() for r in rows.split("\n") if r.strip()], float).reshape(-1, 5)
        h, w = cv2.imread(str(image)).shape[:2]
        lab[:, 3] *= w
        lab[:, 4] *= h
        assert max(h, w) == 320 or (h <= 320 and w <= 320)  # never resized again by training
        out.append(lab)
    return out


def test_board_tiles_are_at_the_scale_asked_with_the_teachers_boxes(tmp_path):
    teacher = DiceDetector(DEFAULT_MODEL, imgsz=0, reader=False, colors=False)
    real = tmp_path / "real_src"
    for sub in ("images", "labels"):
        (real / sub).mkdir(parents=True)
    photos = sorted((REAL / "images" / "train").glob("*.jpg"))[:4]
    assert len(photos) == 4
    for p in photos:
        shutil.copy(p, real / "images")
        shutil.copy(REAL / "labels" / "train" / f"{p.stem}.txt", real / "labels")
    out = tmp_path / "out"
    data = prepare_board(out, teacher, 2, 1, 11, real, 2, (1.5, 1.5), real_val_photos=1)
    assert "board/train/images" in data.read_text() and "real/images/train" in data.read_text()
    board = np.concatenate(labels(out / "board" / "train"))
    assert len(board) >= 4
    # A 16 mm die at 1.5 px/mm is 24 px across; the teacher's boxes take in its sides too.
    assert 22 <= np.median(board[:, 3]) <= 34
    photo = np.concatenate(labels(out / "real"))
    assert 14 <= np.median(photo[:, 3]) <= 34  # photo dice shrunk as the board's


def test_the_teacher_boxes_replace_true_boxes_it_finds_and_grow_the_others():
    class Teacher:
        def propose(self, board):
            return np.array([[8.0, 8.0, 62.0, 62.0], [108.0, 8.0, 162.0, 62.0]])

    true = np.array([[12.0, 12.0, 58.0, 58.0], [112.0, 12.0, 158.0, 58.0], [300, 300, 346, 346]])
    got = teacher_boxes(Teacher())(np.zeros((400, 400, 3), np.uint8), true)
    assert np.allclose(got[:2], Teacher().propose(None))
    assert np.allclose(got[2], [296, 296, 350, 350])  # grown by the median margin, 4 px a side


def test_board_tiles_keep_their_default_boards_and_draw_other_dice_only_when_asked(tmp_path):
    """The new options at their defaults leave the boards as they were drawn before (so the
    first board detector's data still comes out of them), a random set of dice changes the
    dice's look, not where they lie, and a larger lean another camera."""
    from scanner.synth.board_tiles import write_board_tiles

    def tiles(name: str, **options) -> tuple[bytes, str]:
        assert write_board_tiles(tmp_path / name, 1, 11, per_board=1, **options) == 1
        image = next((tmp_path / name / "images").glob("*.jpg"))
        label = next((tmp_path / name / "labels").glob("*.txt"))
        return image.read_bytes(), label.read_text()

    before = tiles("before")
    assert tiles("same", max_tilt=20.0, random_share=0.0) == before
    other = tiles("other", random_share=1.0)
    assert other[0] != before[0]
    assert other[1] == before[1]
    assert tiles("lean", max_tilt=30.0)[0] != before[0]  # another camera
