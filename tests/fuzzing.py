"""The fuzzer behind `tests/test_fuzz.py` (small, in CI) and `benchmarks/fuzz.py` (large, prints
its figures): every `alea` command a user runs on files and every web route, fed with valid
inputs that have one part changed, with random JSON and with random bytes.

What must hold for every input (CONTRACT.md, #20): no traceback; exit 0 or 2, and on 2 one stderr
line and the error object; on the web no 5xx, and under /api a JSON answer, the error object for
every 4xx; and after it all the data folder still opens as the game it was.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from scanner.cli import main
from tests.test_final_cli import CONTRACT_EXAMPLE

PIN = "135790"
HEADERS = {"X-Alea-Pin": PIN}
STATE = {
    "players": ["grey", "blue", "green"],
    "senatus": {"grey": [3, 4]},
    "castrum": [{"player": "blue", "value": 4, "count": 2}],
    "forum": [{"player": "green", "value": 2}],
    "latrina": {"blue": 1},
    "supply": {"grey": 6, "blue": 5, "green": 7},
}
PROVINCE = {"color": "red", "value": 3}
# The contract's example, and a second player, with the player count that checks card IV.
INVENTORY = {
    "player_count": 3,
    "players": [
        *CONTRACT_EXAMPLE["players"],
        {"player": "blue", "provinces": [{"color": "green", "value": 2}], "repete": 1},
    ],
}
MOVE = {"player": "grey", "building": "senatus", "dice": [5]}
CHECK = {"state": STATE, "move": MOVE, "roll": [5, 1, 6]}
DIE = {"value": 3, "color": "grey", "confidence": 0.9, "bbox": [280.0, 280.0, 328.0, 328.0]}
BOARD = {"dice": [DIE, {**DIE, "bbox": [610.0, 280.0, 658.0, 328.0], "color": "blue"}]}
GAME = {
    "format": "alea-game",
    "version": 1,
    "events": [
        {"event": "new-game", "players": ["grey", "blue"], "seed": 3},
        {"event": "place", "move": {"player": "grey", "building": "senatus", "dice": [2, 3]}},
        {"event": "correct", "state": {"players": ["grey", "blue"]}, "why": "by hand"},
        {"event": "undo"},
        {"event": "redo"},
    ],
}

# The game API's actions with a body each accepts, so that mutations start from sense.
GAME_BODIES: dict[str, Any] = {
    "new": {"players": ["grey", "blue", "green"], "seed": 2},
    "place": {"move": MOVE, "roll": [5, 1, 6, 2, 2, 3, 4, 4]},
    "observe": {"state": STATE, "unsure": [{"building": "forum", "player": None, "value": 2}]},
    "correct": {"state": STATE, "why": "the camera missed one"},
    "accept": {},
    "take-as-seen": {},
    "lay-out": {"provinces": [PROVINCE], "patricians": [{"color": "red", "sex": "f", "value": 3}]},
    "repete": {"player": "grey"},
    "pick": {"player": "grey", "kind": "fortuna", "tile": 3},
    "next-round": {},
    "undo": {},
    "redo": {},
}
CALCULATORS = {"/api/check": CHECK, "/api/round": STATE, "/api/final": INVENTORY}
PAGES = ("/", "/game", "/referee", "/final", "/calibrate", "/api/game", "/api/game/table")
READS = (
    "/api/game/inventory",
    "/api/game/record",
    "/api/layout",
    "/api/palette",
    "/calibration/rectified.jpg",
    "/calibration/sheet/markers-a4.pdf",
    "/static/game.js",
)
# Commands that run on files and end by themselves (serve, watch, train, synth, demo and eval
# run for minutes or forever and are fuzzed through their arguments only in benchmarks).
JSON_COMMANDS = {"check": CHECK, "round": STATE, "final": INVENTORY, "board": BOARD}

# ------------------------------------------------------------------------------ strategies
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.sampled_from([0, 1, 5, 6, 7, 8, 9, -1, 2**63, 10**30])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["grey", "blue", "forum", "templum", "XII", "joker", "f", "m", "\ud800", ""])
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=24,
)


@st.composite
def mutated(draw, value: Any, depth: int = 0) -> Any:
    """`value` with one part changed: a field replaced, dropped or added, a list item dropped or
    repeated, or the whole thing swapped for any JSON."""
    if depth > 8 or draw(st.integers(0, 5)) == 0:
        return draw(json_values)
    if isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value)))
        how = draw(st.sampled_from(["replace", "descend", "descend", "drop", "add"]))
        out = dict(value)
        if how == "drop":
            del out[key]
        elif how == "add":
            out[draw(st.text(max_size=8))] = draw(json_values)
        elif how == "replace":
            out[key] = draw(json_values)
        else:
            out[key] = draw(mutated(value[key], depth + 1))
        return out
    if isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        how = draw(st.sampled_from(["descend", "descend", "drop", "repeat", "replace"]))
        out = list(value)
        if how == "drop":
            del out[i]
        elif how == "repeat":
            out.extend([value[i]] * draw(st.integers(1, 12)))
        elif how == "replace":
            out[i] = draw(json_values)
        else:
            out[i] = draw(mutated(value[i], depth + 1))
        return out
    return draw(json_values)


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode("utf-8", "surrogatepass")


def bodies(seed: Any) -> st.SearchStrategy[bytes]:
    """Request or file bodies: the seed changed, any JSON, or bytes that are hardly JSON."""
    raw = st.sampled_from(
        [
            b"",
            b"null",
            b"[" * 5000 + b"]" * 5000,
            b'{"a":' * 3000 + b"1" + b"}" * 3000,
            b"1" * 5000,
            b'"\\ud800"',
            b"\xff\xfe{",
            b"NaN",
            b"[1e999]",
        ]
    )
    return mutated(seed).map(dumps) | json_values.map(dumps) | raw | st.binary(max_size=64)


@st.composite
def images(draw) -> bytes:
    """Photo uploads: a small real PNG or JPEG, cut short, with bytes flipped, or a header
    announcing a size far beyond its bytes."""
    import cv2
    import numpy as np

    h, w = draw(st.integers(1, 48)), draw(st.integers(1, 48))
    ext = draw(st.sampled_from([".png", ".jpg", ".bmp", ".webp"]))
    data = bytearray(cv2.imencode(ext, np.full((h, w, 3), draw(st.integers(0, 255)), np.uint8))[1])
    how = draw(st.sampled_from(["whole", "cut", "flip", "giant"]))
    if how == "cut":
        data = data[: draw(st.integers(0, len(data)))]
    elif how == "flip":
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    elif how == "giant" and ext == ".png":
        data[16:24] = (100_000).to_bytes(4, "big") * 2
    return bytes(data)


# ------------------------------------------------------------------------------ checks
@dataclass
class Tally:
    """What a fuzz run saw: inputs tried, answers by kind, the broken ones with their input."""

    tried: int = 0
    answers: dict[str, int] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)
    slowest_s: float = 0.0

    def count(self, kind: str, seconds: float) -> None:
        self.tried += 1
        self.answers[kind] = self.answers.get(kind, 0) + 1
        self.slowest_s = max(self.slowest_s, seconds)

    def fail(self, what: str) -> None:
        self.broken.append(what[:600])


def error_object(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and set(data) == {"error"}
        and isinstance(data["error"], dict)
        and set(data["error"]) == {"code", "message", "path"}
        and all(isinstance(v, str) for v in data["error"].values())
    )


def check_response(tally: Tally, method: str, path: str, body: bytes, res, seconds: float):
    """One web answer against the contract."""
    tally.count(str(res.status_code), seconds)
    what = f"{method} {path} {body[:200]!r} -> {res.status_code} {res.data[:200]!r}"
    if res.status_code >= 500:
        tally.fail(what)
        return
    if not path.startswith("/api/") or path.endswith(".jpg"):
        return
    try:
        data = json.loads(res.data)
    except ValueError:
        tally.fail("not JSON: " + what)
        return
    if res.status_code >= 400 and not error_object(data):
        tally.fail("no error object: " + what)


def run_cli(tally: Tally, argv: list[str]) -> None:
    """`alea ARGV` in this process (the same `main` as the console script), against the
    contract: exit 0 with JSON, or exit 2 with the error object and one stderr line."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # the traceback a user would have seen
        tally.count("traceback", time.perf_counter() - start)
        tally.fail(f"alea {' '.join(argv)[:300]}: {type(exc).__name__}: {exc}")
        return
    tally.count(f"exit {rc}", time.perf_counter() - start)
    what = f"alea {' '.join(argv)[:300]} -> {rc}: {out.getvalue()[:200]!r} {err.getvalue()[:200]!r}"
    if rc not in (0, 2):
        tally.fail(what)
        return
    text = out.getvalue().strip()
    try:
        data = json.loads(text.splitlines()[0]) if text else None
    except ValueError:
        data = None
    if rc == 2 and (not error_object(data) or len(err.getvalue().strip().splitlines()) != 1):
        tally.fail("bad error answer: " + what)
    if rc == 0 and data is None and argv[0] not in ("markers",):
        tally.fail("no JSON: " + what)


