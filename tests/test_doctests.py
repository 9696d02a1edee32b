"""The docstring examples of the rules modules are part of the documentation: keep them true."""

import doctest
import importlib

import pytest

MODULES = ["components", "state", "placement", "moves", "round", "game"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(f"scanner.rules.{name}")
    failed, tried = doctest.testmod(module)
    assert tried > 0, f"{name} has no examples"
    assert failed == 0
