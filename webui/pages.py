"""The tablet pages. Each is a template plus static JS that talks to `/api/*`."""

from __future__ import annotations

from flask import Blueprint, render_template

from scanner.rules import components, rulebook

pages = Blueprint("pages", __name__)


def _components() -> dict:
    """What the pages need to draw pickers: colours, tiles and cards, from the one table."""
    return {
        "players": list(components.PLAYER_COLORS),
        "tile_colors": list(components.TILE_COLORS),
        "provinces": components.provinces(),
        "patricians": components.patricians(),
        "senate_singles": list(components.SENATE_SINGLES),
        "border_pairs": [list(p) for p in components.BORDER_PAIRS],
        "buildings": list(components.BUILDINGS),
        # setup.templum, so that the pages show the Templum exactly when the rules lay it out
        "templum_with": [
            n
            for n in range(components.MIN_PLAYERS, components.MAX_PLAYERS + 1)
            if components.templum_in_play(n)
        ],
        "rulebook": rulebook.sentences(),  # the help behind every rule id shown
    }


@pages.get("/")
def home():
    return render_template("home.html", page="home")


@pages.get("/final")
def final():
    return render_template("final.html", page="final", components=_components())


@pages.get("/referee")
def referee():
    return render_template("referee.html", page="referee", components=_components())


@pages.get("/game")
def game():
    return render_template("game.html", page="game", components=_components())


@pages.get("/summary")
def summary():
    """The game so far: each round's winners and tiles, the points, the record to download."""
    return render_template("summary.html", page="summary")


@pages.get("/video.mjpg")
def video():
    """MJPEG of the camera with zones and dice drawn; the latest frame is re-sent every half
    second even when nothing changes, or Chromium leaves the picture blank."""
    from flask import Response, current_app

    loop = current_app.extensions.get("alea.table")
    if loop is None:
        return Response("no camera loop in this server", status=404, mimetype="text/plain")

    def stream():
        seen = -1
        while True:
            seen = loop.wait_frame(seen, 0.5)
            _, jpeg = loop.latest_jpeg()
            if jpeg is None:
                continue
            yield (
                b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                + str(len(jpeg)).encode()
                + b"\r\n\r\n"
                + jpeg
                + b"\r\n"
            )

    from webui.streams import gated

    return gated(
        stream,
        mimetype="multipart/x-mixed-replace; boundary=frame",
        headers={"Cache-Control": "no-cache"},
    )
