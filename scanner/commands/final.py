"""`alea final FILE`: end-of-game scores with the best assignment of patricians (CONTRACT.md)."""

from __future__ import annotations

import argparse

from scanner.cli import _json_file_argument, command, emit, read_json


@command(
    "final",
    help="score the end of the game, placing patricians on provinces optimally",
    add_arguments=_json_file_argument,
)
def run(args: argparse.Namespace) -> int:
    from scanner.rules.final import final_scores

    emit(final_scores(read_json(args.file)))
    return 0
