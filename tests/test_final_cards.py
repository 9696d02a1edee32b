"""Each final-scoring rule with the rulebook's worked examples (rule ids final.* in RULES_final.md).

Card formulas are checked with `score` on an explicit assignment; placement examples with the
optimiser, which must find what the rulebook's "correct" picture shows.
"""

from __future__ import annotations

import pytest

from scanner.rules.final import final_scores
from scanner.rules.final.holdings import parse_final
from scanner.rules.final.optimise import best_fills
from scanner.rules.final.scoring import Fill, card_points, score, slots
from tests.final_reference import reference_best


def pat(text: str) -> dict:
    """'red f 3' -> a patrician object."""
    color, sex, value = text.split()
    return {"color": color, "sex": sex, "value": int(value)}


def tile(text: str) -> dict:
    color, value = text.split()
    return {"color": color, "value": int(value)}


def border(a: str, b: str) -> dict:
    return {"card": "XII", "colors": [a, b]}


def player(**kw) -> dict:
    kw.setdefault("player", "grey")
    kw["provinces"] = [tile(t) if isinstance(t, str) else t for t in kw.get("provinces", [])]
    kw["patricians"] = [pat(p) for p in kw.get("patricians", [])]
    return kw


def holdings(**kw):
    return parse_final({"players": [player(**kw)]}).players[0]


def best(**kw) -> dict:
    return final_scores({"players": [player(**kw)]})["players"][0]


def cards_of(out: dict) -> dict:
    return {c["card"]: c["points"] for c in out["cards"] if c["card"] not in ("XII", "XIII")}


def test_card_I_six_provinces_give_4():
    """final.card.I: 1 + 3 for six provinces (tiles, joker, border and free cards)."""
    out = best(
        provinces=["red 1", "green 2", "blue 3", {"color": "joker", "value": 0}],
        senate=["I", border("red", "green"), "XIII"],
    )
    assert cards_of(out)["I"] == 4


def test_card_III_four_senate_cards_give_5():
    """final.card.III: two border cards, one free province and III itself: 1 + 4 = 5."""
    out = best(senate=[border("red", "green"), border("blue", "purple"), "XIII", "III"])
    assert cards_of(out)["III"] == 5


def test_card_IV_five_fortuna_tiles_give_3():
    """final.card.IV: 1 + 2 for one full set of three (five tiles)."""
    assert cards_of(best(senate=["IV"], fortuna=[1, 2, 2, 3, 3]))["IV"] == 3
    assert cards_of(best(senate=["IV"], fortuna=[1, 2, 2, 3, 3, 1]))["IV"] == 5


def test_card_V_two_couples_give_3():
    """final.card.V: 1 + 2 married couples, a couple on a border card counts too."""
    out = best(
        provinces=["red 3"],
        patricians=["red f 1", "red m 2", "green f 3", "green m 1"],
        senate=["V", border("green", "blue")],
    )
    assert cards_of(out)["V"] == 3


def test_rulebook_patrician_cards_II_VI_IX_X_VIII():
    """final.card.II/VI/IX/X/VIII with an explicit assignment: 8 placed (5 women, 3 men) of 4
    colours on 3 province tiles and a border card; a purple woman left unplaced counts for none."""
    h = holdings(
        provinces=["red 2", "green 3", "blue 1", "yellow 4"],
        patricians=[
            "red f 1",
            "red m 2",
            "green f 3",
            "green m 1",
            "blue f 2",
            "yellow f 1",
            "orange f 2",
            "orange m 3",
            "purple f 3",
        ],
        senate=["II", "VI", "VIII", "IX", "X", border("orange", "red")],
    )
    s = slots(h)
    by = {str(x): x for x in s}
    p = {str(x): x for x in h.patricians}
    fills = [
        Fill(by["red II"], (p["red woman I"], p["red man II"])),
        Fill(by["green III"], (p["green woman III"], p["green man I"])),
        Fill(by["blue I"], (p["blue woman II"],)),
        Fill(by["yellow IV"]),
        Fill(by["border orange/red"], (p["orange woman II"], p["orange man III"])),
    ]
    fills[3] = Fill(by["yellow IV"], (p["yellow woman I"],))
    assert card_points(h, fills) == {"II": 4, "VI": 5, "VIII": 4, "IX": 5, "X": 3}
    fills[3] = Fill(by["yellow IV"])
    assert card_points(h, fills) == {"II": 3, "VI": 4, "VIII": 3, "IX": 4, "X": 3}


def test_card_VII_free_province_takes_its_patricians_colour_and_empty_is_grey():
    """final.card.VII: border cards give both colours; the free province is red here (no new
    colour), an empty one counts as grey."""
    kw = dict(
        provinces=["red 1", "green 2", "blue 3"],
        senate=["VII", border("purple", "yellow"), "XIII"],
    )
    assert cards_of(best(**kw, patricians=["red m 1"]))["VII"] == 6  # red placed on red I or free
    h = holdings(**kw, patricians=["red m 1"])
    s = slots(h)
    free = next(x for x in s if x.kind == "free")
    occupied = [Fill(x) for x in s if x is not free] + [Fill(free, h.patricians)]
    empty = [Fill(x) for x in s]
    assert card_points(h, occupied)["VII"] == 5  # red, green, blue, purple, yellow
    assert card_points(h, empty)["VII"] == 6  # ... and grey


