"""Time the end-of-game optimiser (final.assignment) in-process.

Prints the median and worst milliseconds of `final_scores` (parse + optimise + score + JSON) for
one player over random large inventories, and over the extreme 2-player inventory: 11 province
tiles and the joker, 24 patricians, two border and two free provinces, and every card whose points
depend on the assignment (II, V–XI) plus I and III. Usage:

    PYTHONPATH=. python benchmarks/bench_final.py [--large 200] [--extreme 50] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from scanner.rules import components
from scanner.rules.final import final_scores

ASSIGNMENT_CARDS = ["I", "II", "III", "V", "VI", "VII", "VIII", "IX", "X", "XI"]


def extreme_player(rng: random.Random) -> dict:
    """The worst case the brief names, with the tiles themselves drawn at random."""
    tiles = rng.sample(components.provinces()[:-1], 11) + [{"color": "joker", "value": 0}]
    borders = rng.sample([list(p) for p in components.BORDER_PAIRS], 2)
    return {
        "player": "grey",
        "provinces": tiles,
        "patricians": rng.sample(components.patricians(), 24),
        "senate": ASSIGNMENT_CARDS + [{"card": "XII", "colors": b} for b in borders] + ["XIII"] * 2,
        "fortuna": [rng.randint(1, 3) for _ in range(6)],
        "repete": rng.randint(0, 9),
    }


def large_player(rng: random.Random) -> dict:
    """A random big end-of-game hand: 4–12 provinces, 8–24 patricians, any cards."""
    tiles = rng.sample(components.provinces(), rng.randint(4, 12))
    cards = [c for c in components.SENATE_SINGLES if rng.random() < 0.6]
    borders = rng.sample([list(p) for p in components.BORDER_PAIRS], rng.randint(0, 3))
    return {
        "player": "grey",
        "provinces": tiles,
        "patricians": rng.sample(components.patricians(), rng.randint(8, 24)),
        "senate": cards
        + [{"card": "XII", "colors": b} for b in borders]
        + ["XIII"] * rng.randint(0, 2),
        "fortuna": [rng.randint(1, 3) for _ in range(rng.randint(0, 9))],
        "repete": rng.randint(0, 9),
    }


def time_ms(players: list[dict]) -> list[float]:
    out = []
    for p in players:
        t = time.perf_counter()
        final_scores({"players": [p]})
        out.append((time.perf_counter() - t) * 1000)
    return out


def run(large: int = 200, extreme: int = 50, seed: int = 1) -> dict:
    rng = random.Random(seed)
    final_scores({"players": [large_player(rng)]})  # warm imports
    figures = {
        "large": time_ms([large_player(rng) for _ in range(large)]),
        "extreme": time_ms([extreme_player(rng) for _ in range(extreme)]),
    }
    for name, ms in figures.items():
        print(
            f"{name:8s} n={len(ms):4d}  median {statistics.median(ms):6.2f} ms"
            f"  worst {max(ms):6.2f} ms"
        )
    return {k: (statistics.median(v), max(v)) for k, v in figures.items()}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", type=int, default=200)
    ap.add_argument("--extreme", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    run(a.large, a.extreme, a.seed)
