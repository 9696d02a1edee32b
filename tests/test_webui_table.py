"""The camera loop behind `alea serve`: frames in, settled boards to the game, MJPEG out."""

import time

import numpy as np

from scanner.synth.table import render_table
from scanner.vision.calibrate import calibrate
from scanner.vision.layout import default_layout
from tests.helpers import state
from tests.test_table import oracle
from webui import create_app
from webui.table import TableLoop, overlay


def still_table():
    frame = render_table(state(senatus={"grey": [4, 5]}), 3)
    cal = calibrate(frame.image, default_layout())
    return frame, cal


def run_loop(frames, detect, players=("grey", "brown", "blue", "green")):
    settled = []
    loop = TableLoop(
        lambda: iter(frames),
        default_layout(),
        detect,
        settled.append,
        lambda: list(players),
        fps=1000,
    )
    loop.start()
    loop.join(timeout=60)
    return loop, settled


def test_a_still_table_settles_once_and_is_handed_to_the_game():
    frame, cal = still_table()
    loop, settled = run_loop([frame.image] * 12, lambda board: oracle(frame, cal))
    assert loop.error is None
    assert len(settled) == 1 and settled[0]["senatus"] == {"grey": [4, 5]}
    st = loop.status()
    assert st["board_found"] and st["reason"] == "settled" and st["frame"] == 12
    assert [d["value"] for d in st["settled"]["dice"]] == [4, 5]
    number, jpeg = loop.latest_jpeg()
    assert number == 12 and jpeg[:2] == b"\xff\xd8"


def test_no_board_in_view_is_reported():
    blank = np.full((720, 1280, 3), 90, np.uint8)
    loop, settled = run_loop([blank] * 5, lambda board: [])
    assert settled == [] and not loop.status()["board_found"]
    assert "marker" in loop.status()["reason"]


def test_overlay_draws_zones_and_dice():
    frame, cal = still_table()
    loop, _ = run_loop([frame.image] * 10, lambda board: oracle(frame, cal))
    from scanner.vision.live import LiveBoard

    live = LiveBoard(default_layout(), lambda board: oracle(frame, cal), ["grey", "blue"])
    for _ in range(10):
        status = live.process(frame.image)
    drawn = overlay(frame.image, status, cal)
    assert drawn.shape == frame.image.shape
    assert (drawn != frame.image).mean() > 0.005  # zones, boxes, status bar


def test_mjpeg_stream_and_table_status(tmp_path):
    frame, cal = still_table()
    app = create_app({"DATA_DIR": str(tmp_path)})
    client = app.test_client()
    assert client.get("/video.mjpg").status_code == 404
    assert client.get("/api/game/table").get_json()["running"] is False
    loop, _ = run_loop([frame.image] * 10, lambda board: oracle(frame, cal))
    app.extensions["alea.table"] = loop
    res = client.get("/video.mjpg", buffered=False)
    assert res.mimetype == "multipart/x-mixed-replace"
    start = time.perf_counter()
    chunk = next(res.response)
    assert chunk.startswith(b"--frame\r\nContent-Type: image/jpeg") and b"\xff\xd8" in chunk
    assert time.perf_counter() - start < 2  # the last frame is re-sent, not waited for
    res.close()
    st = client.get("/api/game/table").get_json()
    assert st["board_found"] is True and st["frame"] == 10
