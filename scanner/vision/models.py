"""The shipped models, found and opened for the live loop, the web API and the commands.

`scanner.vision.detect` pulls in onnxruntime, which the pipeline itself never needs (tests
pass a fake detector), so it is imported only when a detector is asked for.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from scanner.errors import InputError


def load_detector(model: str | None, imgsz: int = 0):
    """The real detector for the rectified board, a `Detect` (called with an image; its
    `within` reads parts of one, `scanner.vision.reread`); InputError
    `model.missing` when there is none. `imgsz=0` runs the network at the board's own scale,
    the scale it was trained at (`benchmarks/eval_table.py` shows what shrinking costs).
    The shipped model (`model` None) is opened once per process and shared: a server's camera
    loop and its `/api/scan` use one copy (the detector holds no state between calls, and
    onnxruntime sessions may run from several threads)."""
    if model is None:
        return _shipped(imgsz)
    return _open(model, imgsz)


@cache
def _shipped(imgsz: int):
    return _open(None, imgsz)


def _open(model: str | None, imgsz: int):
    try:
        from scanner.vision import detect as detect_module
    except ImportError as exc:
        raise InputError(
            "model.missing", f"the dice detector is not installed (scanner.vision.detect: {exc})"
        ) from None
    if model is not None and not Path(model).is_file():
        raise InputError("model.missing", f"no detector model at {model}", "$.model")
    try:
        detector = detect_module.DiceDetector(model or detect_module.DEFAULT_MODEL, imgsz=imgsz)
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
