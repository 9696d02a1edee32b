"""The tablet pages. Each is a template plus static JS that talks to `/api/*`."""

from __future__ import annotations

from flask import Blueprint, render_template

from scanner.rules import components

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
