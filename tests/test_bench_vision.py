"""Vision figures: calibration error in mm by markers visible, per-frame latency at 1280×720.
Deselected by default; run `python -m pytest -m bench -s tests/test_bench_vision.py`."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.mark.bench
def test_vision_figures():
    from bench_vision import accuracy, latency

    rows = accuracy(poses=5)
    lat = latency(repeat=10)
    print(rows, lat)
    assert rows["8 markers"]["zones_max"] < 1.0 and lat["total"] > 0
