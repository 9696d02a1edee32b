"""`alea simulate`: play random legal games and summarise them (or print one game's log)."""

from __future__ import annotations

import argparse
import statistics
import time

from tqdm import tqdm

from scanner.cli import command, emit
from scanner.errors import InputError
from scanner.rules.simulate import play_random_game


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the full event log of one game instead of a summary",
    )


@command("simulate", "Play random legal games and print a summary.", _arguments)
def run_simulate(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 5:
        raise InputError("value.range", f"--players {args.players}: 2 to 5", "--players")
    if args.games < 1:
        raise InputError("value.range", f"--games {args.games}: at least 1", "--games")
    if args.json:
        game = play_random_game(args.players, args.seed)
        emit({"events": game.events})
        return 0
    start = time.perf_counter()
    turns, placements, latrina = [], [], 0
    for i in tqdm(range(args.games), desc="games", unit="game", disable=None):
        game = play_random_game(args.players, args.seed + i)
        places = [e for e in game.events if e["event"] == "place"]
        placements.append(len(places))
        latrina += sum(e["move"]["building"] == "latrina" for e in places)
        turns.append(sum(e["event"] == "roll" for e in game.events))
    elapsed = time.perf_counter() - start
    emit(
        {
            "players": args.players,
            "games": args.games,
            "seed": args.seed,
            "seconds": round(elapsed, 3),
            "games_per_second": round(args.games / elapsed, 1),
            "placements_per_game": round(statistics.mean(placements), 1),
            "rolls_per_game": round(statistics.mean(turns), 1),
            "forced_latrina_placements": latrina,
        }
    )
    return 0