def write(folder: Path, name: str, data: bytes) -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


class Workspace:
    """A folder with what the photo commands need to get past their first check: a rendered
    photo of the marker sheet with dice on it, and the calibration profile made from it."""

    def __init__(self, folder: Path) -> None:
        import cv2
        import numpy as np

        from scanner.vision.layout import default_layout
        from tests.scenes import render_scene

        self.folder = folder
        dice = [(100, 100, "blue", 5), (210, 90, "grey", 4), (72, 175, "green", 1)]
        scene = render_scene(default_layout(), np.random.default_rng(5), dice=dice)
        self.photo = cv2.imencode(".jpg", scene.image)[1].tobytes()
        self.calibration = folder / "calibration.json"
        table = write(folder, "table.jpg", self.photo)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = main(["calibrate", table, "--out", str(self.calibration)])
        assert rc == 0, out.getvalue()
        self.profile = json.loads(self.calibration.read_text())

    def photos(self) -> st.SearchStrategy[bytes]:
        """The table photo whole, cut short or with bytes changed, or a small odd image."""

        @st.composite
        def damaged(draw):
            data = bytearray(self.photo)
            if draw(st.booleans()):
                return bytes(data[: draw(st.integers(0, len(data)))])
            for _ in range(draw(st.integers(1, 6))):
                data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
            return bytes(data)

        return st.just(self.photo) | damaged() | images()

    def cli_cases(self) -> st.SearchStrategy[list[str]]:
        """Command lines over files the fuzzer writes: each JSON command on a changed input, game
        import into a data folder, simulate with odd numbers, the photo commands on odd photos
        and calibrations, and words shuffled into command lines."""
        folder = self.folder

        def json_case(t):
            name, body, extra = t
            return [name, write(folder, f"{name}.json", body), *extra]

        cases = []
        for name, seed in JSON_COMMANDS.items():
            extra = st.just([])
            if name == "board":
                extra = st.sampled_from([[], ["--players", "grey", "blue"], ["--players", "pink"]])
            cases.append(st.tuples(st.just(name), bodies(seed), extra).map(json_case))
        cases.append(
            st.tuples(bodies(GAME), st.integers(0, 10**9)).map(
                lambda t: [
                    "game",
                    "import",
                    write(folder, "game.json", t[0]),
                    "--data",
                    str(folder / "data"),
                    "--game",
                    f"g{t[1]}",
                ]
            )
        )
        number = st.sampled_from(["0", "1", "2", "5", "6", "-3", "x", "1e3", "9" * 30])
        cases.append(
            st.tuples(number, st.sampled_from(["0", "1", "2", "-1", "x"]), number).map(
                lambda t: ["simulate", "--players", t[0], "--games", t[1], "--seed", t[2]]
            )
        )
        cases.append(
            st.tuples(
                self.photos(),
                st.sampled_from(["dice", "calibrate", "scan", "palette"]),
                st.none() | bodies(self.profile),
            ).map(lambda t: self.photo_case(*t))
        )
        words = st.sampled_from(
            ["check", "round", "final", "board", "game", "simulate", "-", "--players",
             "--layout", "--calibration", "--json", "--data", "--nosuch", "grey", "export",
             "list", "import", "x", str(self.calibration)]
        )  # fmt: skip
        cases.append(st.lists(words, min_size=1, max_size=5))
        return st.one_of(cases)

    def photo_case(self, image: bytes, command: str, profile: bytes | None) -> list[str]:
        photo = write(self.folder, "photo.img", image)
        if command == "dice":
            return ["dice", photo]
        if command == "calibrate":
            return ["calibrate", photo, "--out", str(self.folder / "out.json")]
        calibration = str(self.calibration)
        if profile is not None:
            calibration = write(self.folder, "changed-calibration.json", profile)
        out = ["--out", str(self.folder / "palette.json")] if command == "palette" else []
        return [command, photo, "--calibration", calibration, *out]


