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


def test_a_yes_no_recipe_key_is_a_pair_of_options():
    assert parsed().side_pips is False and parsed().face_side_pips is False
    args = parsed("--side-pips", "--face-side-pips", "--face-world", "0.5")
    assert args.side_pips is True and args.face_side_pips is True and args.face_world == 0.5
    assert parsed("--side-pips", "--no-side-pips").side_pips is False


def test_the_detectors_side_pips_reach_its_scenes(tmp_path):
    """`--side-pips` draws the world's dice with pips on their sides: the same seed's scenes
    differ with it, and are the same without it whether or not the key is given."""
    import hashlib

    from scanner.training.detector import prepare

    def scenes(name: str, **kw) -> list[str]:
        prepare(tmp_path / name, 3, 1, 4, None, 0, size=160, world=1.0, **kw)
        files = sorted((tmp_path / name / "synth" / "images" / "train").iterdir())
        return [hashlib.sha1(f.read_bytes()).hexdigest() for f in files]

    plain, default, sides = (
        scenes("plain", side_pips=False),
        scenes("default"),
        scenes("sides", side_pips=True),
    )
    assert plain == default and len(plain) == 3
    assert plain != sides
    assert scenes("keys", keyboards=1.0) != plain  # --keyboards reaches them too
    assert scenes("tiles", tiles=1.0) != plain  # and --tiles
