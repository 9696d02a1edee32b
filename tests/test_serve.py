"""`alea serve` as its users run it, in its own process: manual entry only with --no-camera,
a game that survives the server being killed and started again."""

import contextlib
import http.client
import json
import os
import signal
import socket
import urllib.request

from tests.cli import alea, assert_bad_input, serve


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url, path, body=None, pin=None):
    req = urllib.request.Request(
        url + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **({"X-Alea-Pin": pin} if pin else {})},
    )
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def pin_of(proc):
    line = proc.stderr.readline()
    assert "game PIN" in line, line
    return line.split("game PIN ")[1].split(")")[0]


def test_no_camera_is_manual_entry_and_a_killed_server_resumes_its_game(tmp_path):
    port = free_port()
    proc, url = serve(tmp_path, port, "--no-camera")
    try:
        pin = pin_of(proc)
        assert call(url, "/api/game/table")["running"] is False
        call(url, "/api/game/new", {"players": ["grey", "blue"]}, pin)
        move = {"player": "grey", "building": "senatus", "dice": [2, 3]}
        call(url, "/api/game/place", {"move": move}, pin)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    proc, url = serve(tmp_path, port, "--no-camera", "--allow-host", "tablets.lan")
    try:
        assert pin_of(proc) == pin and len(pin) == 6  # the tablets keep theirs
        game = call(url, "/api/game")["game"]
        assert game["state"]["senatus"] == {"grey": [2, 3]} and game["current_player"] == "blue"
        for host, status in (("tablets.lan:80", 200), ("attacker.example", 403)):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/game", headers={"Host": host})
            assert conn.getresponse().status == status, host
            conn.close()
    finally:
        proc.terminate()
        proc.wait(10)


def test_no_camera_and_a_camera_exclude_each_other(tmp_path):
    rc, out, err = alea("serve", "--no-camera", "--camera", "0", "--data", str(tmp_path))
    assert_bad_input(rc, out, err, "value.conflict", "--camera")


def test_a_huge_upload_is_refused_without_being_stored(tmp_path):
    """#20: waitress spooled up to 1 GB of a body to disk before the app could say no."""
    from webui.guard import MAX_UPLOAD_BYTES

    port = free_port()
    proc, url = serve(tmp_path, port, "--no-camera")
    try:
        for size in (MAX_UPLOAD_BYTES + 1, 4 * MAX_UPLOAD_BYTES):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            conn.putrequest("POST", "/api/scan")
            conn.putheader("Content-Type", "image/png")
            conn.putheader("Content-Length", str(size))
            conn.endheaders()
            # A little over the limit: sent whole; far over: refused before it is read.
            with contextlib.suppress(OSError):
                conn.send(b"\0" * (size if size < 2 * MAX_UPLOAD_BYTES else 1 << 20))
            res = conn.getresponse()
            assert res.status == 413, size
            if size < 2 * MAX_UPLOAD_BYTES:  # the app's own answer, with the error object
                assert json.loads(res.read())["error"]["code"] == "input.too-large"
            conn.close()
    finally:
        proc.terminate()
        proc.wait(10)
