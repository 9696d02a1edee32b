"""The training recipes (`recipes/*.yaml`): the one source of `alea train`'s defaults."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

RECIPES = Path(__file__).resolve().parent / "recipes"


@cache
def recipe(stage: str) -> dict:
    """The defaults of one stage: "detector", "board" or "face"."""
    import yaml

    with open(RECIPES / f"{stage}.yaml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def comments(stage: str) -> dict[str, str]:
    """Each key's end-of-line comment in its recipe: the option's help."""
    text = (RECIPES / f"{stage}.yaml").read_text(encoding="utf-8")
    return {m[1]: m[2].strip() for m in re.finditer(r"^(\w+):[^#\n]*#(.*)$", text, re.M)}
