"""The one error type every stage raises for bad input, and the one list of its codes.

The CLI and the web API turn it into the contract's error object
`{"error": {"code", "message", "path"}}`; nothing else about bad input ever leaves the process,
so a player never sees a traceback. Every code is in `CODES`, with what it means, so that one
kind of bad input has one code wherever it is found (tests/test_errors.py holds the source
and every error the suite raises to it).
"""

from __future__ import annotations

CODES: dict[str, str] = {
    # reading input: files, JSON, images
    "input.not-found": "the input file does not exist",
    "input.unreadable": "the input file cannot be read",
    "input.too-large": "the input is larger than the limit",
    "input.unwritable": "an output file cannot be written",
    "output.unwritable": "an output folder cannot be written",
    "io.error": "the operating system refused a read or a write",
    "json.malformed": "not valid JSON (or an empty body)",
    "json.number": "a number JSON allows but alea does not (NaN, infinity, too large)",
    "json.too-deep": "JSON nested deeper than the limit",
    "image.not-found": "the image file does not exist",
    "image.empty": "the image file is empty",
    "image.unreadable": "not an image OpenCV can decode",
    "image.too-large": "an image with more pixels than the limit",
    "schema.missing": "a required field is missing",
    "schema.type": "a field has the wrong JSON type",
    "schema.unknown-field": "a field the format does not have",
    "usage": "the command line is wrong (argparse's own message)",
    # values
    "value.color": "not one of the five player colours, or not a tile's colour",
    "value.die": "a die value outside 1..6",
    "value.range": "a number outside its range",
    "value.building": "not one of the five buildings",
    "value.kind": "an unknown kind of event or tile",
    "value.tile": "a tile that does not exist",
    "value.name": "a name alea does not accept (a game or file name)",
    "value.conflict": "two fields that contradict each other",
    "value.fortuna": "a Fortuna tile's value outside 1..3",
    "value.joker": "the joker province with a value other than 0",
    "value.patrician": "a patrician's value outside 1..3",
    "value.province": "a province's value outside 1..4",
    "value.repete": "a negative or fractional count of Repete chips",
    "sex.unknown": "a patrician's sex other than 'f' or 'm'",
    "card.unknown": "not a Senate card (I to XIII)",
    "card.border": "a border province card without two different colours",
    "card.removed": "a Senate card the game has taken out",
    "tile.count": "more tiles of one kind than the box holds",
    # a board state that cannot be
    "state.duplicate-player": "a player listed twice",
    "state.unknown-player": "dice of a colour that is not playing",
    "state.player-count": "fewer than 2 or more than 5 players",
    "state.none": "no board state where one is needed",
    "state.no-such-die": "a correction names a die that does not lie there",
    "state.templum-absent": "Templum dice with fewer than 4 players",
    "state.templum-counts": "Templum dice that do not add up",
    "state.senatus-run": "Senatus dice that are not a run",
    "state.senatus-identical": "two identical Senatus runs",
    "state.castrum-identical": "two identical Castrum groups",
    "state.castrum-two-sets": "a player with two Castrum groups",
    "state.forum-columns": "more Forum dice than columns",
    "state.forum-order": "Forum dice out of order",
    # the camera and the board
    "camera.not-found": "no camera or video at that index or path",
    "camera.unreadable": "the camera gives no frames",
    "camera.empty": "the video or folder has no frames",
    "board.not-found": "the marker sheet is not in the photo",
    "board.too-few": "too few markers to place the board",
    "board.bent": "the markers do not lie on one plane (the sheet is bent or misprinted)",
    "board.not-flat": "the board is seen too obliquely to read",
    "board.disagree": "the markers disagree with the stored calibration",
    "calibration.not-found": "no calibration file",
    "calibration.unreadable": "the calibration file cannot be read",
    "calibration.schema": "the calibration file is not alea's",
    "calibration.no-board": "calibration found no board in the frames",
    "calibration.lens": "the lens could not be fitted",
    "calibration.homography": "the board could not be fitted to the markers",
    "layout.not-found": "no layout file",
    "layout.unreadable": "the layout file cannot be read",
    "layout.schema": "the layout file is not alea's",
    "layout.dictionary": "an unknown ArUco dictionary",
    "layout.markers": "markers that cannot locate the sheet",
    "layout.duplicate-marker": "one marker id twice",
    "layout.empty-zone": "a zone with no area",
    "layout.pedestals": "Forum pedestals that do not fit the layout",
    "palette.no-swatches": "the layout has no swatch squares to learn colours from",
    "palette.no-dice": "no dice on the swatch squares",
    # models and training
    "model.missing": "no detector model installed",
    "model.not-found": "no model file at that path",
    "model.unreadable": "the model file cannot be read",
    "model.unloadable": "onnxruntime cannot load the model",
    "dice.conf": "a confidence threshold outside 0..1",
    "dice.coarse": "a coarse look that is not under the detector's size",
    "dice.imgsz": "an image size that is not a multiple of 32",
    "synth.count": "a scene count out of range",
    "synth.size": "a scene size out of range",
    "train.bad-option": "a training option out of range",
    "train.missing-extra": "training needs the train extra (torch, ultralytics)",
    "eval.no-set": "an evaluation set that does not exist",
    "eval.bad-option": "evaluation options that cannot go together",
    # the game in progress and its record
    "game.none": "no game has been started",
    "session.empty": "nothing to undo or redo",
    "session.event": "an event the session does not know",
    "session.over": "the game is over",
    "session.round-over": "the round is over: score it first",
    "session.round-not-over": "the round is still being played",
    "session.no-round": "no round has been scored",
    "session.no-pick": "no tile is due to be taken",
    "session.pick-order": "not this player's pick",
    "session.no-chip": "the player has no Repete chip",
    "session.no-flag": "no flagged placement to accept",
    "session.not-lost": "the camera has not lost the board",
    "store.corrupt": "the game record is damaged",
    "store.empty": "the game record holds no game",
    "store.foreign": "the file is not an alea game record",
    "store.version": "a game record from a newer alea",
    "import.format": "not an exported game",
    "import.version": "an export from a newer alea",
    "import.events": "an export whose events do not replay",
    "import.replay": "an export whose events do not replay to its own result",
    "import.exists": "a game of that name exists already",
    # the web server
    "auth.pin": "a change without the game PIN, or with a wrong one",
    "auth.wait": "too many wrong PINs: wait",
    "http.not-found": "no such page or API route",
    "http.method": "the route does not take that method",
    "http.content-type": "a POST body that is not JSON (or an image for /api/scan)",
    "http.host": "a request for a host name this server does not answer to",
    "http.origin": "a POST from another site's page",
    "http.error": "another HTTP error",
    "serve.port": "the port cannot be listened on",
    "streams.busy": "too many open video or event streams",
}

# Codes raised that are not in CODES: empty while every code is registered (a test asserts it;
# an unregistered code is still raised, never a crash in front of a player).
UNREGISTERED: set[str] = set()


class InputError(ValueError):
    """Bad input: `code` says what kind, `path` is the JSON path of the offending field.

    >>> e = InputError("value.die", "die value 7 is not between 1 and 6", "$.roll[2]")
    >>> e.to_json()["error"]["path"]
    '$.roll[2]'
    """

    def __init__(self, code: str, message: str, path: str = "$") -> None:
        super().__init__(message)
        if code not in CODES:
            UNREGISTERED.add(code)
        self.code = code
        self.message = message
        self.path = path

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "path": self.path}}
