"""final.assignment: the optimiser equals exhaustive search, total AND unplaced value.

Inventories are drawn from one to three colours so that patricians, tiles, border cards, the joker
and free provinces compete for each other; every Senate card is in play half the time.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.rules import components
from scanner.rules.final import final_scores
from scanner.rules.final.holdings import parse_final
from scanner.rules.final.optimise import best_fills
from scanner.rules.final.scoring import legality_problem, score
from tests.final_reference import _slots, legal_contents, reference_best, score_contents

SINGLES = list(components.SENATE_SINGLES)
EXAMPLES = int(os.environ.get("ALEA_FINAL_EXAMPLES", "2500"))


@st.composite
def small_player(draw, max_patricians: int = 5, max_slots: int = 5, max_borders: int = 2) -> dict:
    colors = draw(
        st.lists(st.sampled_from(components.TILE_COLORS), min_size=1, max_size=3, unique=True)
    )
    tiles = [{"color": c, "value": v} for c in colors for v in range(1, 5)]
    provinces = draw(st.lists(st.sampled_from(tiles), max_size=3, unique_by=str))
    if draw(st.booleans()):
        provinces.append({"color": "joker", "value": 0})
    pairs = [
        [a, b]
        for i, a in enumerate(components.TILE_COLORS)
        for b in components.TILE_COLORS[i + 1 :]
        if a in colors or b in colors
    ]
    borders = draw(st.lists(st.sampled_from(pairs), max_size=max_borders, unique_by=str))
    free = draw(st.integers(0, 2))
    room = max_slots - len(provinces)
    borders, free = borders[: max(room, 0)], min(free, max(room - len(borders), 0))
    pats = [{"color": c, "sex": s, "value": v} for c in colors for s in "fm" for v in (1, 2, 3)]
    patricians = draw(st.lists(st.sampled_from(pats), max_size=max_patricians, unique_by=str))
    cards = [c for c in SINGLES if draw(st.booleans())]
    senate = cards + [{"card": "XII", "colors": draw(st.permutations(b))} for b in borders]
    senate += ["XIII"] * free
    return {
        "player": "grey",
        "provinces": draw(st.permutations(provinces)),
        "patricians": patricians,
        "senate": draw(st.permutations(senate)),
        "fortuna": draw(st.lists(st.integers(1, 3), max_size=4)),
        "repete": draw(st.integers(0, 5)),
    }


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_player())
def test_optimiser_equals_exhaustive_search(player: dict) -> None:
    out = final_scores({"players": [player]})["players"][0]
    assert (out["total"], out["unplaced_value"]) == reference_best(player)


@settings(max_examples=EXAMPLES // 5, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_player(max_patricians=5, max_slots=6, max_borders=4))
def test_optimiser_equals_exhaustive_search_with_many_border_cards(player: dict) -> None:
    """Chains of border cards sharing colours, where one colour's choice constrains the next."""
    out = final_scores({"players": [player]})["players"][0]
    assert (out["total"], out["unplaced_value"]) == reference_best(player)


@settings(max_examples=EXAMPLES // 5, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_player(max_patricians=8, max_slots=6))
def test_reported_assignment_is_legal_and_scores_its_total(player: dict) -> None:
    """The witness itself: legal by both definitions, and rescored from scratch to its total."""
    h = parse_final({"players": [player]}).players[0]
    fills = best_fills(h)
    assert legality_problem(h, fills) is None
    slots = _slots(player)
    by_slot = {}
    for f in fills:
        by_slot[f.slot.kind, f.slot.index] = [(p.color, p.sex, p.value) for p in f.placed]
    order = [(s.kind, s.index) for s in sorted({f.slot for f in fills}, key=_input_order)]
    contents = [by_slot[k] for k in order]
    assert legal_contents(player, slots, contents)
    s = score(h, fills)
    assert (s.total, s.unplaced_value) == score_contents(player, slots, contents)


def _input_order(slot) -> tuple:
    return (slot.kind != "province", slot.index)
