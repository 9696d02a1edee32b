"""A tiny end-to-end run: train one epoch on the committed 8-image sample, export ONNX, read it
back with onnxruntime through DiceDetector. Slow (~1 min) and needs the `train` extra."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_train_export_infer(tmp_path):
    pytest.importorskip("ultralytics")
    from scanner.training.detector import OPSET, export_onnx, train
    from scanner.vision.detect import DiceDetector

    data_dir = tmp_path / "dice8"
    shutil.copytree(REPO / "datasets" / "dice8", data_dir)  # ultralytics writes label caches
    from scanner.training.recipe import recipe

    best = train(
        data_dir / "data.yaml",
        model=recipe("detector")["model"],
        lr0=recipe("detector")["lr0"],
        optimizer=recipe("detector")["optimizer"],
        epochs=1,
        imgsz=160,
        batch=4,
        name="e2e",
        workers=0,
        project=tmp_path / "runs",
        cache=False,
    )
    assert best.exists()
    onnx_path = export_onnx(best, tmp_path / "dice.onnx", imgsz=160)

    import onnx

    model = onnx.load(str(onnx_path))
    assert any(op.domain in ("", "ai.onnx") and op.version == OPSET for op in model.opset_import)

    det = DiceDetector(onnx_path, imgsz=160, conf=0.0, colors=False, reader=False)
    out = det.session.run(None, {det.input_name: np.zeros((1, 3, 160, 160), np.float32)})[0]
    assert out.shape == (1, 10, 525)  # 20² + 10² + 5² anchors
    import cv2

    img = cv2.imread(str(next((data_dir / "images" / "val").glob("*.jpg"))))
    dice = det.detect(img)  # an untrained model: any output, but valid and in image pixels
    assert len(dice) <= 300
    assert (dice.xyxy[:, 2] <= img.shape[1]).all() and (dice.xyxy[:, 3] <= img.shape[0]).all()


def dice8_crops(split: str, copies: int, jitter: bool = True):
    """The reader's crops of the small sample set's `split`, its labelled boxes only."""
    from scanner.training import face_data
    from scanner.vision.evaluate import images_in

    sample = REPO / "datasets" / "dice8"
    return face_data.collect(
        images_in(sample / "images" / split),
        sample / "labels" / split,
        sample / "colors" / split,
        None,
        copies=copies,
        seed=0,
        jitter=jitter,
    )


@pytest.mark.slow
def test_face_reader_train_export_read(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from scanner.training import face_data, face_model, face_train
    from scanner.vision.evaluate import images_in
    from scanner.vision.face import FaceReader

    monkeypatch.setattr(face_train, "RUNS", tmp_path / "runs")
    sample = REPO / "datasets" / "dice8"
    paths = images_in(sample / "images" / "train")
    data = dice8_crops("train", copies=3)
    labels = sum(
        len((sample / "labels" / "train" / f"{p.stem}.txt").read_text().split("\n")) - 1
        for p in paths
    )
    pos = data.die == 1
    assert pos.sum() == 3 * labels and (data.color[pos] >= 0).all()
    # without a detector the only negatives are the squares of bare surface, two an image at most
    assert 0 < (~pos).sum() <= face_data.SURFACE_NEGATIVES * len(paths)
    assert (data.value[~pos] == -1).all() and (data.color[~pos] == -1).all()
    val = dice8_crops("val", copies=1, jitter=False)
    best = face_train.train(data, {"val": val}, "e2e", epochs=2, batch=16)
    log = (tmp_path / "runs" / "e2e" / "log.jsonl").read_text().splitlines()
    assert len(log) == 2  # one row per epoch; a second call resumes and trains no more
    face_train.train(data, {"val": val}, "e2e", epochs=2, batch=16)
    assert len((tmp_path / "runs" / "e2e" / "log.jsonl").read_text().splitlines()) == 2

    onnx_path = face_model.export_onnx(best, tmp_path / "face.onnx")
    reader = FaceReader(onnx_path)
    import cv2

    img = cv2.imread(str(paths[0]))
    die, value, color = reader.read(img, np.array([[10, 10, 50, 50], [0, 0, 5, 300]], float))
    assert die.shape == (2,) and value.shape == (2, 6) and color.shape == (2, 6)
    assert np.allclose(value.sum(1), 1, atol=1e-5)


@pytest.mark.slow
def test_a_board_reader_learns_from_board_frames_alone_and_starts_from_a_reader(
    tmp_path, monkeypatch
):
    """`alea train --stage face --face-n 0 --face-init R`: board frames only (half of them under
    a wide lamp's glare, dice of no player's colour among the players' when asked), and the
    weights start as R's, not at random."""
    pytest.importorskip("torch")
    import torch

    from scanner.training import face_sets, face_train
    from scanner.vision.face import COLOR_CLASSES

    monkeypatch.setattr(face_train, "RUNS", tmp_path / "runs")
    out = tmp_path / "boards"
    train, val = face_sets.prepare(
        out, None, synth_n=0, boards=2, board_val=1, board_glare=0.8, board_others=3
    )
    assert set(val) == {"val_board"} and not (out / "synth").exists()
    pos = train.die == 1
    assert pos.sum() > 0 and (train.color[pos] >= 0).all()  # every board die has its colour
    assert (train.color[pos] == COLOR_CLASSES.index("other")).any()
    drawn = json.loads((out / "boards.json").read_text())
    assert drawn["glare"] == 0.8 and drawn["others"] == 3
    first = face_train.train(train, val, "first", epochs=1, batch=64)
    # Nothing learnt (a learning rate of ~0): the run ends where it began, at `first`'s weights.
    again = face_train.train(train, val, "again", epochs=1, batch=64, lr=1e-12, init=first)
    a, b = (torch.load(p, weights_only=False)["model"] for p in (first, again))
    weights = [k for k in a if "running" not in k and "num_batches" not in k]  # not BN's stats
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in weights)
    fresh = face_train.train(train, val, "fresh", epochs=1, batch=64, lr=1e-12)
    c = torch.load(fresh, weights_only=False)["model"]
    assert not all(torch.allclose(a[k], c[k], atol=1e-6) for k in weights)


