"""`/api/*`: the CLI's calculators over HTTP, with the same input, output and error objects.

They need no PIN (CONTRACT.md): they read nothing of the game in progress and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from scanner.errors import InputError
from scanner.inputs import decode_image, parse_json

api = Blueprint("api", __name__, url_prefix="/api")


def _body() -> object:
    from webui.guard import MAX_BODY_BYTES

    if (request.content_length or 0) > MAX_BODY_BYTES:
        raise RequestEntityTooLarge(f"JSON bodies are limited to {MAX_BODY_BYTES} bytes")
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise InputError("json.malformed", "the request body is not valid JSON")
    return parse_json(raw)


def calculator(run: Callable[[object], dict]):
    """Wrap `run(parsed JSON) -> output dict` as a POST view answering 200 or 400."""

    def view():
        try:
            return jsonify(run(_body()))
        except InputError as err:
            return jsonify(err.to_json()), 400

    view.__name__ = run.__name__
    return view


def _check(data: object) -> dict:
    from scanner.rules.io import parse_check
    from scanner.rules.placement import check

    verdict = check(*parse_check(data))
    # The contract's answer, and for a page in another language the reason's facts (`params`).
    return {**verdict.to_json(), **({"params": verdict.params} if verdict.params else {})}


def _lay(data: object) -> dict:
    """The board with the move's dice laid down whatever the rules say (`place_anyway`): how
    the Referee page builds a board die by die, with the Forum's order kept by the rules'
    own insertion, not a copy of it in the page."""
    from scanner.rules.io import parse_check
    from scanner.rules.placement import place_anyway

    state, move, _ = parse_check(data)
    return {"state": place_anyway(state, move).to_json()}


def _round(data: object) -> dict:
    from scanner.rules.io import parse_round
    from scanner.rules.round import score_round

    return score_round(parse_round(data)).to_json()


def _final(data: object) -> dict:
    from scanner.rules.final import final_scores

    return final_scores(data)


api.add_url_rule("/check", view_func=calculator(_check), methods=["POST"])
api.add_url_rule("/lay", view_func=calculator(_lay), methods=["POST"])
api.add_url_rule("/round", view_func=calculator(_round), methods=["POST"])
api.add_url_rule("/final", view_func=calculator(_final), methods=["POST"])


@api.post("/scan")
def scan():
    """A photo of the table (the request body, or a form file `image`) to `alea scan`'s JSON.
    The board is located from the sheet's markers in the photo itself; `?players=grey,blue`
    gives the seating."""

    from scanner.vision.calibrate import BoardNotFound, calibrate
    from scanner.vision.layout import default_layout
    from scanner.vision.models import load_detector
    from scanner.vision.scan import scan_image

    try:
        upload = request.files.get("image")
        raw = upload.read() if upload is not None else request.get_data()
        if not raw:
            raise InputError("image.empty", "send a photo as the body or as form file 'image'")
        image = decode_image(raw, "the upload")
        players = request.args.get("players")
        players = players.split(",") if players else None
        if players is not None:
            from scanner.inputs import parse_seating

            parse_seating(players, "$.players")
        layout = default_layout()
        try:
            cal = calibrate(image, layout)
        except BoardNotFound as exc:
            return jsonify({"state": None, "dice": [], "warnings": [str(exc)]})
        reading = scan_image(image, cal, load_detector(None), players, fitted=True)
        return jsonify(reading.to_json())
    except InputError as err:
        return jsonify(err.to_json()), 400


def http_error(exc: HTTPException):
    """Even a 404 or a 413 under /api answers with the contract's error object (registered on
    the app: a blueprint never sees requests for routes it does not have)."""
    if not request.path.startswith("/api/"):
        return exc
    codes: dict[int | None, str] = {
        404: "http.not-found",
        405: "http.method",
        413: "input.too-large",
    }
    code = codes.get(exc.code, "http.error")
    return jsonify(InputError(code, exc.description or exc.name).to_json()), exc.code
