"""A wheel is the product too: built from this checkout, installed into a fresh environment
and run from another folder, it finds its own detector, face reader, layout, sheets and rules
(scanner.shipped), not the checkout's."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.cli import ROOT

PHOTO = ROOT / "datasets" / "dice8" / "images" / "val"


@pytest.mark.slow
def test_an_installed_wheel_reads_dice_with_its_own_models(tmp_path):
    pytest.importorskip("hatchling")
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("alea-*.whl"))
    env = tmp_path / "env"
    # The dependencies come from this interpreter's site-packages; alea itself from the wheel.
    venv.create(env, system_site_packages=True, with_pip=True)
    python = env / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    away = tmp_path / "elsewhere"
    away.mkdir()
    where = subprocess.run(
        [
            python,
            "-c",
            "import scanner.vision.detect as d, scanner.vision.face as f, "
            "scanner.vision.layout as l, scanner.vision.sixes as x; "
            "from scanner.shipped import shipped as s; "
            "print(d.DEFAULT_MODEL, f.DEFAULT_FACE_MODEL, f.PHOTO_FACE_MODEL, "
            "f.PHOTO_FACE_MODEL.with_suffix('.confidence.json'), l.DEFAULT_LAYOUT, x.EMBLEM_MODEL, "
            "s('seeds/RULES.md'), s('seeds/components.json'), s('calibration/markers-a3.pdf'))",
        ],
        cwd=away,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert len(where) == 9
    for path in where:
        assert Path(path).is_file() and str(env) in path, path  # inside the installed package
    photo = next(PHOTO.glob("*.jpg"))
    out = subprocess.run(
        [python, "-m", "scanner", "dice", str(photo)],
        cwd=away,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    dice = json.loads(out.stdout)["images"][0]["dice"]
    # The face reader ran too: it names colours (the detector alone gives none).
    assert len(dice) >= 3 and any(d["color"] for d in dice)
