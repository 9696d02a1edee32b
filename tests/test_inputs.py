"""Bad JSON of every kind is bad input, never a traceback (#20 W1, W2 and the CLI's twins):
nesting deeper than the parser's recursion, integer literals longer than Python converts,
and a patrician whose sex is not a string."""

import pytest

from tests.cli import alea, assert_bad_input
from tests.conftest import PIN
from webui import create_app

DEEP = "[" * 10000 + "]" * 10000
LONG_INT = '{"players": ["grey", "blue"], "latrina": {"grey": ' + "1" * 5000 + "}}"
BAD_SEX = (
    '{"players": [{"player": "grey", "provinces": [], "senate": [], "fortuna": [], "repete": 0,'
    ' "patricians": [{"color": "red", "sex": [], "value": 1}]}]}'
)


@pytest.mark.parametrize("command", [["check"], ["round"], ["final"], ["game", "import"]])
def test_the_commands_answer_deep_nesting_with_exit_2(command, tmp_path):
    args = [*command, "-"]
    if command == ["game", "import"]:
        args += ["--data", str(tmp_path), "--game", "deep"]
    rc, out, err = alea(*args, stdin=DEEP)
    assert_bad_input(rc, out, err, "json.too-deep")


def test_the_commands_answer_long_integers_and_a_bad_sex_with_exit_2():
    rc, out, err = alea("round", "-", stdin=LONG_INT)
    assert_bad_input(rc, out, err, "json.number")
    rc, out, err = alea("final", "-", stdin=BAD_SEX)
    assert_bad_input(rc, out, err, "sex.unknown", "$.players[0].patricians[0].sex")


@pytest.mark.parametrize(
    "route",
    ["/api/check", "/api/round", "/api/final", "/api/game/new", "/api/game/place", "/api/layout"],
)
def test_every_json_route_answers_deep_nesting_with_400(client, route):
    res = client.post(route, data=DEEP, content_type="application/json", headers=PIN)
    assert res.status_code == 400, res.data[:200]
    assert res.get_json()["error"]["code"] == "json.too-deep"


def test_the_web_answers_long_integers_and_a_bad_sex_with_400(client):
    res = client.post("/api/round", data=LONG_INT, content_type="application/json")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "json.number"
    res = client.post("/api/final", data=BAD_SEX, content_type="application/json")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "sex.unknown"


def png_header_bomb(width=100_000, height=100_000) -> bytes:
    """A few hundred bytes of PNG whose header announces `width` x `height` pixels."""
    import struct
    import zlib

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit grey
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("size", [(100_000, 100_000), (30_000, 30_000)])
def test_a_huge_image_is_refused_from_its_header_before_decoding(size, tmp_path):
    """#20 W3/W4: OpenCV raised on the first and spent 7 GB and 25 s on the second."""
    import time

    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_header_bomb(*size))
    started = time.perf_counter()
    for args in (["dice", str(bomb)], ["calibrate", str(bomb), "--out", str(tmp_path / "c.json")]):
        rc, out, err = alea(*args)
        assert_bad_input(rc, out, err, "image.too-large")
    client = create_app({"DATA_DIR": str(tmp_path)}).test_client()
    res = client.post("/api/scan", data=bomb.read_bytes(), content_type="image/png")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "image.too-large"
    assert time.perf_counter() - started < 60  # a hang guard, not a speed target


def test_image_sizes_are_read_from_every_header_we_accept():
    import cv2
    import numpy as np

    from scanner.inputs import image_size

    img = np.zeros((37, 53, 3), np.uint8)
    for ext in (".png", ".jpg", ".bmp", ".webp", ".tif"):
        ok, buf = cv2.imencode(ext, img)
        assert ok and image_size(buf.tobytes()) == (53, 37), ext
    assert image_size(b"not an image") is None and image_size(b"\x89PNG\r\n\x1a\n") is None


