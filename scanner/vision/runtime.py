"""One way to open an ONNX model with onnxruntime, for the detector and the face reader alike.

A missing or unloadable file is the contract's InputError (never an onnxruntime traceback), and
the thread count follows the cores this process may use, not the host's count, which containers
overstate.
"""

from __future__ import annotations

import os
from pathlib import Path

from scanner.errors import InputError


def open_session(
    model: str | os.PathLike,
    threads: int | None = None,
    what: str = "model",
    where: str = "$.model",
):
    """An onnxruntime CPU session for `model`; `what` names it in error messages, `where` is
    the error's path (the option that named the file)."""
    import onnxruntime as ort

    model = Path(model)
    if not model.is_file():
        raise InputError("model.not-found", f"no {what} at {model}", where)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or min(len(os.sched_getaffinity(0)), 4)
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise InputError("model.unreadable", f"cannot load {what} {model}: {exc}", where) from None
