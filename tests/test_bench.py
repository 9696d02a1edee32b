"""Benchmarks (deselected by default; run with `python -m pytest -m bench -s`). They print the
figures the issues ask for; the assertions only guard against a broken workload."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.mark.bench
def test_rules_speed():
    from bench_rules import bench

    figures = bench(players=4, games=100)
    print(figures)
    assert figures["checks"] > 1000 and figures["games_per_second"] > 0
