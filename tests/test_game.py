"""The whole-game model: setup, turn order, round end, picks, supplies, and invariants that must
hold in every state of thousands of random legal games."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.rules import components
from scanner.rules.game import Game
from scanner.rules.move import Move
from scanner.rules.placement import is_legal, legal_moves
from scanner.rules.simulate import play_random_game
from scanner.rules.state import BoardState


def board_invariants(state: BoardState) -> None:
    values = [d.value for d in state.forum]
    assert values == sorted(values), "Forum sorted"
    assert len(state.forum) <= state.forum_columns, "Forum within its columns"
    runs = list(state.senatus.values())
    assert len(set(runs)) == len(runs), "runs distinct"
    for run in runs:
        assert list(run) == list(range(run[0], run[-1] + 1)), "each run consecutive"
    sets = [(s.value, s.count) for s in state.castrum]
    assert len(set(sets)) == len(sets), "sets distinct"
    owned = [(s.player, s.value) for s in state.castrum]
    assert len(set(owned)) == len(owned), "one set per value per player"
    counts = [len(d) for d in state.templum.values()]
    assert len(set(counts)) == len(counts), "Templum counts strictly rising"
    if state.templum:
        top = max(state.templum.values(), key=len)
        assert sum(top) == max(sum(d) for d in state.templum.values()), "top player has top sum"
    if not state.has_templum:
        assert not state.templum
    for p in state.players:
        held = state.placed(p) + state.latrina.get(p, 0) + state.supply.get(p, 0)
        assert held == components.DICE_PER_PLAYER, f"{p} has {held} dice, not 8"


def tile_invariants(game: Game) -> None:
    held = [t for h in game.holdings.values() for t in h.provinces]
    assert len(held) + len(game.province_pile) + len(game.provinces_shown) <= 25
    assert len({(t["color"], t["value"]) for t in held}) == len(held), "each province once"
    pats = [t for h in game.holdings.values() for t in h.patricians]
    assert len({tuple(sorted(t.items())) for t in pats}) == len(pats), "each patrician once"
    cards = [str(c) for h in game.holdings.values() for c in h.senate]
    deck = [str(c) for c in components.senate_deck(len(game.seating))]
    assert Counter(cards) + Counter(map(str, game.senate_pile)) == Counter(deck), "cards kept"
    fortuna = [t for h in game.holdings.values() for t in h.fortuna]
    drawn = [t for ts in game.fortuna_drawn.values() for t in ts]
    total = fortuna + drawn + game.fortuna_pile + game.fortuna_returned
    if len(game.seating) >= 4:
        assert sorted(total) == components.fortuna_tiles(), "Fortuna tiles conserved"
    else:
        assert not total


def check_everything(game: Game) -> None:
    board_invariants(game.state)
    tile_invariants(game)


@settings(max_examples=1200, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_random_games_never_break_an_invariant(players, seed):
    game = play_random_game(players, seed, after_each=check_everything)
    assert game.over
    rounds = [e for e in game.events if e["event"] == "scored"]
    assert len(rounds) == components.rounds(players)
    firsts = [e["first"] for e in game.events if e["event"] == "round"]
    seating = list(game.seating)
    assert firsts == [seating[i % players] for i in range(len(firsts))], "first player rotates"


@settings(max_examples=200, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_every_generated_move_is_legal_and_latrina_only_when_forced(players, seed):
    def probe(game: Game) -> None:
        player = game.current_player
        if player is None:
            return
        roll = tuple(game.rng.randint(1, 6) for _ in range(game.state.supply[player]))
        moves = list(legal_moves(game.state, player, roll))
        assert moves, "a roll always has a legal move"
        assert all(is_legal(game.state, m, roll) for m in moves)
        latrina = [m for m in moves if m.building == "latrina"]
        assert not latrina or len(latrina) == len(moves)
        assert len(set(moves)) == len(moves), "each move once"

    play_random_game(players, seed, after_each=probe)


def test_setup_by_player_count():
    for n in range(2, 6):
        g = Game(components.PLAYER_COLORS[:n], seed=3)
        assert len(g.provinces_shown) == n
        assert len(g.patricians_shown) == n + 2
        assert g.rounds == (6 if n <= 3 else 5)
        assert len(g.fortuna_pile) == (30 if n >= 4 else 0)
        assert ("IV" in g.senate_pile) == (n >= 4)
        assert dict(g.state.supply) == {p: 8 for p in g.seating}


def test_round_ends_after_the_turn_in_which_someone_places_his_last_die():
    g = Game(["grey", "brown", "blue"], seed=5)
    # grey puts all eight dice in the Castrum as one set; brown and blue still play this turn.
    g.roll([4] * 8)
    assert g.place(Move("grey", "castrum", (4,) * 8)).legal
    assert g.current_player == "brown"
    g.roll([1, 1, 2, 2, 3, 3, 5, 6])
    g.place(Move("brown", "forum", (6,)))
    assert g.current_player == "blue"
    g.roll([1, 2, 3, 4, 5, 6, 6, 6])
    g.place(Move("blue", "senatus", (1, 2, 3, 4, 5, 6)))
    assert g.current_player is None
    result = g.end_round()
    assert result.castrum == ("grey",) and result.senatus == ("blue",)
    assert result.repete == {"brown": 7, "blue": 2}
    assert g.round_no == 2 and g.state.players == ("brown", "blue", "grey")
    assert len(g.holdings["grey"].provinces) == 1 and len(g.holdings["brown"].patricians) == 1
    assert g.holdings["brown"].repete == 7


def test_round_end_lets_only_the_later_seats_finish_the_turn():
    g = Game(["grey", "brown", "blue"], seed=1)
    g.roll([1, 2, 3, 4, 5, 6, 6, 6])
    g.place(Move("grey", "senatus", (1, 2, 3, 4, 5, 6)))
    g.roll([2] * 8)
    g.place(Move("brown", "castrum", (2,) * 7))
    g.roll([5] * 8)
    g.place(Move("blue", "castrum", (5,)))
    assert g.current_player == "grey" and g.turn_no == 2
    g.roll([6, 5])
    g.place(Move("grey", "forum", (5,)))
    g.roll([3])
    assert g.place(Move("brown", "forum", (3,))).legal  # brown's last die
    assert g.current_player == "blue"  # blue still plays this turn...
    g.roll([4] * 7)
    g.place(Move("blue", "forum", (4,)))
    assert g.current_player is None  # ...but grey does not start another
    assert g.end_round().repete == {"grey": 1, "blue": 6}


def test_repete_reroll_spends_a_chip_and_keeps_the_rest():
    g = Game(["grey", "brown"], seed=2)
    g.holdings["grey"].repete = 2
    g.roll([1, 1, 6, 6, 6, 2, 3, 4])
    after = g.reroll([1, 1], values=[6, 6])
    assert sorted(after) == [2, 3, 4, 6, 6, 6, 6, 6] and g.holdings["grey"].repete == 1
    with pytest.raises(ValueError):
        g.reroll([5])  # not in the roll


def test_illegal_placement_is_recorded_and_changes_nothing():
    g = Game(["grey", "brown"], seed=2)
    g.roll([1, 2, 3, 4, 5, 6, 6, 6])
    before = g.state
    v = g.place(Move("grey", "forum", (2, 4)))
    assert not v.legal and v.rule == "forum.shape" and g.state is before
    assert g.events[-1]["event"] == "place" and g.events[-1]["rule"] == "forum.shape"
    assert g.current_player == "grey"


def test_lone_templum_die_draws_a_second_tile():
    g = Game(["grey", "brown", "blue", "green"], seed=4)
    g.roll([6, 1, 1, 1, 1, 1, 1, 1])
    g.place(Move("grey", "templum", (6,)))
    for p in ("brown", "blue", "green"):
        g.roll([2] * 8)
        g.place(Move(p, "castrum", (2,) * (8 if p == "brown" else {"blue": 7, "green": 6}[p])))
    # grey plays on: the round ends after this turn (brown emptied his hand).
    assert g.current_player is None
    drawn = list(g.fortuna_drawn["grey"])
    assert len(drawn) == 1
    g.end_round()
    assert len(g.holdings["grey"].fortuna) == 2
    assert len(g.fortuna_pile) + len(g.fortuna_returned) == 28


def test_senate_card_passing_and_the_last_under_the_stack():
    g = Game(["grey", "brown", "blue"], seed=9)
    top3 = g.senate_pile[-3:]
    g.roll([1, 2, 3, 4, 5, 6, 1, 1])
    g.place(Move("grey", "senatus", (1, 2, 3, 4, 5, 6)))
    g.roll([2, 3, 4, 5, 5, 5, 5, 5])
    g.place(Move("brown", "senatus", (2, 3, 4, 5)))
    g.roll([5] * 8)
    g.place(Move("blue", "castrum", (5,) * 8))
    assert g.current_player is None
    g.end_round()
    kept = g.holdings["grey"].senate + g.holdings["brown"].senate
    assert len(kept) == 2 and all(c in top3 for c in kept)
    (left,) = [c for c in top3 if c not in kept] if len({str(c) for c in top3}) == 3 else [None]
    if left is not None:
        assert g.senate_pile[0] == left, "the last card goes under the stack"
