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

# The board detector (`alea train --stage board`) read by default when shipped. A board
# detector is any detector with a sidecar NAME.json saying the scale it reads the board at
# ({"px_per_mm": S}, chosen on validation boards: models/MODEL_CARD.md).
BOARD_MODEL = shipped("models/board.onnx")
# The board detector shipped opt-in (`--model models/board.int8.onnx`), and the finder of a
# full read in two looks (`finder`; `alea eval --finder`): it finds the dice on the board
# shrunk to FIND_PX_PER_MM, the full-scale detector boxes them. Neither is the default: on the
# renderer that is not ours each reads a die or two worse than the full-scale read (model
# card, "A full read in two looks").
FINDER_MODEL = shipped("models/board.int8.onnx")
# Its training's smallest scale (boards of 1.4-2.1 px/mm): it finds, the detector boxes, and
# on validation boards it found as many dice at 1.4 as at 1.75, where it reads alone.
FIND_PX_PER_MM = 1.4


def board_scale(model: str | Path) -> float | None:
    """The px/mm a board detector reads the board at (its sidecar), or None for a detector
    that reads it at the scale it is rectified at."""
    sidecar = Path(model).with_suffix(".json")
    try:
        scale = float(json.loads(sidecar.read_text(encoding="utf-8"))["px_per_mm"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return scale if 0.5 <= scale <= 20 else None


def load_detector(model: str | None, imgsz: int = 0, px_per_mm: float = 3.0):
    """The real detector for the rectified board, a `Detect` (called with an image; its
    `within` reads parts of one, `scanner.vision.reread`); InputError
    `model.missing` when there is none. `imgsz=0` reads the board at its own scale
    (`px_per_mm`, the layout's), or, for a board detector (`board_scale`), shrunk to the scale
    it learnt; with no `model`, the shipped board detector when there is one, else the
    detector. The shipped model (`model` None) is opened once per process and shared: a
    server's camera loop and its `/api/scan` use one copy (the detector holds no state between
    calls, and onnxruntime sessions may run from several threads)."""
    if model is None:
        return _shipped(imgsz, px_per_mm)
    return _open(model, imgsz, board_factor(model, px_per_mm) if imgsz == 0 else None)


def board_factor(model: str | Path, px_per_mm: float = 3.0) -> float | None:
    """How much a board detector shrinks a board rectified at `px_per_mm`; None for others."""
    scale = board_scale(model)
    return scale / px_per_mm if scale is not None else None


def board_model() -> Path | None:
    """The shipped board detector, or None when none is shipped."""
    return BOARD_MODEL if BOARD_MODEL.is_file() and board_scale(BOARD_MODEL) else None


def finder(px_per_mm: float = 3.0):
    """The shipped board detector as the finder of a board rectified at `px_per_mm`
    (`DiceDetector.finder`: no face reader, the board shrunk to `FIND_PX_PER_MM`), or None
    when it is not shipped."""
    if not FINDER_MODEL.is_file() or board_scale(FINDER_MODEL) is None:
        return None
    return _finder(str(FINDER_MODEL), FIND_PX_PER_MM / px_per_mm)


def at_full_scale(detect):
    """`detect`, or for a board detector, or a detector with a finder, the shipped detector
    at the board's full scale alone: what the palette is learnt with. A board detector's boxes
    place dice as well, but a pixel off on a swatch die moves its colour reference (model
    card, "The board detector"), and the palette is learnt once, so time does not count."""
    owner = getattr(detect, "__self__", detect)  # a detector, or its bound `detect`
    if getattr(owner, "factor", None) is None and getattr(owner, "finder", None) is None:
        return detect
    return _full_scale()


@cache
def _full_scale():
    return _open(None, 0)


@cache
def _shipped(imgsz: int, px_per_mm: float):
    board = board_model() if imgsz == 0 else None
    if board is not None:
        return _open(str(board), 0, board_factor(board, px_per_mm))
    return _open(None, imgsz)


@cache
def _finder(model: str, factor: float):
    from scanner.vision.detect import DiceDetector

    return DiceDetector(model, imgsz=0, factor=factor, reader=False)


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
            model or detect_module.DEFAULT_MODEL, imgsz=imgsz, factor=factor, board=True
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