# ------------------------------------------------------------------------------ the web
@dataclass
class Request:
    method: str
    path: str
    body: bytes = b""
    content_type: str | None = "application/json"
    headers: dict = field(default_factory=dict)

    def __repr__(self) -> str:  # what hypothesis prints for a failing example
        return f"{self.method} {self.path} [{self.content_type}] {self.headers} {self.body[:300]!r}"


def requests(photos: st.SearchStrategy[bytes]) -> st.SearchStrategy[Request]:
    """Requests to every route: the calculators, each game action (mostly with the PIN), the
    layout and palette, photo uploads, the pages and reads with odd suffixes and queries, and
    a few with other content types, origins or hosts."""
    pin = st.sampled_from([HEADERS, HEADERS, HEADERS, {}, {"X-Alea-Pin": "000000"}])
    kind = st.sampled_from(
        ["application/json"] * 6 + ["text/plain", None, "application/json; charset=latin-1"]
    )
    cases = [
        st.builds(Request, st.just("POST"), st.just(path), bodies(seed), kind)
        for path, seed in CALCULATORS.items()
    ]
    cases += [
        st.builds(Request, st.just("POST"), st.just(f"/api/game/{action}"), bodies(seed), kind, pin)
        for action, seed in GAME_BODIES.items()
    ]
    from scanner.vision.layout import default_layout

    cases.append(
        st.builds(
            Request,
            st.just("POST"),
            st.just("/api/layout"),
            bodies(default_layout().to_json()),
            kind,
            pin,
        )
    )
    cases.append(
        st.builds(
            Request, st.just("POST"), st.just("/api/palette"), bodies({"forget": True}), kind, pin
        )
    )
    query = st.sampled_from(["", "?players=grey,blue", "?players=grey,pink", "?players=", "?x=%ff"])
    cases.append(
        st.builds(
            Request,
            st.just("POST"),
            st.tuples(st.just("/api/scan"), query).map("".join),
            photos,
            st.sampled_from(["image/jpeg", "image/png", "application/octet-stream", "text/plain"]),
        )
    )
    suffix = st.sampled_from(["", "/", "x", "/..%2f..%2fpyproject.toml", "?lang=de", "%00", "/%ff"])
    cases.append(
        st.builds(
            Request,
            st.just("GET"),
            st.tuples(st.sampled_from(PAGES + READS), suffix).map("".join),
            st.just(b""),
            st.just(None),
        )
    )
    odd = st.sampled_from(
        [{"Origin": "http://attacker.example"}, {"Host": "attacker.example"}, {"Origin": "null"}]
    )
    cases.append(
        st.builds(
            Request,
            st.just("POST"),
            st.sampled_from(["/api/round", "/api/game/undo"]),
            st.just(dumps(STATE)),
            st.just("application/json"),
            odd.map(lambda h: {**HEADERS, **h}),
        )
    )
    return st.one_of(cases)


