"""Run `alea` as a subprocess exactly as outside tools do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def alea(*args: str, stdin: str | None = None, timeout: float = 120):
    """Returns (exit code, parsed stdout or raw text, stderr). `timeout` only guards against a
    hang; it is no speed target (those are benchmarks)."""
    proc = subprocess.run(
        [sys.executable, "-m", "scanner", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError:
        out = proc.stdout
    return proc.returncode, out, proc.stderr


def assert_bad_input(rc, out, err, code=None, path=None):
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err and "Traceback" not in str(out)
    assert set(out) == {"error"} and set(out["error"]) == {"code", "message", "path"}
    assert len(err.strip().splitlines()) == 1
    if code:
        assert out["error"]["code"] == code, out
    if path:
        assert out["error"]["path"] == path, out
