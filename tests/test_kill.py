"""#20's kill test: `alea serve` SIGKILLed while each kind of change is in flight (new game
included), started again on the same folder. `benchmarks/kill_serve.py` runs more kills."""

from tests import killing


def test_a_kill_during_any_change_loses_nothing_acknowledged_and_restarts(tmp_path):
    run = killing.run(tmp_path / "data", kills=2 * len(killing.KINDS), seed=3)
    assert run.failed_restarts == []
    assert run.lost == []
    assert {"new", "place", "observe", "correct", "accept", "undo", "lay-out"} <= set(run.kills)
    # The kills did land while changes were in flight, not only between them.
    assert run.answered_first < sum(run.kills.values())
