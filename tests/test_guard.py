"""Requests from other sites and other host names are refused before any view runs; the PIN is
six digits that stay with the data folder; the terminal QR code reads back as the game link."""

import json

import cv2
import numpy as np
import pytest

from webui import create_app
from webui.guard import HostCheck, host_name
from webui.pin import PIN_FILE, game_pin

ROUND = {"players": ["grey", "blue"]}


@pytest.mark.parametrize(
    "header, name",
    [("localhost:8000", "localhost"), ("[::1]:8000", "::1"), ("LAN.Example", "lan.example")],
)
def test_host_name_drops_the_port(header, name):
    assert host_name(header) == name


def test_a_foreign_host_name_is_refused_on_pages_and_api(client):
    for path in ("/", "/game", "/api/game"):
        res = client.get(path, headers={"Host": "attacker.example"})
        assert res.status_code == 403, path
        assert res.get_json()["error"]["code"] == "http.host"
        assert "--allow-host attacker.example" in res.get_json()["error"]["message"]
    res = client.post("/api/round", json=ROUND, headers={"Host": "attacker.example:8000"})
    assert res.status_code == 403


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "127.0.0.1:8000",
        "[::1]:8000",
        "alea.localhost",
        "LOCALHOST.",
        "[::ffff:127.0.0.1]",
    ],
)
def test_this_machine_is_answered(client, host):
    assert client.get("/api/game", headers={"Host": host}).status_code == 200


def test_a_request_without_a_host_header_is_no_browser_and_is_answered(client):
    res = client.get("/api/game", environ_overrides={"HTTP_HOST": ""})
    assert res.status_code == 200


def test_the_machines_own_address_and_names_given_are_answered():
    from webui.guard import own_addresses

    ours = sorted(own_addresses() - {"localhost", "127.0.0.1", "::1"})
    check = HostCheck(["tablets.lan:8000"])
    assert all(check.allows(name) for name in ours)
    assert check.allows("tablets.lan") and not check.allows("tablets.lan.attacker.example")
    assert not check.allows("203.0.113.9")  # an address that is not this machine's
    assert HostCheck(["*"]).allows("anything.example")


def test_a_post_from_another_sites_page_is_refused(client):
    for origin in ("http://attacker.example", "null", "http://localhost:9999"):
        res = client.post("/api/round", json=ROUND, headers={"Origin": origin})
        assert res.status_code == 403, origin
        assert res.get_json()["error"]["code"] == "http.origin"
    res = client.post("/api/round", json=ROUND, headers={"Origin": "http://localhost"})
    assert res.status_code == 200


@pytest.mark.parametrize(
    "path, kind",
    [
        ("/api/round", "text/plain"),
        ("/api/final", "application/x-www-form-urlencoded"),
        ("/api/game/undo", "multipart/form-data; boundary=x"),
        ("/api/layout", None),
        ("/api/scan", "text/plain"),
        ("/api/scan", "application/json"),
    ],
)
def test_a_post_must_say_it_sends_json_or_a_photo(client, path, kind):
    res = client.post(path, data=json.dumps(ROUND), content_type=kind)
    assert res.status_code == 415
    err = res.get_json()["error"]
    assert err["code"] == "http.content-type" and set(err) == {"code", "message", "path"}


def test_json_with_a_charset_and_photos_as_image_types_pass(client):
    res = client.post(
        "/api/round", data=json.dumps(ROUND), content_type="application/json; charset=utf-8"
    )
    assert res.status_code == 200
    ok, png = cv2.imencode(".png", np.full((60, 80, 3), 128, np.uint8))
    for kind in ("image/png", "application/octet-stream"):
        res = client.post("/api/scan", data=png.tobytes(), content_type=kind)
        assert res.status_code == 200 and res.get_json()["state"] is None, kind


def test_the_pin_is_six_digits_kept_with_the_data_folder(tmp_path):
    first = create_app({"DATA_DIR": str(tmp_path)}).config["GAME_PIN"]
    assert len(first) == 6 and first.isdigit()
    assert create_app({"DATA_DIR": str(tmp_path)}).config["GAME_PIN"] == first
    (tmp_path / PIN_FILE).write_text('{"pin": "12"}')  # damaged or edited by hand
    again = game_pin(tmp_path)
    assert again != "12" and len(again) == 6 and game_pin(tmp_path) == again


def test_the_terminal_qr_code_reads_back_as_the_link():
    from scanner.commands.serve import terminal_qr

    link = "http://192.168.1.23:8000/game#pin=123456"
    lines = terminal_qr(link, colour=False).splitlines()
    modules = []  # each character is two modules, top and bottom
    for line in lines:
        modules.append([ch in "█▀" for ch in line])
        modules.append([ch in "█▄" for ch in line])
    light = np.array(modules, np.uint8) * 255
    image = cv2.resize(light, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text == link
    coloured = terminal_qr(link, colour=True).splitlines()
    assert len(coloured) == len(lines) and coloured[0].startswith("\033[97;40m")
