"""The code style is checked, not hoped for: ruff's lint rules and its formatter (the settings
in pyproject.toml) over the whole tree, and mypy's types, file by file never worse than the
recorded baseline (the errors left from before types were checked; fixing one lowers it)."""

import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from tests.cli import ROOT


@pytest.mark.parametrize(
    "args", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"]
)
def test_ruff_is_clean(args):
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


BASELINE = ROOT / "tests" / "mypy_baseline.json"


def mypy_errors() -> Counter:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2: mypy itself failed
    return Counter(
        m.group(1) for m in re.finditer(r"^([\w/.]+\.py):\d+: error:", proc.stdout, re.M)
    )


@pytest.mark.slow
def test_no_file_has_more_type_errors_than_its_baseline():
    pytest.importorskip("mypy")
    allowed = json.loads(BASELINE.read_text())
    worse = {
        f: f"{n} errors, baseline {allowed.get(f, 0)}"
        for f, n in mypy_errors().items()
        if n > allowed.get(f, 0)
    }
    assert not worse, f"new mypy errors (python -m mypy): {worse}"
