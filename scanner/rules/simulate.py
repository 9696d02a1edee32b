"""Random legal games, played to their end: the simulator behind `alea simulate`, and the
games the tests and benchmarks check every invariant on.

>>> g = play_random_game(3, seed=1)
>>> g.over, len(g.seating)
(True, 3)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from scanner.rules import components
from scanner.rules.game import Chooser, Game
from scanner.rules.placement import legal_moves


def play_random_game(
    players: int,
    seed: int,
    chooser: Chooser | None = None,
    after_each: Callable[[Game], None] | None = None,
) -> Game:
    """Play a whole game with random legal moves (the simulator behind `alea simulate`);
    `after_each(game)` is called after every placement and every scoring (tests check
    invariants there)."""
    rng = random.Random(seed)
    game = Game(components.PLAYER_COLORS[:players], seed=rng.random(), chooser=chooser)
    while not game.over:
        while (player := game.current_player) is not None:
            roll = game.roll()
            while again := game.chooser.reroll(player, roll, game.holdings[player].repete):
                roll = game.reroll(again)
            moves = list(legal_moves(game.state, player, roll))
            verdict = game.place(rng.choice(moves))
            if not verdict.legal:
                raise AssertionError(f"legal_moves offered an illegal move: {verdict.reason}")
            if after_each:
                after_each(game)
        game.end_round()
        if after_each:
            after_each(game)
    return game
