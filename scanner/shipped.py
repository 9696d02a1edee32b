"""Where alea's files are: those that ship with it (the models, the layout and the printable
sheets) and, in a source checkout, those that do not (training runs, generated data sets, the
real photos beside the checkout).

A checkout keeps the shipped ones in the repository's folders for people to find (`models/`,
`calibration/`); a wheel carries them inside the package (pyproject.toml's force-include puts
`models/X` at `scanner/models/X` and `calibration/X` at `scanner/calibration/X`), so an installed
alea finds its detector wherever it runs from. The rest are the defaults of `alea train` and
`alea eval` only, each a command-line option too; the real photos' folder may also be named by
the environment (ALEA_REALDICE)."""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

# The installed package's own folder (importlib.resources: wherever the package was installed;
# alea's files must be real files on disk, for onnxruntime and OpenCV to open them).
PACKAGE = Path(str(files("scanner")))
REPO = PACKAGE.parent
RUNS = REPO / "runs"  # training runs (git-ignored)
DATASETS = REPO / "datasets"
# The real dice photos (BSD-3) sit beside the checkout, not in it.
REALDICE = Path(os.environ.get("ALEA_REALDICE") or REPO.parent / "shared" / "realdice")


def shipped(relative: str) -> Path:
    """`relative` (for example "models/dice.onnx") inside the installed package when it is
    there, else in the checkout; the checkout's path when neither has it, for the error."""
    inside = PACKAGE / relative
    return inside if inside.exists() else REPO / relative
