"""Guessing the game PIN is slowed (#20): after 10 wrong PINs a client waits 1, 2, 4 … 60 s
after each further wrong one, the right PIN included; a right PIN clears the count; no PIN at
all is no guess."""

from webui import create_app
from webui.pin import FREE_TRIES, PinGuard


class Clock:
    now = 1000.0

    def __call__(self):
        return self.now


def post(client, pin):
    headers = {"X-Alea-Pin": pin} if pin is not None else {}
    return client.post("/api/game/new", json={"players": ["grey", "blue"]}, headers=headers)


def test_wrong_pins_past_ten_make_the_client_wait(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "GAME_PIN": "2468"})
    clock = Clock()
    app.extensions["alea.pin"] = PinGuard(clock)
    client = app.test_client()
    for _ in range(20):
        assert post(client, None).status_code == 403  # no PIN: not counted
    for _ in range(FREE_TRIES):
        assert post(client, "0000").status_code == 403
    res = post(client, "2468")  # the next try must wait, even with the right PIN
    assert res.status_code == 429 and res.get_json()["error"]["code"] == "auth.wait"
    assert int(res.headers["Retry-After"]) >= 1
    clock.now += 1.5
    assert post(client, "2468").status_code == 200  # waited: the right PIN clears the count
    assert post(client, "0000").status_code == 403
    for _ in range(FREE_TRIES - 1):
        post(client, "1111")
    assert post(client, "1111").status_code == 429  # tries while waiting are refused...
    clock.now += 1.5
    assert post(client, "1111").status_code == 403  # ...and do not count: this is the 11th
    clock.now += 1.5  # the 11th wrong PIN means 2 s
    assert post(client, "2468").status_code == 429


def test_the_wait_doubles_up_to_a_minute():
    clock = Clock()
    guard = PinGuard(clock)
    waits = []
    for _ in range(FREE_TRIES + 8):
        guard.judge("10.0.0.9", False)
        waits.append(guard.wait_s("10.0.0.9"))
    assert waits[: FREE_TRIES - 1] == [0.0] * (FREE_TRIES - 1)
    assert waits[FREE_TRIES - 1 :] == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    assert guard.wait_s("10.0.0.10") == 0.0  # another client is not held up
