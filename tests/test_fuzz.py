"""Fuzzing every command and every route (#20), small enough for CI; `benchmarks/fuzz.py` runs
the same checks longer and prints its figures. Each example must keep the contract: no
traceback, no 5xx, the error object for bad input, a data folder that opens as it was."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzzing

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return fuzzing.Workspace(tmp_path_factory.mktemp("fuzz"))


def test_every_route_answers_by_the_contract(workspace):
    @SETTINGS
    @given(st.lists(fuzzing.requests(workspace.photos()), min_size=1, max_size=5))
    def run(requests):
        tally = fuzzing.Tally()
        fuzzing.web_example(tally, requests)
        assert tally.broken == []

    run()


def test_every_command_answers_by_the_contract(workspace):
    @SETTINGS
    @given(workspace.cli_cases())
    def run(argv):
        tally = fuzzing.Tally()
        fuzzing.run_cli(tally, argv)
        assert tally.broken == []

    run()