@pytest.mark.parametrize(
    "events",
    [
        [{"event": "undo"}],
        [{"event": "redo"}],
        [{"event": "new-game", "players": 5, "seed": 0}],
        [{"event": "new-game", "players": ["grey", "blue"], "seed": [1]}],
        [{"event": "new-game", "players": ["grey", "blue"], "seed": 0}, {"event": "\ud800"}],
        [{"event": "new-game", "players": ["grey", "blue"], "seed": 0, "note": "x" * 10**6}],
        [
            {"event": "new-game", "players": ["grey", "blue"], "seed": 0},
            {"event": "correct", "state": {"players": ["grey", "blue"]}, "why": "x" * 201},
        ],
    ],
    ids=["lone-undo", "lone-redo", "players-5", "seed-list", "unknown", "extra-field", "long-why"],
)
def test_a_game_import_that_does_not_replay_is_refused_and_leaves_no_file(events, tmp_path):
    """#20: an IndexError or TypeError, and the broken file left in games/ stopped alea serve."""
    import json

    record = json.dumps({"format": "alea-game", "version": 1, "events": events})
    rc, out, err = alea(
        "game", "import", "-", "--data", str(tmp_path), "--game", "current", stdin=record
    )
    assert_bad_input(rc, out, err, "import.replay")
    assert list((tmp_path / "games").iterdir()) == []


def test_a_game_with_a_lone_surrogate_prints_valid_json(tmp_path):
    record = (
        '{"format": "alea-game", "version": 1, "events": ['
        '{"event": "new-game", "players": ["grey", "blue"], "seed": 0}, '
        '{"event": "correct", "state": {"players": ["grey", "blue"]}, "why": "\\ud800"}]}'
    )
    rc, out, err = alea(
        "game", "import", "-", "--data", str(tmp_path), "--game", "odd", stdin=record
    )
    assert rc == 0 and isinstance(out, dict) and out["events"] == 2, (rc, out, err)
    assert [p.name for p in (tmp_path / "games").iterdir() if p.suffix == ".alea"] == ["odd.alea"]
    rc, out, err = alea("game", "export", "--data", str(tmp_path), "--game", "odd")
    assert rc == 0 and out["events"][1]["why"] == "\ud800", (rc, out, err)


@pytest.mark.parametrize(
    "args", [["scan", "x.jpg"], ["nosuch"], ["game", "import"], ["check", "-", "--bogus"]]
)
def test_a_wrong_command_line_is_bad_input_with_the_error_object(args):
    rc, out, err = alea(*args, stdin="{}")
    assert_bad_input(rc, out, err, "usage")


@pytest.mark.parametrize("field, value", [("markers", [""]), ("markers", 3), ("error_mm", "x")])
def test_a_calibration_with_a_bad_field_is_bad_input(field, value, tmp_path):
    """#20: `markers: [""]` was a ValueError traceback from `alea board --calibration`."""
    import json

    from tests.test_webui_table import still_table

    _, cal = still_table()
    data = {**cal.to_json(), field: value}
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(data))
    dice = tmp_path / "dice.json"
    dice.write_text('{"dice": []}')
    rc, out, err = alea("board", str(dice), "--calibration", str(path))
    assert_bad_input(rc, out, err, "schema.type", f"$.{field}")


