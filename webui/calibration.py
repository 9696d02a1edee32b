"""The calibration wizard: print the sheet, see the markers found, see the board top-down with
its zones, drag the zones onto the cardboard buildings, check the dice colours read."""

from __future__ import annotations

import cv2
from flask import Blueprint, Response, current_app, jsonify, render_template, request, send_file

from scanner.errors import InputError
from scanner.shipped import shipped
from scanner.store import write_json
from webui.pin import pin_required

calibration = Blueprint("calibration", __name__)
SHEETS = shipped("calibration/markers-a3.pdf").parent
SHEET_FILES = ("markers-a3.pdf", "markers-a4.pdf", "markers-a3.png", "markers-a4.png")


def _loop():
    return current_app.extensions.get("alea.table")


def _layout():
    from webui.table import load_layout

    loop = _loop()
    return loop.layout if loop is not None else load_layout(current_app)


@calibration.get("/calibrate")
def wizard():
    return render_template("calibrate.html", page="calibrate", sheets=SHEET_FILES)


@calibration.get("/calibration/sheet/<name>")
def sheet(name: str):
    # Only the listed files: a name from the URL never becomes a path of its own.
    if name not in SHEET_FILES or not (SHEETS / name).exists():
        return Response("no such sheet", status=404, mimetype="text/plain")
    return send_file(SHEETS / name, as_attachment=name.endswith(".pdf"))


@calibration.get("/calibration/rectified.jpg")
def rectified():
    loop = _loop()
    board = loop.rectified() if loop is not None else None
    if board is None:
        return Response("the board is not in view", status=404, mimetype="text/plain")
    ok, jpg = cv2.imencode(".jpg", board, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return Response(jpg.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@calibration.get("/api/layout")
def get_layout():
    return jsonify(_layout().to_json())


@calibration.post("/api/layout")
@pin_required
def save_layout():
    """Validate and save an edited layout (PIN); the camera loop uses it from the next frame."""
    from scanner.vision.layout import Layout
    from webui.table import layout_path

    try:
        from scanner.inputs import parse_json

        layout = Layout.from_json(parse_json(request.get_data(cache=True) or b"null"))
    except InputError as err:
        return jsonify(err.to_json()), 400
    write_json(layout_path(current_app), layout.to_json())
    if _loop() is not None:
        _loop().set_layout(layout)
    return jsonify({"saved": True, "layout": layout.to_json()})


@calibration.get("/api/palette")
def get_palette():
    loop = _loop()
    palette = None if loop is None else loop.palette
    return jsonify({"palette": None if palette is None else palette.to_json()})


@calibration.post("/api/palette")
@pin_required
def take_palette():
    """Learn the dice colours from the dice on the sheet's swatch squares in the camera's latest
    frame (PIN), or forget them with {"forget": true}; kept in the data folder's palette.json."""
    from scanner.inputs import expect_object, parse_json
    from scanner.vision.palette import no_swatch_dice
    from webui.table import palette_path

    loop = _loop()
    try:
        body = expect_object(parse_json(request.get_data(cache=True) or b"{}"), "$", ("forget",))
        if not isinstance(body.get("forget", False), bool):
            raise InputError("schema.type", "forget is true or false", "$.forget")
    except InputError as err:
        return jsonify(err.to_json()), 400
    path = palette_path(current_app)
    if body.get("forget") is True:
        path.unlink(missing_ok=True)
        if loop is not None:
            loop.palette = None
        return jsonify({"palette": None, "taken": []})
    learnt = None if loop is None else loop.learn_colors()
    if learnt is None:
        unseen = InputError("board.not-found", "the camera does not see the board now")
        return jsonify(unseen.to_json()), 409
    palette, taken, clipped = learnt
    if not taken:
        return jsonify(no_swatch_dice(clipped).to_json()), 400
    write_json(path, palette.to_json())
    loop.palette = palette
    # The clipped sheet's warning in English; the page says it in its own language (cal.clipped).
    warnings = [clipped] if clipped else []
    return jsonify({"palette": palette.to_json(), "taken": taken, "warnings": warnings})
