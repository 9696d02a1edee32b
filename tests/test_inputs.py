"""Bad JSON of every kind is bad input, never a traceback (#20 W1, W2 and the CLI's twins):
nesting deeper than the parser's recursion, integer literals longer than Python converts,
and a patrician whose sex is not a string."""

import pytest

from tests.cli import alea, assert_bad_input
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


@pytest.fixture()
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path), "GAME_PIN": "2468"}).test_client()


@pytest.mark.parametrize(
    "route",
    ["/api/check", "/api/round", "/api/final", "/api/game/new", "/api/game/place", "/api/layout"],
)
def test_every_json_route_answers_deep_nesting_with_400(client, route):
    res = client.post(
        route, data=DEEP, content_type="application/json", headers={"X-Alea-Pin": "2468"}
    )
    assert res.status_code == 400, res.data[:200]
    assert res.get_json()["error"]["code"] == "json.too-deep"


def test_the_web_answers_long_integers_and_a_bad_sex_with_400(client):
    res = client.post("/api/round", data=LONG_INT, content_type="application/json")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "json.number"
    res = client.post("/api/final", data=BAD_SEX, content_type="application/json")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "sex.unknown"
