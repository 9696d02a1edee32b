"""The shipped models, found and opened for the live loop, the web API and the commands.

`scanner.vision.detect` pulls in onnxruntime, which the pipeline itself never needs (tests
pass a fake detector), so it is imported only when a detector is asked for.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from scanner.errors import InputError
from scanner.shipped import shipped

# The board detector (`alea train --stage board`) and the scale it reads the board at, chosen
# on validation boards (models/MODEL_CARD.md).
BOARD_MODEL = shipped("models/board.onnx")
BOARD_SCALE = shipped("models/board.json")


def load_detector(model: str | None, imgsz: int = 0, px_per_mm: float = 3.0):
    """The real detector for the rectified board, a `Detect` (called with an image; its
    `within` reads parts of one, `scanner.vision.reread`); InputError
    `model.missing` when there is none. `imgsz=0` reads the board at its own scale
    (`px_per_mm`, the layout's): with the shipped models, the board detector when there is
    one, which shrinks the board to the scale it learnt (cheaper than the detector's full-scale
    read, and as right on validation boards), else the detector at full scale.
    The shipped model (`model` None) is opened once per process and shared: a server's camera
    loop and its `/api/scan` use one copy (the detector holds no state between calls, and
    onnxruntime sessions may run from several threads)."""
    if model is None:
        return _shipped(imgsz, px_per_mm)
    return _open(model, imgsz)


def board_model(px_per_mm: float = 3.0) -> tuple[Path, float] | None:
    """The shipped board detector and the factor it shrinks a board rectified at `px_per_mm`
    by, or None when none is shipped."""
    if not (BOARD_MODEL.is_file() and BOARD_SCALE.is_file()):
        return None
    learnt = float(json.loads(BOARD_SCALE.read_text())["px_per_mm"])
    return BOARD_MODEL, learnt / px_per_mm


@cache
def _shipped(imgsz: int, px_per_mm: float):
    board = board_model(px_per_mm) if imgsz == 0 else None
    if board is not None:
        return _open(str(board[0]), 0, board[1])
    return _open(None, imgsz)


def _open(model: str | None, imgsz: int, factor: float | None = None):
    try:
        from scanner.vision import detect as detect_module
    except ImportError as exc:
        raise InputError(
            "model.missing", f"the dice detector is not installed (scanner.vision.detect: {exc})"
        ) from None
    if model is not None and not Path(model).is_file():
        raise InputError("model.missing", f"no detector model at {model}", "$.model")
    try:
        detector = detect_module.DiceDetector(
            model or detect_module.DEFAULT_MODEL, imgsz=imgsz, factor=factor
        )
    except InputError as err:
        code = "model.missing" if err.code == "model.not-found" else "model.unloadable"
        raise InputError(code, err.message, "$.model") from None
    except (FileNotFoundError, OSError) as exc:
        raise InputError("model.missing", f"no detector model: {exc}", "$.model") from None
    except Exception as exc:  # a model file onnxruntime cannot load is bad input, not a crash
        raise InputError(
            "model.unloadable", f"cannot load the detector model: {exc}", "$.model"
        ) from None
    return detector
