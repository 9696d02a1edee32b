"""The code style is checked, not hoped for: ruff's lint rules and its formatter (the settings
in pyproject.toml) over the whole tree."""

import subprocess
import sys

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
