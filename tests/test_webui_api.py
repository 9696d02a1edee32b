"""The JSON API mirrors the CLI: same inputs, same outputs, same error objects."""

import json

import pytest

from tests.test_final_cli import CONTRACT_EXAMPLE
from webui.guard import MAX_BODY_BYTES

PLAYERS = ["grey", "brown", "blue", "green"]


def test_check_matches_the_cli(client):
    from tests.cli import alea

    body = {
        "state": {"players": PLAYERS, "forum": [{"player": "green", "value": 3}]},
        "move": {"player": "blue", "building": "forum", "dice": [3]},
        "roll": [3, 6],
    }
    res = client.post("/api/check", json=body)
    assert res.status_code == 200
    rc, cli_out, _ = alea("check", "-", stdin=json.dumps(body))
    assert rc == 0 and res.get_json() == cli_out
    assert [d["player"] for d in cli_out["state"]["forum"]] == ["blue", "green"]


def test_check_illegal_is_200_with_rule(client):
    res = client.post(
        "/api/check",
        json={
            "state": {"players": PLAYERS[:3]},
            "move": {"player": "grey", "building": "templum", "dice": [6]},
        },
    )
    assert res.status_code == 200
    assert res.get_json()["rule"] == "templum.absent"
    # Beyond the contract's three keys, the reason's facts for a page in another language.
    assert res.get_json()["params"] == {"player": "grey", "dice": [6], "players": 3}


def test_lay_puts_dice_down_by_the_rules_insertion_whatever_their_legality(client):
    """The Referee page builds its board with /api/lay: a Forum die goes left of equal ones
    (forum.insert), a full row pushes its rightmost die onto the Latrina, and a placement the
    rules refuse (a second Senatus run) is laid all the same."""
    state = {
        "players": ["grey", "blue"],
        "forum": [{"player": "grey", "value": 3}, {"player": "grey", "value": 5}],
        "senatus": {"blue": [2]},
    }
    res = client.post(
        "/api/lay",
        json={"state": state, "move": {"player": "blue", "building": "forum", "dice": [3]}},
    )
    assert res.status_code == 200
    forum = res.get_json()["state"]["forum"]
    assert forum == [
        {"player": "blue", "value": 3},
        {"player": "grey", "value": 3},
        {"player": "grey", "value": 5},
    ]
    move = {"player": "blue", "building": "senatus", "dice": [6]}
    laid = client.post("/api/lay", json={"state": state, "move": move}).get_json()["state"]
    assert laid["senatus"]["blue"] == [2, 6]
    assert (
        client.post("/api/check", json={"state": state, "move": move}).get_json()["legal"] is False
    )
    bad = client.post(
        "/api/lay",
        json={"state": state, "move": {"player": "red", "building": "forum", "dice": [3]}},
    )
    assert bad.status_code == 400 and "error" in bad.get_json()


def test_round(client):
    res = client.post(
        "/api/round", json={"players": PLAYERS, "senatus": {"grey": [1, 2]}, "supply": {"blue": 2}}
    )
    assert res.status_code == 200
    assert res.get_json() == {
        "templum": {},
        "senatus": ["grey"],
        "castrum": [],
        "forum": [],
        "repete": {"blue": 2},
    }


@pytest.mark.parametrize(
    "url,body,code,path",
    [
        ("/api/check", "{nope", "json.malformed", "$"),
        ("/api/check", "", "json.malformed", "$"),
        (
            "/api/check",
            json.dumps({"state": {"players": ["grey", "pink"]}, "move": {}}),
            "value.color",
            "$.state.players[1]",
        ),
        (
            "/api/round",
            json.dumps({"players": ["grey", "blue"], "forum": [{"player": "grey", "value": 0}]}),
            "value.die",
            "$.forum[0].value",
        ),
        ("/api/round", "null", "schema.type", "$"),
    ],
)
def test_bad_input_is_400_with_the_error_object(client, url, body, code, path):
    res = client.post(url, data=body, content_type="application/json")
    assert res.status_code == 400
    assert res.get_json() == {
        "error": {"code": code, "message": res.get_json()["error"]["message"], "path": path}
    }


def test_body_size_limit(client):
    res = client.post(
        "/api/check", data="x" * (MAX_BODY_BYTES + 1), content_type="application/json"
    )
    assert res.status_code == 413
    assert res.get_json()["error"]["code"] == "input.too-large"


def test_unknown_api_route_and_method_answer_json(client):
    res = client.get("/api/nothing")
    assert res.status_code == 404 and res.get_json()["error"]["code"] == "http.not-found"
    res = client.get("/api/check")
    assert res.status_code == 405 and res.get_json()["error"]["code"] == "http.method"


def test_pages_render_with_local_assets_only(client):
    for url in ("/", "/final", "/referee"):
        res = client.get(url)
        assert res.status_code == 200
        html = res.get_data(as_text=True)
        assert "http://" not in html and "https://" not in html, "no CDN or remote asset"
    assert client.get("/static/app.css").status_code == 200


FINAL = CONTRACT_EXAMPLE


def test_final_matches_the_cli(client):
    from tests.cli import alea

    res = client.post("/api/final", json=FINAL)
    assert res.status_code == 200
    rc, out, _ = alea("final", "-", stdin=json.dumps(FINAL))
    assert rc == 0 and res.get_json() == out
    assert out["winners"] == ["grey"] and out["players"][0]["total"] > 0


def test_final_bad_input(client):
    bad = json.loads(json.dumps(FINAL))
    bad["players"][0]["senate"].append("XIV")
    res = client.post("/api/final", json=bad)
    assert res.status_code == 400 and res.get_json()["error"]["path"].startswith("$.players[0]")


def test_scan_upload_errors_and_no_board(client):
    import cv2
    import numpy as np

    res = client.post("/api/scan", data=b"", content_type="image/png")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "image.empty"
    res = client.post("/api/scan", data=b"not an image at all", content_type="image/jpeg")
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "image.unreadable"
    ok, png = cv2.imencode(".png", np.full((240, 320, 3), 128, np.uint8))
    res = client.post("/api/scan", data=png.tobytes(), content_type="application/octet-stream")
    assert res.status_code == 200
    out = res.get_json()
    assert out["state"] is None and "marker" in out["warnings"][0]
    res = client.post("/api/scan?players=grey,pink", data=png.tobytes(), content_type="image/png")
    assert res.status_code == 400 and res.get_json()["error"]["path"] == "$.players[1]"


def test_json_limit_is_separate_from_the_photo_limit(client):
    res = client.post(
        "/api/round",
        data=b"[" + b"1," * (MAX_BODY_BYTES // 2) + b"1]",
        content_type="application/json",
    )
    assert res.status_code == 413
