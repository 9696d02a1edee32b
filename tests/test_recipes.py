"""The training recipes are the one source of `alea train`'s defaults: with no options, every
recipe value is what the command would use, and every key is an option with its comment."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from scanner.commands.train import REPO, STAGES, _arguments
from scanner.training.recipe import comments, recipe


def parsed(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    _arguments(p)
    return p.parse_args(list(argv))


@pytest.mark.parametrize("stage,prefix", STAGES)
def test_each_recipe_value_is_the_commands_default(stage, prefix):
    args = vars(parsed())
    for key, value in recipe(stage).items():
        got = args[(prefix + key).replace("-", "_")]
        if key.endswith("dir"):
            assert Path(got) == REPO / value
        elif isinstance(value, list):
            assert list(got) == value
        else:
            assert got == value and type(got) is type(value), key
        assert comments(stage).get(key) or key in ("epochs", "batch"), f"{stage}.{key} unexplained"


def test_an_option_overrides_its_recipe_value():
    args = parsed("--board-px-per-mm", "1.5", "1.8", "--face-epochs", "3", "--lr0", "0.002")
    assert args.board_px_per_mm == [1.5, 1.8] and args.face_epochs == 3 and args.lr0 == 0.002
