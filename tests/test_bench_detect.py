"""`pytest -m bench`: prints the latency figure (not part of the default run)."""

from __future__ import annotations

import pytest


@pytest.mark.bench
def test_latency_1280x720():
    from benchmarks.bench_detect import main

    result = main(["--runs", "20"])
    assert result["median_ms"] > 0
