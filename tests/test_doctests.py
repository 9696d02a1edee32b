"""The docstring examples of the rules and the referee's modules are part of the
documentation: keep them true."""

import doctest
import importlib

import pytest

MODULES = [
    f"scanner.rules.{m}" for m in ("components", "state", "placement", "moves", "round", "game")
]
MODULES += [
    "scanner.changes",
    "scanner.inputs",
    "scanner.corrections",
    "scanner.referee",
    "scanner.record",
    "scanner.session",
    "scanner.synth.disturb",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    failed, tried = doctest.testmod(module)
    assert tried > 0, f"{name} has no examples"
    assert failed == 0
