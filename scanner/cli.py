"""The `alea` console script: one subcommand per pipeline stage (CONTRACT.md).

Every command reads JSON from a file path or `-` (stdin) and writes JSON to stdout. Bad input never
produces a traceback: it exits 2 with one line on stderr and the contract's error object on stdout.
Heavy imports (OpenCV, onnxruntime) happen inside the commands that need them, so `alea check`
starts fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from scanner.errors import InputError

EXIT_BAD_INPUT = 2


def read_json(source: str) -> object:
    """Parse JSON from a file path or `-` (stdin), raising InputError for anything unreadable."""
    from scanner.inputs import parse_json, read_json_file

    if source != "-":
        return read_json_file(source)
    try:
        text = sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError("input.unreadable", f"cannot read the standard input: {exc}") from None
    return parse_json(text)


# Characters that end a line for Python's splitlines() (and some terminals) and that JSON may
# leave raw inside a string: written as escapes, so one line of output stays one line.
LINE_BREAKS = {"\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"}


def emit(obj: object) -> None:
    """Print `obj` as one line of JSON. Text the terminal cannot encode (a lone surrogate from
    an imported file) is written as JSON escapes instead of failing half-way."""
    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj)
    if any(c in LINE_BREAKS for c in text):  # only inside strings, where \uXXXX means the same
        text = "".join(f"\\u{ord(c):04x}" if c in LINE_BREAKS else c for c in text)
    sys.stdout.write(text + "\n")


def one_line(text: str) -> str:
    """`text` for the one stderr line: what does not print (a control character, a line
    separator, taken from the input into a message or a path) is written as an escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# Each command module registers itself here: name -> (help, add_arguments, run).
Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
COMMANDS: dict[str, Command] = {}


def command(name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None]):
    """Decorator registering `run(args) -> exit code` as the subcommand `name`."""

    def register(run: Callable[[argparse.Namespace], int]):
        COMMANDS[name] = (help, add_arguments, run)
        return run

    return register


def _json_file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSON input file, or - for stdin")


def _load_commands() -> None:
    # Imported for their @command registrations; kept here so `alea --help` lists everything.
    from scanner import commands  # noqa: F401


class _Parser(argparse.ArgumentParser):
    """argparse, but a wrong command line is bad input like any other (CONTRACT.md): exit 2,
    one line on stderr and the error object on stdout, not a usage screen."""

    def error(self, message: str):  # type: ignore[override]
        print(one_line(f"{self.prog}: {message}"), file=sys.stderr)
        emit(InputError("usage", f"{self.prog}: {message}", "$").to_json())
        sys.exit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    _load_commands()
    parser = _Parser(
        prog="alea", description="Alea Iacta Est table companion: referee, scoring and dice vision."
    )
    parser.add_argument("--version", action="version", version="alea 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add_arguments, _run) in sorted(COMMANDS.items()):
        add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return COMMANDS[args.command][2](args)
    except InputError as err:
        print(one_line(f"alea {args.command}: {err.message} (at {err.path})"), file=sys.stderr)
        emit(err.to_json())
        return EXIT_BAD_INPUT
    except OSError as exc:
        # A path the user named that cannot be used (a folder not writable, a disk full) where
        # no command checked it first: bad input all the same, never a traceback.
        where = exc.filename if isinstance(exc.filename, str) else "$"
        bad = InputError("io.error", f"cannot use {where}: {exc.strerror or exc}", "$")
        print(one_line(f"alea {args.command}: {bad.message}"), file=sys.stderr)
        emit(bad.to_json())
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
