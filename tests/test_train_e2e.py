"""A tiny end-to-end run: train one epoch on the committed 8-image sample, export ONNX, read it
back with onnxruntime through DiceDetector. Slow (~1 min) and needs the `train` extra."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_train_export_infer(tmp_path):
    pytest.importorskip("ultralytics")
    from scanner.train import OPSET, export_onnx, train
    from scanner.vision.detect import DiceDetector

    data_dir = tmp_path / "dice8"
    shutil.copytree(REPO / "datasets" / "dice8", data_dir)  # ultralytics writes label caches
    best = train(data_dir / "data.yaml", epochs=1, imgsz=160, batch=4, name="e2e", workers=0,
                 project=tmp_path / "runs", cache=False)
    assert best.exists()
    onnx_path = export_onnx(best, tmp_path / "dice.onnx", imgsz=160)

    import onnx

    model = onnx.load(str(onnx_path))
    assert any(op.domain in ("", "ai.onnx") and op.version == OPSET for op in model.opset_import)

    det = DiceDetector(onnx_path, imgsz=160, conf=0.0, colors=False)
    out = det.session.run(None, {det.input_name: np.zeros((1, 3, 160, 160), np.float32)})[0]
    assert out.shape == (1, 10, 525)  # 20² + 10² + 5² anchors
    import cv2

    img = cv2.imread(str(next((data_dir / "images" / "val").glob("*.jpg"))))
    dice = det.detect(img)  # an untrained model: any output, but valid and in image pixels
    assert len(dice) <= 300
    assert (dice.xyxy[:, 2] <= img.shape[1]).all() and (dice.xyxy[:, 3] <= img.shape[0]).all()
