"""The int8 detector (`scanner.training.quantize`): which layers stay float, and the shipped
int8 file reads a rendered board as the float one does."""

from __future__ import annotations

from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[1] / "models"
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")


def test_float_layers_grow_from_decode_to_outputs_to_head():
    from scanner.training.quantize import HEAD, float_nodes

    decode, outputs, head = (
        float_nodes(MODELS / "dice.onnx", k) for k in ("decode", "outputs", "head")
    )
    assert set(decode) < set(outputs) < set(head)
    assert all(n.startswith(HEAD) for n in head)
    assert not any("/cv2." in n or "/cv3." in n for n in decode)  # the branches are quantized
    assert all(n.endswith("/Conv") for n in set(outputs) - set(decode))
    with pytest.raises(ValueError):
        float_nodes(MODELS / "dice.onnx", "everything")


def test_the_int8_detector_reads_a_rendered_board_as_the_float_one_does():
    from scanner.synth.table import mid_game_states, render_table
    from scanner.vision.calibrate import calibrate
    from scanner.vision.layout import default_layout
    from scanner.vision.models import load_detector
    from scanner.vision.scan import read_board_image
    from scanner.vision.stability import reading_key

    layout = default_layout()
    frame = render_table(next(mid_game_states(9100, layout)), 9100, layout)
    cal = calibrate(frame.image, layout)
    board = cal.rectify(frame.image)
    keys = [
        reading_key(read_board_image(board, cal, load_detector(str(MODELS / m)), None))
        for m in ("dice.onnx", "dice.int8.onnx")
    ]
    assert keys[0] == keys[1]
    assert '"dice": []' not in keys[0]
