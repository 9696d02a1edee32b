"""Where the files that ship with alea are: the models, the layout and the printable sheets.

A checkout keeps them in the repository's folders for people to find (`models/`,
`calibration/`); a wheel carries them inside the package (pyproject.toml's force-include puts
`models/X` at `scanner/models/X` and `calibration/X` at `scanner/calibration/X`), so an installed
alea finds its detector wherever it runs from."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parent


def shipped(relative: str) -> Path:
    """`relative` (for example "models/dice.onnx") inside the installed package when it is
    there, else in the checkout; the checkout's path when neither has it, for the error."""
    inside = PACKAGE / relative
    return inside if inside.exists() else REPO / relative