@pytest.mark.slow
def test_a_reader_that_learns_only_what_is_no_die_keeps_every_other_weight(tmp_path, monkeypatch):
    """`--face-learns gate`: the reader gains a die-or-not branch, which learns; every other
    weight and the batch norms' statistics stay the init reader's, so its values and colours
    are the init reader's, exported too."""
    pytest.importorskip("torch")
    import torch

    from scanner.training import face_model, face_train
    from scanner.vision.evaluate import images_in

    monkeypatch.setattr(face_train, "RUNS", tmp_path / "runs")
    sample = REPO / "datasets" / "dice8"
    data = dice8_crops("train", copies=2)
    first = face_train.train(data, {"val": data}, "first", epochs=1, batch=32)
    gate = face_train.train(
        data, {"val": data}, "gate", epochs=2, batch=32, lr=0.05, init=first, learns="gate"
    )
    a, b = (torch.load(p, weights_only=False)["model"] for p in (first, gate))
    assert set(b) - set(a) and all(k.startswith("gate.") for k in set(b) - set(a))
    assert all(torch.equal(a[k], b[k]) for k in a)  # BN statistics too

    import cv2

    from scanner.vision.face import FaceReader

    img = cv2.imread(str(images_in(sample / "images" / "val")[0]))
    boxes = np.array([[10, 10, 50, 50], [60, 40, 110, 95]], float)
    readings = [
        FaceReader(face_model.export_onnx(p, tmp_path / f"{p.parent.name}.onnx")).read(img, boxes)
        for p in (first, gate)
    ]
    (die_a, value_a, color_a), (die_b, value_b, color_b) = readings
    assert np.array_equal(value_a, value_b) and np.array_equal(color_a, color_b)
    assert not np.array_equal(die_a, die_b)
