"""`alea final FILE` as CONTRACT.md describes it, run as a real subprocess."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CONTRACT_EXAMPLE = {
    "players": [
        {
            "player": "grey",
            "provinces": [{"color": "red", "value": 3}, {"color": "joker", "value": 0}],
            "patricians": [
                {"color": "red", "sex": "f", "value": 3},
                {"color": "red", "sex": "m", "value": 1},
            ],
            "senate": ["I", "XI", {"card": "XII", "colors": ["red", "green"]}, "XIII"],
            "fortuna": [3, 2, 1],
            "repete": 5,
        }
    ]
}


def run_final(tmp_path: Path, data: object | str, *, stdin: bool = False):
    text = data if isinstance(data, str) else json.dumps(data)
    if stdin:
        args, feed = ["-"], text
    else:
        path = tmp_path / "final.json"
        path.write_text(text, encoding="utf-8")
        args, feed = [str(path)], None
    return subprocess.run(
        [sys.executable, "-m", "scanner", "final", *args],
        cwd=ROOT,
        input=feed,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_contract_example_gives_documented_shape(tmp_path):
    proc = run_final(tmp_path, CONTRACT_EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"players", "winners"}
    (p,) = out["players"]
    assert {"player", "total", "breakdown", "cards", "assignment", "unplaced_value"} <= set(p)
    assert set(p["breakdown"]) == {"provinces", "patricians", "senate", "fortuna", "repete"}
    assert p["total"] == sum(p["breakdown"].values())
    # The couple is worth more on the border card (3 + 4) than on red III (+1 over empty).
    assert p["breakdown"] == {
        "provinces": 2,
        "patricians": 4,
        "senate": 6,
        "fortuna": 6,
        "repete": 2,
    }
    assert p["cards"] == [
        {"card": "I", "points": 3},
        {"card": "XI", "points": 0},
        {"card": "XII", "colors": ["red", "green"], "points": 3},
        {"card": "XIII", "points": 0},
    ]
    assert len(p["assignment"]) == 4  # red III, joker, border, free
    for a in p["assignment"]:
        assert {"patricians", "offspring", "points", "text"} <= set(a)
    assert p["assignment"][2]["text"] == "border red/green: red woman III + red man I"
    assert p["assignment"][0]["text"] == "red III: empty"
    assert out["winners"] == ["grey"]
    assert proc.stderr == ""


def test_stdin_and_several_players_and_ties(tmp_path):
    data = copy.deepcopy(CONTRACT_EXAMPLE)
    twin = copy.deepcopy(data["players"][0])
    twin.update(player="blue", provinces=[], patricians=[], senate=[], repete=0)
    twin["fortuna"] = [3, 3, 3, 3, 3, 3, 2]  # 20 points, like grey, and nothing unplaced
    data["players"].append(twin)
    data["player_count"] = 4
    proc = run_final(tmp_path, data, stdin=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [p["player"] for p in out["players"]] == ["grey", "blue"]
    assert [p["total"] for p in out["players"]] == [20, 20]
    assert out["winners"] == ["grey", "blue"]  # final.winner: still tied, both win


def _bad(mutate):
    data = copy.deepcopy(CONTRACT_EXAMPLE)
    mutate(data)
    return data


def _second_player(**kw):
    def mutate(d):
        d["players"].append({"player": "blue", **kw})

    return mutate


P0 = "$.players[0]"


def _set(path, value):
    def mutate(d):
        obj = d["players"][0]
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value

    return mutate


BAD = {
    "malformed json": ('{"players": [', "json.malformed", "$"),
    "not an object": ([1, 2], "schema.type", "$"),
    "no players": ({"players": []}, "schema.missing", "$.players"),
    "unknown player": (_bad(_set(["player"], "red")), "value.color", f"{P0}.player"),
    "duplicate player": (
        _bad(_second_player(player="grey")),
        "state.duplicate-player",
        "$.players[1].player",
    ),
    "player_count 6": (
        _bad(lambda d: d.update(player_count=6)),
        "value.range",
        "$.player_count",
    ),
    "IV with 3 players": (
        _bad(lambda d: (d.update(player_count=3), d["players"][0]["senate"].append("IV"))),
        "card.removed",
        f"{P0}.senate[4]",
    ),
    "unknown card": (_bad(_set(["senate", 0], "XIV")), "card.unknown", f"{P0}.senate[0]"),
    "border one colour": (
        _bad(_set(["senate", 2], {"card": "XII", "colors": ["red"]})),
        "card.border",
        f"{P0}.senate[2]",
    ),
    "border same colours": (
        _bad(_set(["senate", 2, "colors"], ["red", "red"])),
        "card.border",
        f"{P0}.senate[2].colors[1]",
    ),
    "border unknown colour": (
        _bad(_set(["senate", 2, "colors"], ["pink", "red"])),
        "value.color",
        f"{P0}.senate[2].colors[0]",
    ),
    "bare XII": (_bad(_set(["senate", 2], "XII")), "card.border", f"{P0}.senate[2]"),
    "patrician colour": (
        _bad(_set(["patricians", 1, "color"], "teal")),
        "value.color",
        f"{P0}.patricians[1].color",
    ),
    "patrician value 4": (
        _bad(_set(["patricians", 1, "value"], 4)),
        "value.patrician",
        f"{P0}.patricians[1].value",
    ),
    "patrician value 2.5": (
        _bad(_set(["patricians", 0, "value"], 2.5)),
        "value.patrician",
        f"{P0}.patricians[0].value",
    ),
    "patrician sex": (
        _bad(_set(["patricians", 0, "sex"], "x")),
        "sex.unknown",
        f"{P0}.patricians[0].sex",
    ),
    "province value 5": (
        _bad(_set(["provinces", 0, "value"], 5)),
        "value.province",
        f"{P0}.provinces[0].value",
    ),
    "province value 0": (
        _bad(_set(["provinces", 0, "value"], 0)),
        "value.province",
        f"{P0}.provinces[0].value",
    ),
    "joker value 1": (
        _bad(_set(["provinces", 1, "value"], 1)),
        "value.joker",
        f"{P0}.provinces[1].value",
    ),
    "fortuna 4": (_bad(_set(["fortuna", 2], 4)), "value.fortuna", f"{P0}.fortuna[2]"),
    "repete negative": (_bad(_set(["repete"], -1)), "value.repete", f"{P0}.repete"),
    "repete string": (_bad(_set(["repete"], "5")), "value.repete", f"{P0}.repete"),
    "patricians not a list": (_bad(_set(["patricians"], {})), "schema.type", f"{P0}.patricians"),
    "same patrician twice": (
        _bad(_set(["patricians", 1], {"color": "red", "sex": "f", "value": 3})),
        "tile.count",
        f"{P0}.patricians[1]",
    ),
    "patrician held by two players": (
        _bad(_second_player(patricians=[{"color": "red", "sex": "m", "value": 1}])),
        "tile.count",
        "$.players[1].patricians[0]",
    ),
    "second joker": (
        _bad(_second_player(provinces=[{"color": "joker", "value": 0}])),
        "tile.count",
        "$.players[1].provinces[0]",
    ),
    "second card I": (_bad(_second_player(senate=["I"])), "tile.count", "$.players[1].senate[0]"),
    "same border pair reversed": (
        _bad(_second_player(senate=[{"card": "XII", "colors": ["green", "red"]}])),
        "tile.count",
        "$.players[1].senate[0]",
    ),
    "third XIII": (
        _bad(_second_player(senate=["XIII", "XIII"])),
        "tile.count",
        "$.players[1].senate[1]",
    ),
    "seven border cards": (
        _bad(
            _second_player(
                senate=[
                    {"card": "XII", "colors": list(p)}
                    for p in [
                        ("red", "blue"),
                        ("red", "purple"),
                        ("red", "yellow"),
                        ("red", "orange"),
                        ("green", "blue"),
                        ("green", "purple"),
                    ]
                ]
            )
        ),
        "tile.count",
        "$.players[1].senate[5]",
    ),
    "ninth Fortuna 1": (
        _bad(_second_player(fortuna=[1] * 8)),
        "tile.count",
        "$.players[1].fortuna[7]",
    ),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_exits_2_with_error_object(tmp_path, name):
    data, code, path = BAD[name]
    proc = run_final(tmp_path, data)
    assert proc.returncode == 2, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    err = json.loads(proc.stdout)["error"]
    assert (err["code"], err["path"]) == (code, path), err
    assert err["message"]


def test_missing_file_exits_2(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "scanner", "final", str(tmp_path / "nope.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["error"]["code"] == "input.not-found"
    assert "Traceback" not in proc.stderr
