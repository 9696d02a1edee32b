"""Rules-engine speed: `check` calls per second and full simulated games per second.

    python benchmarks/bench_rules.py [--players 4] [--games 200]

The `check` workload is every candidate move of every position of a few random games (legal and
illegal alike), replayed in-process on one core. Targets (issue 2): ≥ 20,000 checks/s and
≥ 50 four-player games/s.
"""

from __future__ import annotations

import argparse
import json
import time

from scanner.rules.move import Move
from scanner.rules.moves import candidates
from scanner.rules.placement import check
from scanner.rules.simulate import play_random_game


def check_workload(players: int, games: int = 5) -> list:
    cases = []

    def collect(game):
        player = game.current_player
        if player is None:
            return
        roll = tuple(game.rng.randint(1, 6) for _ in range(game.state.supply[player]))
        for move in candidates(game.state, player, roll):
            cases.append((game.state, move, roll))
        cases.append((game.state, Move(player, "latrina", (roll[0],)), roll))

    for seed in range(games):
        play_random_game(players, seed, after_each=collect)
    return cases


def bench(players: int = 4, games: int = 200) -> dict:
    cases = check_workload(players)
    start = time.perf_counter()
    for state, move, roll in cases:
        check(state, move, roll)
    checks_per_s = len(cases) / (time.perf_counter() - start)

    start = time.perf_counter()
    for seed in range(games):
        play_random_game(players, 10_000 + seed)
    games_per_s = games / (time.perf_counter() - start)
    return {
        "players": players,
        "checks": len(cases),
        "checks_per_second": round(checks_per_s),
        "games": games,
        "games_per_second": round(games_per_s, 1),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=200)
    a = ap.parse_args()
    print(json.dumps(bench(a.players, a.games)))
