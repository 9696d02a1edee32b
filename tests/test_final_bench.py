"""Timing figures for the final-scoring optimiser (run with `python -m pytest -m bench -s`)."""

from __future__ import annotations

import pytest

from benchmarks.bench_final import run


@pytest.mark.bench
def test_final_scoring_speed():
    """The extreme 2-player inventory must score in under 50 ms in-process (brief of issue 3)."""
    figures = run(large=200, extreme=50, seed=1)
    assert figures["extreme"][1] < 50
