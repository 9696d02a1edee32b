"""The events of a game's record: which there are, what each may hold, and which of them count
once undo and redo are taken into account.

A record is only ever what these say, so free text cannot grow a game file or every snapshot
sent to the tablets, and a record from an older version, or written by hand, is checked event by
event before anything is replayed from it (`alea game import`, `scanner.session`).

>>> [e["event"] for e in effective([{"event": "place"}, {"event": "undo"}, {"event": "pick"}])]
['pick']
"""

from __future__ import annotations

from typing import Any

from scanner.errors import InputError
from scanner.inputs import expect_object

UNDOABLE = (
    "observe",
    "place",
    "correct",
    "accept",
    "take-as-seen",
    "pick",
    "lay-out",
    "repete",
    "next-round",
)
# What each event may hold: a record is only ever what these fields say, so free text cannot
# grow a game file or every snapshot sent to the tablets.
EVENT_FIELDS = {
    "new-game": ("players", "seed", "source"),
    "observe": ("state", "unsure"),
    "place": ("move", "roll"),
    "correct": ("state", "why"),
    "accept": ("state",),
    "take-as-seen": ("state",),
    "pick": ("player", "kind", "tile"),
    "lay-out": ("provinces", "patricians"),
    "repete": ("player",),
    "next-round": (),
    "undo": (),
    "redo": (),
}
TEXT_MAX = 200  # a correction's reason, a game's source: a short note, not a document


def check_event(event: Any, path: str = "$") -> None:
    """An event as a record may hold it: a known kind with only its own fields (and the id the
    log gives it), free text short. The values themselves are checked when it is applied."""
    if not isinstance(event, dict) or event.get("event") not in EVENT_FIELDS:
        raise InputError(
            "session.event", f"unknown event; events are {', '.join(EVENT_FIELDS)}", path
        )
    expect_object(event, path, ("event", "id", *EVENT_FIELDS[event["event"]]))
    for key in ("why", "source"):
        if key in event and event[key] is not None:
            short_text(event[key], f"{path}.{key}")


def short_text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError("schema.type", "expected a text", path)
    if len(value) > TEXT_MAX:
        raise InputError("value.range", f"at most {TEXT_MAX} characters", path)
    return value


def effective(events: list[dict]) -> list[dict]:
    """The events that count once undo and redo entries are taken into account."""
    done: list[dict] = []
    undone: list[dict] = []
    for e in events:
        if e["event"] == "undo":
            if done and done[-1]["event"] in UNDOABLE:
                undone.append(done.pop())
        elif e["event"] == "redo":
            if undone:
                done.append(undone.pop())
        else:
            done.append(e)
            undone.clear()
    return done