def send(tally: Tally, client, req: Request) -> None:
    start = time.perf_counter()
    res = client.open(
        "/" + req.path.lstrip("/"),  # "//x" would be a host name to the test client
        method=req.method,
        data=req.body,
        headers=req.headers,
        content_type=req.content_type,
    )
    check_response(tally, req.method, req.path, req.body, res, time.perf_counter() - start)


def started_game(client) -> None:
    """A game a few moves in, so that the fuzzed actions meet a game in play."""
    for action, body in (
        ("new", {"players": ["grey", "blue", "green"], "seed": 2}),
        ("place", {"move": {"player": "grey", "building": "senatus", "dice": [3, 4]}}),
        ("place", {"move": {"player": "blue", "building": "forum", "dice": [2, 3]}}),
    ):
        res = client.post(f"/api/game/{action}", json=body, headers=HEADERS)
        assert res.status_code == 200, res.get_json()


def restart_check(tally: Tally, app, data_dir: Path) -> None:
    """What the server shows now must be what a restart on the same folder shows."""
    from webui.live import GameHub

    before = app.extensions["alea.hub"].snapshot()
    again = GameHub(data_dir)
    after = again.snapshot()
    if again.warning is not None or before["game"] != after["game"]:
        tally.fail(f"restart differs: {again.warning!r}")
    if again.session is not None:
        again.session.store.close()


def web_example(tally: Tally, requests_made: list[Request]) -> None:
    """One example: a fresh data folder with a game a few moves in, the requests, then the
    folder reopened and compared with what the server showed."""
    import tempfile

    from webui import create_app

    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "GAME_PIN": PIN})
        client = app.test_client()
        started_game(client)
        for req in requests_made:
            send(tally, client, req)
        restart_check(tally, app, Path(data))
        app.extensions["alea.hub"].session.store.close()