@pytest.mark.parametrize(
    ("patricians", "total", "placed"),
    [
        (["red f 3", "red m 1"], 7, 2),  # correct: couple of one colour, 3 + 4
        (["green m 2"], 2, 1),  # correct: a single, 0 + 2
        (["red f 3", "green m 2"], 3, 1),  # partially forbidden: two colours, the lower goes
        (["blue f 3"], 0, 0),  # forbidden: a third colour may not be placed
    ],
)
def test_border_province_examples(patricians, total, placed):
    """final.border: the four pictures of the rule sheet for a red/green border card."""
    out = best(patricians=patricians, senate=[border("red", "green")])
    assert out["total"] == total
    assert sum(len(a["patricians"]) for a in out["assignment"]) == placed


@pytest.mark.parametrize(
    ("patricians", "total"),
    [
        (["red f 2", "red m 2"], 5),  # couple of one colour: 1 + 4
        (["yellow m 3"], 4),  # one patrician: 1 + 3
        (["blue f 3", "green m 2"], 4),  # two colours: the green one is removed, 1 + 3
    ],
)
def test_free_province_examples(patricians, total):
    """final.free: the three pictures of the rule sheet."""
    assert best(patricians=patricians, senate=["XIII"])["total"] == total


def test_offspring_one_extra_per_couple_of_the_couples_colour():
    """final.card.XI: a couple takes one more of its colour; a single never; never two more."""
    out = best(
        provinces=["green 2"],
        patricians=["green f 1", "green m 1", "green f 3", "green m 2"],
        senate=["XI"],
    )
    (a,) = out["assignment"]
    assert a["offspring"] is not None and len(a["patricians"]) == 2
    assert out["unplaced_value"] == 1  # the fourth green one stays out
    assert a["text"].startswith("green II: ") and "(+ offspring green" in a["text"]
    single = best(provinces=["green 2"], patricians=["green f 3", "green f 2"], senate=["XI"])
    assert single["unplaced_value"] == 2


def test_offspring_on_a_border_card_may_be_of_either_card_colour():
    """final.card.XI: the rule sheet's example allows a red or green child on a red/green card."""
    out = best(
        patricians=["red f 3", "red m 1", "green f 3"],
        senate=["XI", border("red", "green")],
    )
    assert out["total"] == 3 + 7
    assert out["assignment"][0]["offspring"] == pat("green f 3")


def test_offspring_counts_for_II_VI_IX_X_but_not_V():
    """final.card.XI: the child is placed (II, VI, IX, X) but is not a couple (V)."""
    out = best(
        provinces=["red 4"],
        patricians=["red f 3", "red m 2", "red f 1"],
        senate=["II", "V", "IX", "X", "XI"],
    )
    assert cards_of(out) == {"II": 1, "V": 2, "IX": 2, "X": 1, "XI": 0}
    assert out["breakdown"]["patricians"] == 6


def test_province_scores_value_occupied_value_minus_one_empty_joker_zero():
    """final.province."""
    out = best(
        provinces=["red 3", "green 1", "blue 4", {"color": "joker", "value": 0}],
        patricians=["red m 1"],
    )
    assert out["breakdown"]["provinces"] == 3 + 0 + 3 + 0
    assert [a["province_points"] for a in out["assignment"]] == [3, 0, 3, 0]


def test_joker_holds_a_couple_of_any_one_colour():
    """final.province: the joker takes a woman and a man of one colour and scores 0."""
    out = best(
        provinces=[{"color": "joker", "value": 0}],
        patricians=["purple f 3", "purple m 3", "red m 2"],
    )
    assert out["total"] == 6 and out["unplaced_value"] == 2


ANTONIUS = dict(
    provinces=["red 3", "green 4", "blue 1", {"color": "joker", "value": 0}],
    patricians=[
        "red f 3",
        "red m 1",
        "green f 3",
        "orange f 3",
        "purple f 2",
        "purple m 1",
        "yellow f 2",
        "red f 1",
        "green f 1",
        "purple f 1",
    ],
    senate=[border("purple", "yellow"), border("yellow", "orange"), "III", "VI"],
    fortuna=[3, 2, 1],
    repete=5,
)


def test_antonius_43_points():
    """final.*: a reconstruction of the rulebook's end-of-game example (43 points): four
    provinces 3 + 4 + 0 + 0, ten patricians of which seven placed (15), four Senate cards
    3 + 0 + 5 + 5, Fortuna 3 + 2 + 1, five chips."""
    out = best(**ANTONIUS)
    assert out["total"] == 43
    assert out["breakdown"] == {
        "provinces": 7,
        "patricians": 15,
        "senate": 13,
        "fortuna": 6,
        "repete": 2,
    }
    assert sorted(c["points"] for c in out["cards"]) == [0, 3, 5, 5]
    assert (out["total"], out["unplaced_value"]) == reference_best(player(**ANTONIUS))


def test_score_of_an_explicit_assignment_matches_optimiser_breakdown():
    h = holdings(**ANTONIUS)
    s = score(h, best_fills(h))
    assert s.total == sum(s.breakdown.values()) == 43
