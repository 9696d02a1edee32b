"""`alea game export|import|list`: a game record as JSON, in and out of the data folder."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from scanner.cli import command, emit, read_json
from scanner.errors import InputError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def game_path(data: str | Path, name: str) -> Path:
    """The file of game `name` in the data folder. Names are plain words, so nothing a user
    or a request types can reach outside the folder."""
    if not NAME.match(name):
        raise InputError(
            "value.name", f"game name {name!r}: use letters, digits, - and _", "--game"
        )
    return Path(data) / "games" / f"{name}.alea"


def _arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    exp = sub.add_parser("export", help="print a game record as JSON")
    exp.add_argument("--data", default="alea-data", help="data folder (default alea-data)")
    exp.add_argument("--game", default="current", help="game name (default current)")
    imp = sub.add_parser("import", help="add an exported game to the data folder")
    imp.add_argument("file", help="exported JSON, or - for stdin")
    imp.add_argument("--data", default="alea-data")
    imp.add_argument("--game", required=True, help="name for the imported game")
    lst = sub.add_parser("list", help="list the games in the data folder")
    lst.add_argument("--data", default="alea-data")


@command("game", "Export, import or list game records.", _arguments)
def run_game(args: argparse.Namespace) -> int:
    from scanner.events import check_event
    from scanner.session import Session
    from scanner.store import GameStore, import_game, remove_store

    if args.action == "list":
        folder = Path(args.data) / "games"
        emit({"games": sorted(p.stem for p in folder.glob("*.alea"))})
        return 0
    path = game_path(args.data, args.game)
    if args.action == "export":
        if not path.exists():
            raise InputError("input.not-found", f"no game {args.game!r} in {args.data}", "--game")
        emit(GameStore(path).export())
        return 0
    data = read_json(args.file)
    if path.exists():
        raise InputError("import.exists", f"{path} already exists; it was left untouched")
    path.parent.mkdir(parents=True, exist_ok=True)
    # Built aside and renamed into place only once it replays: a game that does not (or a
    # kill half-way) never leaves a file behind that `alea serve` would then try to open.
    aside = path.with_name(f".{path.stem}.importing")
    remove_store(aside)
    store = import_game(data, aside)
    try:
        for i, event in enumerate(store.events()):
            check_event(event, f"$.events[{i}]")
        session = Session(store)
        summary = {"events": len(store.events()), **session.summary()}
    except (InputError, ValueError, KeyError, TypeError, IndexError) as exc:
        store.close()
        remove_store(aside)
        message = exc.message if isinstance(exc, InputError) else str(exc)
        where = exc.path if isinstance(exc, InputError) else "$"
        raise InputError(
            "import.replay", f"the imported game does not replay: {message}", where
        ) from None
    store.close()
    aside.rename(path)
    emit({"imported": str(path), **summary})
    return 0
