"""A game's durable record: an SQLite file with one event per row, committed before it is shown.

A crash or a restart loses nothing: reopening the file and replaying its events rebuilds the
game (`scanner.session`). A file that is not ours, or is damaged, is refused with a clear error
and never written to.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "game.alea")
>>> store = GameStore(path)
>>> store.append({"event": "new-game", "players": ["grey", "blue"], "seed": 1})
1
>>> GameStore(path).events()[0]["players"]
['grey', 'blue']
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Protocol

from scanner.errors import InputError

# PRAGMA application_id marks the file as an alea game ("ALEA" in ASCII).
APPLICATION_ID = 0x414C4541
FORMAT = "alea-game"
VERSION = 1


class Store(Protocol):
    """Where a session's events are kept: appended one by one, read back all at once."""

    def append(self, event: dict) -> int: ...
    def events(self) -> list[dict]: ...
    def close(self) -> None: ...


class MemoryStore:
    """A store that keeps events in a list (tests, a game nobody wants to keep)."""

    def __init__(self) -> None:
        self._events: list[dict] = []

    def append(self, event: dict) -> int:
        self._events.append(dict(event))
        return len(self._events)

    def events(self) -> list[dict]:
        return [{**e, "id": i + 1} for i, e in enumerate(self._events)]

    def close(self) -> None:
        """Nothing to close: the events go with the object."""


class GameStore:
    """Append-only event log of one game in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            if existed:
                self._verify()
            else:
                self._create()
        except sqlite3.DatabaseError as exc:
            raise InputError(
                "store.corrupt", f"{self.path} is not a readable alea game file ({exc})"
            ) from None

    def _create(self) -> None:
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        self.db.execute(f"PRAGMA user_version={VERSION}")
        self.db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")

    def _verify(self) -> None:
        (app_id,) = self.db.execute("PRAGMA application_id").fetchone()
        if app_id != APPLICATION_ID:
            self.db.close()
            raise InputError(
                "store.foreign", f"{self.path} is not an alea game file; it was left untouched"
            )
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        if version > VERSION:
            self.db.close()
            raise InputError(
                "store.version", f"{self.path} was written by a newer alea (format {version})"
            )
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA quick_check").fetchone()

    def append(self, event: dict) -> int:
        """Write one event durably (synchronous commit) and return its id."""
        with self.db:
            cur = self.db.execute(
                "INSERT INTO events (body) VALUES (?)", (json.dumps(event, separators=(",", ":")),)
            )
        assert cur.lastrowid is not None  # sqlite3 sets it after every INSERT
        return cur.lastrowid

    def events(self) -> list[dict]:
        rows = self.db.execute("SELECT id, body FROM events ORDER BY id").fetchall()
        out = []
        for event_id, body in rows:
            try:
                event = json.loads(body)
            except json.JSONDecodeError:
                raise InputError(
                    "store.corrupt", f"event {event_id} of {self.path} is damaged"
                ) from None
            out.append({**event, "id": event_id})
        return out

    def export(self) -> dict:
        """The whole record as one JSON object (`alea game export`)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "events": [{k: v for k, v in e.items() if k != "id"} for e in self.events()],
        }

    def close(self) -> None:
        self.db.close()


def write_json(path: str | Path, data: object) -> None:
    """Write a small JSON file (a saved layout, a palette, a calibration profile) whole or not
    at all: written beside it and renamed into place, so a kill never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def remove_store(path: str | Path) -> None:
    """Delete a game file that is not (or no longer) wanted, with its SQLite journal files
    (`-wal`, `-shm`): a build that a kill interrupted, an import that does not replay."""
    path = Path(path)
    for part in (path, *path.parent.glob(f"{path.name}-*")):
        part.unlink(missing_ok=True)


def import_game(data: object, path: str | Path) -> GameStore:
    """Write an exported game to a new file; an existing file is never overwritten."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(
            "import.format", f"not an exported alea game (format must be {FORMAT!r})", "$.format"
        )
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise InputError("import.version", "unknown export version", "$.version")
    events = data.get("events")
    if not isinstance(events, list) or not all(
        isinstance(e, dict) and "event" in e for e in events
    ):
        raise InputError("import.events", "events must be a list of event objects", "$.events")
    path = Path(path)
    if path.exists():
        raise InputError("import.exists", f"{path} already exists; it was left untouched")
    store = GameStore(path)
    for e in events:
        store.append(e)
    return store
