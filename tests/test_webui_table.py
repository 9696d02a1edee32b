"""The camera loop behind `alea serve`: frames in, settled boards to the game, MJPEG out."""

import time

import numpy as np

from scanner.synth.table import render_table
from scanner.vision.calibrate import calibrate
from scanner.vision.layout import default_layout
from tests.helpers import state
from tests.test_table import Oracle, oracle
from webui import create_app
from webui.table import FLAG_BGR, TableLoop, offending, overlay


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
        lambda state, unsure: settled.append(state),
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
    # The bar's dot is green when settled, and the bar holds no words: the page says why in
    # the viewer's language (one stream serves a German and an English page alike).
    assert status.reason == "settled" and tuple(drawn[15, 16]) == (80, 200, 80)
    assert not drawn[:30, 32:].any()
    # grey's 5 flagged in the Senatus: boxed in red around that die, the 4 left as it was.
    flagged = overlay(
        frame.image, status, cal, {"player": "grey", "building": "senatus", "dice": [5]}
    )
    red = np.all(flagged == FLAG_BGR, axis=2) & ~np.all(drawn == FLAG_BGR, axis=2)
    by_value = {d.value: d.image_xyxy for d in status.settled.dice}
    assert set(by_value) == {4, 5}

    ys, xs = np.nonzero(red)
    centre = np.array([xs.mean(), ys.mean()])

    def distance(box):
        return np.linalg.norm(centre - [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])

    assert len(xs) > 100 and distance(by_value[5]) < 3 < distance(by_value[4]) / 5
    assert offending(status.settled.dice, None) == [False, False]
    assert offending(
        status.settled.dice, {"player": "blue", "building": "senatus", "dice": [5]}
    ) == [
        False,
        False,
    ]


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


def demo_feed_and_oracle():
    """A short demo (2 players, one round) and a detector that reads the scene now shown."""
    from scanner.synth.demo import DemoFeed

    feed = DemoFeed(seed=7, players=2, rounds=1, hold=8, hand_hold=2)
    cal = calibrate(feed.frame(0), feed.layout)
    return feed, Oracle(lambda: feed.table(feed.scene_index), cal)


def wait_for(predicate, timeout=240.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def demo_app(data, feed, detect):
    """The app `alea serve` builds on the demo, with a small feed, a perfect detector and no
    frame rate to wait for."""
    config = {"DATA_DIR": str(data), "GAME_PIN": "1357", "TABLE": True}
    return create_app({**config, "TABLE_FEED": feed, "TABLE_DETECT": detect, "TABLE_FPS": 1000})


def test_the_demo_plays_on_past_its_first_pass_and_keeps_every_game(tmp_path):
    """Defect: at the end of the feed's first pass the loop died ("expected a list, got
    function") and the game's database was closed, so every later change answered 500."""
    feed, detect = demo_feed_and_oracle()
    app = demo_app(tmp_path, feed, detect)
    loop = app.extensions["alea.table"]
    try:
        games = tmp_path / "demo" / "games"
        assert wait_for(lambda: (games / "game-2.alea").exists()), loop.status()
        assert loop.is_alive() and loop.error is None, loop.status()
        # game-2 appears at the first of new_game's two renames; the new game follows it.
        assert wait_for(lambda: (games / "current.alea").exists())
        # The game now running still takes changes (its database is open).
        client = app.test_client()
        res = client.post("/api/game/undo", headers={"X-Alea-Pin": "1357"}, json={})
        assert res.status_code == 200
        # A finished pass is kept whole: its record holds the demo round's placements.
        from scanner.session import Session
        from scanner.store import GameStore

        old = Session(GameStore(tmp_path / "demo" / "games" / "game-1.alea"))
        assert old.source == "demo" and old.round_results, old.log[-3:]
    finally:
        loop.stop.set()
        loop.join(10)


def test_a_restart_resumes_the_demo_game_where_the_feed_shows_its_board(tmp_path):
    feed, detect = demo_feed_and_oracle()
    app = demo_app(tmp_path, feed, detect)
    loop = app.extensions["alea.table"]
    hub = app.extensions["alea.hub"]
    try:
        assert wait_for(lambda: hub.session.game.turn_no >= 2 or feed.loops)
    finally:
        loop.stop.set()
        loop.join(10)
    assert feed.loops == 0
    before = hub.session.game.state.to_json()
    kept = len(hub.session.store.events())

    feed2, detect2 = demo_feed_and_oracle()
    app2 = demo_app(tmp_path, feed2, detect2)
    loop2 = app2.extensions["alea.table"]
    loop2.stop.set()
    loop2.join(10)
    hub2 = app2.extensions["alea.hub"]
    assert hub2.session.game.state.to_json() == before
    assert len(hub2.session.store.events()) >= kept  # the same record, not a new game
    assert not (tmp_path / "demo" / "games" / "game-1.alea").exists()
    assert feed2._start > 0 and not feed2.scenes[feed2._start].hand


def test_a_game_started_by_hand_beside_the_demo_is_not_fed_its_readings(tmp_path):
    feed, detect = demo_feed_and_oracle()
    app = demo_app(tmp_path, feed, detect)
    loop = app.extensions["alea.table"]
    client = app.test_client()
    try:
        res = client.post(
            "/api/game/new", headers={"X-Alea-Pin": "1357"}, json={"players": ["blue", "green"]}
        )
        assert res.status_code == 200
        assert wait_for(lambda: feed.loops >= 1)
        session = app.extensions["alea.hub"].session
        assert session.seating == ["blue", "green"] and session.source is None
        assert [e["event"] for e in session.store.events()] == ["new-game"]
    finally:
        loop.stop.set()
        loop.join(10)


def test_a_missing_camera_is_reported_and_tried_again_not_fatal(tmp_path):
    from scanner.vision.dice import Dice

    app = create_app(
        {
            "DATA_DIR": str(tmp_path),
            "GAME_PIN": "1357",
            "TABLE": True,
            "CAMERA": str(tmp_path / "no-such-camera"),
            "TABLE_DETECT": lambda board: Dice.empty(),
        }
    )
    loop = app.extensions["alea.table"]
    try:
        assert wait_for(lambda: "trying again" in loop.status()["reason"], 10)
        time.sleep(1.5)
        assert loop.is_alive() and loop.error is None
        status = app.test_client().get("/api/game/table").get_json()
        assert status["running"] and "no such file or folder" in status["reason"]
    finally:
        loop.stop.set()
