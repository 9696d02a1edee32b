"""One list of error codes (scanner.errors.CODES): every code the source raises is in it, and
one kind of bad input has one code wherever it is found."""

from __future__ import annotations

import re

from scanner.errors import CODES, UNREGISTERED, InputError
from tests.cli import ROOT

# A code is the first string of an InputError, or the string given where a helper takes one.
RAISED = re.compile(r"InputError\(\s*\"([a-z_]+(?:\.[a-z0-9_-]+)+)\"")
WANTED = re.compile(r"_want\([^;]*?\"([a-z_]+(?:\.[a-z0-9_-]+)+)\",", re.S)


def test_every_code_in_the_source_is_registered():
    found = set()
    for path in [*ROOT.glob("scanner/**/*.py"), *ROOT.glob("webui/**/*.py")]:
        text = path.read_text(encoding="utf-8")
        found |= {m for m in RAISED.findall(text)} | {m for m in WANTED.findall(text)}
    assert len(found) > 60  # the patterns see the code
    assert sorted(found - set(CODES)) == []


def test_an_unregistered_code_is_still_an_error_and_is_noted():
    err = InputError("nothing.such", "x")
    assert err.to_json()["error"]["code"] == "nothing.such" and "nothing.such" in UNREGISTERED
    UNREGISTERED.discard("nothing.such")


def test_an_unknown_player_colour_is_value_color_everywhere():
    """In a board state, a move, a final scoring input and a layout alike."""
    from scanner.rules.final.holdings import parse_final
    from scanner.rules.state import BoardState

    codes = []
    for parse, data in (
        (BoardState.from_json, {"players": ["grey", "pink"]}),
        (parse_final, {"players": [{"player": "pink"}]}),
    ):
        try:
            parse(data)
        except InputError as err:
            codes.append(err.code)
    assert codes == ["value.color", "value.color"]
