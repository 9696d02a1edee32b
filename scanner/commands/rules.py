"""`alea check` and `alea round`: the rules engine on JSON files (CONTRACT.md)."""

from __future__ import annotations

import argparse

from scanner.cli import _json_file_argument, command, emit, read_json
from scanner.rules.io import parse_check, parse_round
from scanner.rules.placement import check
from scanner.rules.round import score_round


@command(
    "check", "Is one placement legal? Prints the verdict and the state after.", _json_file_argument
)
def run_check(args: argparse.Namespace) -> int:
    state, move, roll = parse_check(read_json(args.file))
    emit(check(state, move, roll).to_json())
    return 0


@command("round", "Score a finished round from the board state at its end.", _json_file_argument)
def run_round(args: argparse.Namespace) -> int:
    emit(score_round(parse_round(read_json(args.file))).to_json())
    return 0