def test_damaged_photos_leave_one_stderr_line_at_most(tmp_path):
    """#20: libpng and libjpeg printed their own lines past the contract's one."""
    import cv2
    import numpy as np

    noise = np.random.default_rng(0).integers(0, 255, (200, 300, 3), np.uint8)
    png = cv2.imencode(".png", noise)[1].tobytes()
    jpeg = bytearray(cv2.imencode(".jpg", noise)[1].tobytes())
    for i in range(600, len(jpeg), 97):
        jpeg[i] = 0xFF  # decodes, with "Corrupt JPEG data" from libjpeg
    (tmp_path / "cut.png").write_bytes(png[: len(png) // 2])
    (tmp_path / "damaged.jpg").write_bytes(bytes(jpeg))
    rc, out, err = alea("dice", str(tmp_path / "cut.png"))
    assert_bad_input(rc, out, err, "image.unreadable", "$.images[0]")
    assert "libpng" in out["error"]["message"]  # what the codec said, in the one line
    rc, out, err = alea("dice", str(tmp_path / "damaged.jpg"))
    assert rc == 0 and err.strip() == "", err
    assert out["images"][0]["width"] == 300


@pytest.mark.parametrize("name", ["V\x1c\x91", "N\x85x", "a\u2028b", "tab\there"])
def test_line_breaks_taken_from_the_input_stay_escaped(tmp_path, name):
    """#20 (found by benchmarks/fuzz.py): a colour name with \\x1c or \\x85 made the one stderr
    line two for splitlines(), and the JSON on stdout two lines."""
    import json

    (tmp_path / "s.json").write_text(json.dumps({"players": ["grey", "blue"], "supply": {name: 1}}))
    rc, out, err = alea("round", str(tmp_path / "s.json"))
    assert_bad_input(rc, out, err, "value.color")
    assert out["error"]["path"] == f"$.supply.{name}"  # the JSON still says exactly what it was


@pytest.mark.parametrize(
    "args, code, path",
    [
        (["demo", "--out", "/proc/alea-nowhere"], "io.error", "$"),
        (["synth", "--out", "/proc/alea-nowhere", "--n", "1"], "io.error", "$"),
        (["train", "--epochs", "-1"], "train.bad-option", "$.epochs"),
        (["train", "--lr0", "0"], "train.bad-option", "$.lr0"),
        (["train", "--board-max-tilt", "60"], "train.bad-option", "$.board_max_tilt"),
        (["train", "--world", "1.5"], "train.bad-option", "$.world"),
        (["train", "--face-board-sheen", "2"], "train.bad-option", "$.face_board_sheen"),
        (["train", "--face-shades", "pastel"], "train.bad-option", "$.face_shades"),
        (["train", "--face-board-glare", "2"], "train.bad-option", "$.face_board_glare"),
        (["train", "--face-board-max-tilt", "60"], "train.bad-option", "$.face_board_max_tilt"),
        (["train", "--face-board-others", "-1"], "train.bad-option", "$.face_board_others"),
        (["train", "--face-n", "0", "--face-boards", "0"], "train.bad-option", "$.face_n"),
        (["train", "--face-init", "no/such/reader.pt"], "train.bad-option", "$.face_init"),
        (["train", "--face-lr", "0"], "train.bad-option", "$.face_lr"),
        (["train", "--face-logo-sixes", "1.5"], "train.bad-option", "$.face_logo_sixes"),
        (["train", "--keyboards", "2"], "train.bad-option", "$.keyboards"),
        (["train", "--optimizer", "Adam"], "train.bad-option", "$.optimizer"),
        (["train", "--face-long-pips", "-0.1"], "train.bad-option", "$.face_long_pips"),
        (["train", "--face-translucent", "2"], "train.bad-option", "$.face_translucent"),
        (["train", "--face-keyboards", "-1"], "train.bad-option", "$.face_keyboards"),
        (["train", "--tiles", "1.5"], "train.bad-option", "$.tiles"),
        (["train", "--face-learns", "value"], "train.bad-option", "$.face_learns"),
        (["train", "--face-learns", "gate"], "train.bad-option", "$.face_init"),
        (
            ["train", "--face-board-logo-sixes", "2"],
            "train.bad-option",
            "$.face_board_logo_sixes",
        ),
        (["eval", "--tables", "/nonexistent"], "eval.no-set", "$.tables"),
        (
            ["eval", "--finder", "--board-px-per-mm", "1.75", "--tables", "."],
            "eval.bad-option",
            "$.board_px_per_mm",
        ),
        (["eval", "--photos", "/nonexistent"], "eval.no-set", "$.photos"),
    ],
    ids=[
        "demo-out",
        "synth-out",
        "train-epochs",
        "train-lr0",
        "train-tilt",
        "train-world",
        "train-sheen",
        "train-shades",
        "train-board-glare",
        "train-board-tilt",
        "train-board-others",
        "train-no-face-data",
        "train-face-init",
        "train-face-lr",
        "train-logo-sixes",
        "train-keyboards",
        "train-optimizer",
        "train-long-pips",
        "train-translucent",
        "train-face-keyboards",
        "train-tiles",
        "train-face-learns",
        "train-gate-without-init",
        "train-board-logo-sixes",
        "eval-tables",
        "eval-finder-scale",
        "eval-photos",
    ],
)
def test_long_commands_refuse_bad_options_at_once(args, code, path):
    """#20 (found by a sweep over every command): tracebacks from mkdir and ultralytics, and an
    eval that ran its minutes of figures before saying a table set was missing."""
    rc, out, err = alea(*args, timeout=60)
    assert_bad_input(rc, out, err, code, path)


def _every_reader():
    """Each input alea reads, as a function of its JSON: the four validators of the issue
    (board state, final inventory, layout, calibration) and the seating of a new game."""
    import copy
    import json

    from scanner.inputs import parse_seating
    from scanner.rules.final.holdings import parse_final
    from scanner.rules.state import BoardState
    from scanner.vision.calibrate import Calibration
    from scanner.vision.layout import Layout, default_layout

    layout = default_layout().to_json()
    profile = {
        "schema": "alea.calibration/1",
        "image_size": [1280, 720],
        "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        "layout": layout,
    }
    player = {"player": "grey", "provinces": [], "senate": [], "fortuna": [], "repete": 0}

    def with_(data, edit):
        data = copy.deepcopy(data)
        edit(data)
        return data

    assert json.dumps(layout)  # plain JSON
    return {
        "state": lambda edit: BoardState.from_json(with_({"players": ["grey", "blue"]}, edit)),
        "final": lambda edit: parse_final(with_({"players": [player]}, edit)),
        "layout": lambda edit: Layout.from_json(with_(layout, edit)),
        "calibration": lambda edit: Calibration.from_json(with_(profile, edit)),
        "seating": lambda edit: parse_seating(
            with_({"players": ["grey", "blue"]}, edit)["players"]
        ),
    }


UNKNOWN_COLOUR = {
    "state": lambda d: d["players"].__setitem__(1, "red"),
    "final": lambda d: d["players"][0].__setitem__("player", "red"),
    "layout": lambda d: d["swatches"]["positions"][0].__setitem__("color", "red"),
    "calibration": lambda d: d["layout"]["swatches"]["positions"][0].__setitem__("color", "red"),
    "seating": lambda d: d["players"].__setitem__(1, "red"),
}
WRONG_TYPE = {
    "state": lambda d: d.__setitem__("forum", {}),
    "final": lambda d: d["players"][0].__setitem__("provinces", {}),
    "layout": lambda d: d["board"].__setitem__("width", "wide"),
    "calibration": lambda d: d.__setitem__("error_mm", "small"),
    "seating": lambda d: d.__setitem__("players", "grey"),
}


@pytest.mark.parametrize("kind", sorted(UNKNOWN_COLOUR))
def test_one_mistake_has_one_code_whichever_input_it_is_in(kind):
    """An unknown colour is `value.color` and a field of the wrong JSON type `schema.type`
    in every input, with the path of the field (scanner.inputs.fields)."""
    from scanner.errors import InputError

    read = _every_reader()[kind]
    with pytest.raises(InputError) as colour:
        read(UNKNOWN_COLOUR[kind])
    assert colour.value.code == "value.color", colour.value
    with pytest.raises(InputError) as typed:
        read(WRONG_TYPE[kind])
    assert typed.value.code == "schema.type", typed.value
    assert typed.value.path.startswith("$") and typed.value.path != "$"
