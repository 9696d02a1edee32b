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


# Debian's chromium as Playwright drives it here (NOTES.md): never `playwright install`.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def serve(data, port: int, *extra: str, stderr=subprocess.PIPE):
    """`alea serve` on 127.0.0.1:`port` in its own process, once it answers: (process, url)."""
    import time
    import urllib.request

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scanner",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data",
            str(data),
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"{url}/api/game", timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"alea serve did not start: {proc.stderr.read() if proc.stderr else ''}")
