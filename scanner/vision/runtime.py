"""One way to open an ONNX model with onnxruntime, for the detector and the face reader alike.

A missing or unloadable file is the contract's InputError (never an onnxruntime traceback), and
the thread count follows the cores this process may use, not the host's count, which containers
overstate. onnxruntime's own memory arena is off: it keeps the largest activations a board ever
needed for the life of the process, where a long-running server wants them back
(`give_back_memory`); without it inference is as fast on these boards (benchmarks/idle_serve.py).
"""

from __future__ import annotations

import contextlib
import ctypes
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
    opts.enable_cpu_mem_arena = False
    # Worker threads that spin between operators take the core the face reader and the live
    # loop need on a 2-core machine: sleeping ones make a board read faster, not slower.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise InputError("model.unreadable", f"cannot load {what} {model}: {exc}", where) from None


def give_back_memory() -> None:
    """Return freed heap memory to the operating system. A full board's activations are tens of
    megabytes; once freed, glibc keeps them in the process unless asked. A no-op elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
