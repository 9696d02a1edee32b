"""Every docstring example in the code is part of the documentation: keep it true. The modules
are found by their text (a `>>>` line not skipped), so a new module's examples run unlisted."""

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _has_examples(path: Path) -> bool:
    lines = path.read_text(encoding="utf-8").splitlines()
    return any(">>> " in ln and "doctest: +SKIP" not in ln for ln in lines)


MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for p in [*ROOT.glob("scanner/**/*.py"), *ROOT.glob("webui/**/*.py")]
    if _has_examples(p)
)


def test_the_examples_are_found():
    assert {"scanner.rules.state", "scanner.vision.dice", "scanner.vision.zones"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    failed, tried = doctest.testmod(module)
    assert tried > 0, f"{name} has no examples"
    assert failed == 0
