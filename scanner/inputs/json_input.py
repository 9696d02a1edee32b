"""JSON as the commands and the web API read it: one parser with the limits the contract's
"never a traceback" needs. Python's own parser raises RecursionError on deeply nested input and
ValueError on integer literals over 4,300 digits; both are bad input here, answered with the
contract's error object like any other.

>>> parse_json("[" * 100 + "]" * 100)
Traceback (most recent call last):
...
scanner.errors.InputError: JSON nested deeper than 64 levels
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from scanner.errors import InputError

MAX_DEPTH = 64  # a final inventory, the deepest input, is 5 levels


def parse_json(text: str | bytes) -> object:
    """Parse JSON text, raising InputError (`json.malformed`, `json.too-deep`, `json.number`)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            "json.malformed", f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise InputError("json.too-deep", f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise InputError("json.malformed", "the JSON is not UTF-8 text") from None
    except ValueError as exc:  # an integer literal too long to convert
        raise InputError("json.number", f"a number in the JSON is too long ({exc})") from None
    if _depth(data) > MAX_DEPTH:
        raise InputError("json.too-deep", f"JSON nested deeper than {MAX_DEPTH} levels")
    return data


def _depth(data: object) -> int:
    """Nesting depth, without recursion (the input may be nested as deep as the parser went)."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            todo += [(x, level + 1) for x in (item.values() if isinstance(item, dict) else item)]
    return deepest


def read_json_file(file: str | os.PathLike[str], kind: str = "input", what: str = "file") -> object:
    """A JSON file parsed (`parse_json`): `{kind}.not-found` when it is missing,
    `{kind}.unreadable` when it cannot be read as UTF-8 text. For a file alea wrote itself
    (`kind` not "input": a layout, a calibration profile), broken JSON is `{kind}.unreadable`
    too, saying which file is broken; a user's input keeps the `json.*` code of what is wrong."""
    try:
        text = Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{kind}.not-found", f"no such {what}: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{kind}.unreadable", f"cannot read {file}: {exc}") from None
    if kind == "input":
        return parse_json(text)
    try:
        return parse_json(text)
    except InputError as err:
        raise InputError(f"{kind}.unreadable", f"cannot read {file}: {err.message}") from None
