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


@pytest.mark.slow
def test_an_int8_board_detector_is_written_with_the_scale_it_reads_the_board_at(tmp_path):
    """`alea train --stage int8 --int8-px-per-mm S` writes NAME.json beside NAME.onnx, which is
    what makes the loader shrink the board to S (scanner.vision.models.board_scale)."""
    import json

    from scanner.vision.models import board_scale
    from tests.cli import alea

    out = tmp_path / "board.onnx"
    rc, result, err = alea(
        "train",
        "--stage",
        "int8",
        "--out",
        str(MODELS / "dice.onnx"),
        "--int8-px-per-mm",
        "1.75",
        "--int8-out",
        str(out),
        "--real-dir",
        "",
        timeout=600,
    )
    assert rc == 0, err
    assert json.loads(out.with_suffix(".json").read_text()) == {"px_per_mm": 1.75}
    assert board_scale(out) == 1.75
