"""The code style is checked, not hoped for: ruff's lint rules and its formatter (the settings
in pyproject.toml) over the whole tree, and mypy's types over the package."""

import re
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


def mypy_errors() -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2: mypy itself failed
    return re.findall(r"^[\w/.]+\.py:\d+: error:.*$", proc.stdout, re.M)


@pytest.mark.slow
def test_mypy_finds_no_type_error():
    """Strict for scanner.rules, the default checks elsewhere (pyproject.toml)."""
    pytest.importorskip("mypy")
    errors = mypy_errors()
    assert not errors, "python -m mypy:\n" + "\n".join(errors[:30])
