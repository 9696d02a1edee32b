"""Open streams are capped so they never starve pages and the game API (#20 W5: with 50 open
streams only 32 got data and a plain page request got no answer within 20 s)."""

import time
import urllib.request

from tests.test_browser import serving
from webui import create_app


def test_streams_past_the_limit_are_refused_and_pages_still_answer(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "GAME_PIN": "1357", "MAX_STREAMS": 3})
    with serving(app) as url:
        held = []
        for _ in range(3):
            res = urllib.request.urlopen(f"{url}/api/game/stream", timeout=5)
            assert res.status == 200 and res.readline().startswith(b"id:")
            held.append(res)
        try:
            urllib.request.urlopen(f"{url}/api/game/stream", timeout=5)
            raise AssertionError("a fourth stream was let in")
        except urllib.error.HTTPError as err:
            assert err.code == 503 and err.headers["Retry-After"] == "5"
        started = time.perf_counter()
        page = urllib.request.urlopen(f"{url}/game", timeout=5)
        assert page.status == 200 and time.perf_counter() - started < 5
        held.pop().close()  # a tablet goes away: its place is free again
        for _ in range(150):  # noticed at the next keep-alive write (every 5 s)
            try:
                res = urllib.request.urlopen(f"{url}/api/game/stream", timeout=5)
                break
            except urllib.error.HTTPError:
                time.sleep(0.1)
        else:
            raise AssertionError("the closed stream's place was never freed")
        assert res.status == 200
        res.close()
        for r in held:
            r.close()


def test_one_client_cannot_take_every_stream():
    from webui.streams import PER_CLIENT, StreamGate

    gate = StreamGate(most=100)
    assert all(gate.enter("10.0.0.2") for _ in range(PER_CLIENT))
    assert not gate.enter("10.0.0.2") and gate.enter("10.0.0.3")
    gate.leave("10.0.0.2")
    assert gate.enter("10.0.0.2")
