"""A demo script as a messy real table would show it to the referee: settled boards with a die
misread for one frame, a die nudged out of its zone, a hand resting over a building, and flags
the players first accept and then take back. Board-level only (no pictures), so thousands of
rounds run in seconds; the referee is judged on how it comes out of each (`judge`).

>>> from scanner.synth.demo import demo_script
>>> steps = list(disturbed(demo_script(3, 3), seed=1))
>>> sorted({s.kind for s in steps})
['accept', 'disturbed', 'true']
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from scanner.rules.state import BoardState
from scanner.synth.demo import Scene


@dataclass(frozen=True)
class Disturbance:
    misread: float = 0.02  # share of dice read with another value or colour for one frame
    nudged: float = 0.01  # share of dice pushed out of their zone for one frame
    hand: float = 0.05  # share of settled scenes preceded by a hand resting over one building
    accept_then_take_back: float = 0.5  # share of flags the players first accept


@dataclass(frozen=True)
class Step:
    """One thing the referee is told: a settled board (`kind` true or disturbed) or, after a
    flag, the players' Accept anyway (`kind` accept). `scene` indexes the script."""

    kind: str
    scene: int
    state: dict | None = None
    what: list[str] = field(default_factory=list)


def dice_of(state: dict) -> list[list]:
    """[building, player, value] for every die in the four scoring buildings, Forum in order."""
    out: list[list] = []
    for b in ("templum", "senatus"):
        for p, values in state.get(b, {}).items():
            out += [[b, p, v] for v in values]
    for s in state.get("castrum", []):
        out += [["castrum", s["player"], s["value"]]] * s["count"]
    out += [["forum", d["player"], d["value"]] for d in state.get("forum", [])]
    return [list(d) for d in out]


def board_of(players: list[str], dice: list[list], latrina: dict) -> dict:
    """The board-state JSON of `dice` (as `dice_of` lists them)."""
    state: dict = {"players": players, "templum": {}, "senatus": {}, "castrum": [], "forum": []}
    sets: dict[tuple[str, int], int] = {}
    for b, p, v in dice:
        if b in ("templum", "senatus"):
            state[b].setdefault(p, []).append(v)
        elif b == "castrum":
            sets[(p, v)] = sets.get((p, v), 0) + 1
        else:
            state["forum"].append({"player": p, "value": v})
    for b in ("templum", "senatus"):
        state[b] = {p: sorted(v) for p, v in state[b].items()}
    state["castrum"] = [{"player": p, "value": v, "count": n} for (p, v), n in sets.items()]
    state["latrina"] = dict(latrina)
    return state


def disturbed(scenes: list[Scene], seed: int, how: Disturbance | None = None) -> Iterator[Step]:
    """Each settled scene of the script, preceded by the disturbed boards a camera might settle
    on first, and each flag followed, now and then, by the players accepting it."""
    how = how or Disturbance()
    rng = random.Random(seed)
    for i, scene in enumerate(scenes):
        if scene.hand:
            continue
        truth = scene.state.to_json()
        truth.pop("supply", None)
        players = truth["players"]
        dice = dice_of(truth)
        if dice and rng.random() < how.hand:
            covered = rng.choice(sorted({d[0] for d in dice}))
            rest = [d for d in dice if d[0] != covered]
            yield Step(
                "disturbed",
                i,
                board_of(players, rest, truth["latrina"]),
                [f"a hand over the {covered}"],
            )
        noisy, what = [], []
        for b, p, v in dice:
            r = rng.random()
            if r < how.misread / 2:
                v2 = rng.choice([x for x in range(1, 7) if x != v])
                what.append(f"{p} {v} in the {b} read as {v2}")
                noisy.append([b, p, v2])
            elif r < how.misread and len(players) > 1:
                p2 = rng.choice([x for x in players if x != p])
                what.append(f"{p} {v} in the {b} read as {p2}")
                noisy.append([b, p2, v])
            elif r < how.misread + how.nudged:
                what.append(f"{p} {v} nudged out of the {b}")
            else:
                noisy.append([b, p, v])
        if what:
            yield Step("disturbed", i, board_of(players, noisy, truth["latrina"]), what)
        yield Step("true", i, truth)
        if (
            scene.expect
            and scene.expect.get("legal") is False
            and rng.random() < how.accept_then_take_back
        ):
            yield Step("accept", i)


def same_board(a: BoardState, b: dict) -> bool:
    """The accepted board equals the true one (seating order and supply aside)."""
    mine = a.with_(players=tuple(b["players"])).to_json()
    theirs = BoardState.from_json(b, strict=False).to_json()
    for board in (mine, theirs):
        board.pop("supply", None)
        board["castrum"] = sorted(board["castrum"], key=lambda s: (s["player"], s["value"]))
    return mine == theirs
