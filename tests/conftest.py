"""What many test files share: the web app on a fresh data folder with a known game PIN."""

from __future__ import annotations

import pytest

from webui import create_app

GAME_PIN = "2468"
PIN = {"X-Alea-Pin": GAME_PIN}  # the header a tablet sends with every change


@pytest.fixture()
def app(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path), "GAME_PIN": GAME_PIN, "TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


def pytest_sessionfinish(session, exitstatus):
    """Every error the whole suite raised had a registered code (scanner.errors.CODES)."""
    from scanner.errors import UNREGISTERED

    if UNREGISTERED and exitstatus == 0:
        session.exitstatus = 1
        print(f"\nunregistered error codes raised: {sorted(UNREGISTERED)}")
