"""The tablet web UI: a Flask app factory, an API blueprint mirroring the CLI, and the pages.

Views are thin: they parse with the same functions as the CLI (`scanner.rules.io`) and call the
same rules, so a calculator answer in the browser equals the command-line answer byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from webui.guard import MAX_UPLOAD_BYTES


def create_app(config: dict | None = None) -> Flask:
    """Build the whole app. `config` may set DATA_DIR (the game data folder), GAME_PIN,
    MAX_STREAMS, ALLOWED_HOSTS (Host names answered besides this machine's own; "*": any) and
    TABLE: True runs the camera loop, on CAMERA (a webcam index, video or folder) or, with no
    CAMERA, on the demo game, whose games live in the data folder's demo/ (`webui.table`).
    Tests may pass TABLE_FEED (a demo feed), TABLE_DETECT (a detector) and TABLE_FPS."""
    app = Flask(__name__, instance_relative_config=False)
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        DATA_DIR=str(Path.cwd() / "alea-data"),
        # Open event and video streams at once: `alea serve` leaves 8 of its threads free.
        MAX_STREAMS=24,
        MAX_STREAMS_PER_CLIENT=6,  # a browser opens at most 6 connections to one host
        ALLOWED_HOSTS=(),
        TABLE=False,
        CAMERA=None,
    )
    app.config.update(config or {})
    if isinstance(app.json, DefaultJSONProvider):  # Flask's own, which every app starts with
        app.json.sort_keys = False  # keys in the order the contract writes them

    from werkzeug.exceptions import HTTPException

    from webui.api import api, http_error
    from webui.calibration import calibration
    from webui.guard import install as install_guards
    from webui.live import GameHub, live
    from webui.pages import pages
    from webui.pin import PinGuard, game_pin
    from webui.streams import StreamGate

    if "GAME_PIN" not in app.config:
        app.config["GAME_PIN"] = game_pin(app.config["DATA_DIR"])
    demo = app.config["TABLE"] and app.config["CAMERA"] is None
    data = Path(app.config["DATA_DIR"])
    app.extensions["alea.hub"] = GameHub(str(data / "demo" if demo else data))
    app.extensions["alea.pin"] = PinGuard()
    app.extensions["alea.streams"] = StreamGate(
        app.config["MAX_STREAMS"], app.config["MAX_STREAMS_PER_CLIENT"]
    )
    install_guards(app)
    app.register_blueprint(api)
    app.register_blueprint(live)
    app.register_blueprint(pages)
    app.register_blueprint(calibration)
    app.register_error_handler(HTTPException, http_error)
    if app.config["TABLE"]:
        from webui.table import start

        start(app)
    return app
