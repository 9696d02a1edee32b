"""The camera side of `alea serve`: one background thread reads frames (a webcam, a video, a
folder, or the demo feed), runs the live loop (calibrate → still? → detect → board), draws what it
sees, and hands every newly settled board to the game in progress.

Requests never touch the camera: they read `latest_jpeg()` and `status()`, which the thread
updates. The MJPEG view re-sends the latest frame at least every half second, because Chromium
does not paint the last frame of a stream that stops.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

import cv2
import numpy as np

from scanner.errors import InputError
from scanner.vision.calibrate import Calibration
from scanner.vision.runtime import give_back_memory
from scanner.vision.sheet import PLAYER_BGR, draw_zones

TRIM_EVERY_S = 2.0


FLAG_BGR = (40, 40, 230)


def offending(dice, move: dict | None) -> list[bool]:
    """Which of the read dice are the flagged placement's: the mover's, in the building named,
    one die per value the move lists (a player's earlier dice there keep their colour)."""
    if not move:
        return [False] * len(dice)
    left = list(move.get("dice", []))
    out = []
    for die in dice:
        hit = (die.building, die.color) == (move.get("building"), move.get("player"))
        hit = hit and die.value in left
        if hit:
            left.remove(die.value)
        out.append(hit)
    return out


def overlay(frame: np.ndarray, status, calibration, flagged: dict | None = None) -> np.ndarray:
    """The camera image with the zones and every die's colour and value drawn on it; the dice
    of a flagged placement (`flagged`: its move) boxed thick in red, so the table sees which."""
    out = frame.copy()
    if calibration is not None:
        draw_zones(out, calibration.layout, calibration.board_to_image, width=1)
    reading = status.settled if status is not None else None
    dice = list(reading.dice) if reading is not None else []
    for die, bad in zip(dice, offending(dice, flagged), strict=True):
        x0, y0, x1, y1 = (int(round(v)) for v in die.image_xyxy)
        color = PLAYER_BGR.get(die.color, (255, 255, 255))
        if bad:
            cv2.rectangle(out, (x0 - 4, y0 - 4), (x1 + 4, y1 + 4), FLAG_BGR, 4, cv2.LINE_AA)
        cv2.rectangle(out, (x0, y0), (x1, y1), color, 2, cv2.LINE_AA)
        label = f"{die.value}{'' if die.building else '?'}"
        cv2.putText(
            out,
            label,
            (x0, max(12, y0 - 4)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            (0, 0, 0),
            4,
            cv2.LINE_AA,
        )
        cv2.putText(
            out, label, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, color, 2, cv2.LINE_AA
        )
    # The bar's dot: green settled, amber not. No words: one stream serves every viewer, and
    # the page says why beside it in each viewer's language (an English word drawn here showed
    # on the German page).
    settled = status is not None and status.reason == "settled"
    cv2.rectangle(out, (0, 0), (out.shape[1], 30), (0, 0, 0), -1)
    cv2.circle(out, (16, 15), 8, (80, 200, 80) if settled else (0, 160, 255), -1)
    return out


class TableLoop(threading.Thread):
    """Frames in, settled boards out to `on_settled(state_json, unsure_dice)`; `players()`
    says who sits where now (seating rotates every round). A source may yield a sentence
    instead of a frame when it has none (no webcam yet): the status shows it and the loop
    waits for the next."""

    def __init__(
        self,
        frames: Callable[[], Iterator[np.ndarray | str]],
        layout,
        detect,
        on_settled: Callable[[dict, list[dict]], None],
        players: Callable[[], list[str] | None],
        fps: float = 5.0,
        on_restart: Callable[[], None] | None = None,
        restarts: Callable[[], int] | None = None,
        flagged: Callable[[], dict | None] | None = None,
    ) -> None:
        super().__init__(daemon=True, name="alea-table")
        self.frames, self.layout, self.detect = frames, layout, detect
        self.on_settled, self.players, self.fps = on_settled, players, fps
        self.on_restart, self.restarts = on_restart, restarts
        self.flagged = flagged or (lambda: None)  # the flagged placement's move, if any
        self.lock = threading.Lock()
        self.jpeg: bytes | None = None
        self.frame_no = 0
        self.info: dict = {"board_found": False, "reason": "starting", "settled": None}
        self.error: str | None = None
        self.stop = threading.Event()
        self.new_frame = threading.Condition()
        self.last_frame: np.ndarray | None = None
        self.last_calibration: Calibration | None = None
        self._new_layout = None
        self.palette = None  # the dice colours learnt at this table (data folder's palette.json)

    def set_layout(self, layout) -> None:
        """Use an edited layout from the next frame on (the calibration wizard saves one)."""
        with self.lock:
            self._new_layout = layout

    def rectified(self) -> np.ndarray | None:
        """The latest frame seen top-down, or None while the board is not found."""
        with self.lock:
            frame, cal = self.last_frame, self.last_calibration
        return None if frame is None or cal is None else cal.rectify(frame)

    def learn_colors(self):
        """The palette learnt from the dice on the swatch squares in the latest frame, the
        colours taken (scanner.vision.scan.learn_colors) and the warning of a camera that clips
        the sheet's white (or None); None when the board is not in view."""
        from scanner.vision.palette import exposure_warning
        from scanner.vision.scan import learn_colors

        with self.lock:
            frame, cal = self.last_frame, self.last_calibration
        if frame is None or cal is None:
            return None
        board = cal.rectify(frame)
        return (*learn_colors(board, cal, self.detect, self.palette), exposure_warning(board))

    def latest_jpeg(self) -> tuple[int, bytes | None]:
        with self.lock:
            return self.frame_no, self.jpeg

    def status(self) -> dict:
        with self.lock:
            return {**self.info, "frame": self.frame_no, "error": self.error}

    def run(self) -> None:
        from scanner.vision.live import LiveBoard

        live = LiveBoard(self.layout, self.detect, self.players())
        seen_restarts = self.restarts() if self.restarts else 0
        trimmed = time.monotonic()
        try:
            for frame in self.frames():
                if self.stop.is_set():
                    return
                if isinstance(frame, str):  # no frame now, and why (the source says)
                    with self.lock:
                        self.info = {"board_found": False, "reason": frame, "settled": None}
                    continue
                started = time.perf_counter()
                if self.restarts and self.restarts() != seen_restarts:
                    seen_restarts = self.restarts()
                    live = LiveBoard(self.layout, self.detect, self.players())
                    if self.on_restart:
                        self.on_restart()
                with self.lock:
                    layout, self._new_layout = self._new_layout, None
                if layout is not None:
                    self.layout = layout
                    live = LiveBoard(self.layout, self.detect, self.players())
                live.players, live.palette = self.players(), self.palette
                status = live.process(frame)
                if status.changed and status.settled is not None and status.settled.seen:
                    self.on_settled(status.settled.seen.to_json(), status.settled.unsure())
                cal = live.calibrator.current if status.board_found else None
                drawn = overlay(frame, status, cal, self.flagged())
                ok, jpg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
                settled = status.settled
                with self.lock:
                    self.frame_no += 1
                    self.jpeg = jpg.tobytes() if ok else self.jpeg
                    self.last_frame, self.last_calibration = frame, cal
                    self.info = {
                        "board_found": status.board_found,
                        "markers": [] if cal is None else sorted(cal.markers),
                        "error_mm": None if cal is None else round(cal.error_mm, 2),
                        "reason": status.reason,
                        "why": status.why,
                        "settled": None
                        if settled is None
                        else {
                            "dice": settled.dice.to_json(),
                            "warnings": list(settled.warnings),
                        },
                    }
                with self.new_frame:
                    self.new_frame.notify_all()
                if time.monotonic() - trimmed > TRIM_EVERY_S:
                    give_back_memory()  # the server runs for hours: keep its memory flat
                    trimmed = time.monotonic()
                pause = 1.0 / self.fps - (time.perf_counter() - started)
                if pause > 0:
                    self.stop.wait(pause)
        except InputError as err:
            self.error = err.message
        except Exception as exc:  # the camera thread must report, not vanish silently
            self.error = f"the camera loop stopped: {exc}"

    def wait_frame(self, seen: int, timeout: float) -> int:
        with self.new_frame:
            self.new_frame.wait_for(lambda: self.frame_no != seen, timeout)
        return self.frame_no


def start(app) -> TableLoop:
    """Start the camera loop of `app` (the factory does, with TABLE set): on the config's
    CAMERA, a webcam index, video or folder, or with none on the demo game. Demo games roll
    over at every pass of the feed and are kept like any other; a game started by hand beside
    them is never fed demo readings. TABLE_FEED, TABLE_DETECT and TABLE_FPS: see create_app."""
    camera = app.config.get("CAMERA")
    feed, detect = app.config.get("TABLE_FEED"), app.config.get("TABLE_DETECT")
    fps = app.config.get("TABLE_FPS")
    hub = app.extensions["alea.hub"]
    layout = load_layout(app)
    if detect is None:
        try:
            from scanner.vision.models import load_detector

            detect = load_detector(None)
        except InputError as err:
            print(f"warning: {err.message}; the video and markers work, no dice are read")
            detect = _no_detector

    if camera is None:
        frames, demo_fps, restarts, on_restart, feeds = _demo(hub, feed)
        fps = fps or demo_fps
    else:
        frames, restarts, on_restart = _camera_frames(camera), None, None
        fps = fps or 10.0

        def feeds() -> bool:
            return True

    def on_settled(state: dict, unsure: list[dict]) -> None:
        if hub.session is not None and feeds():
            # A reading the referee cannot use is left out; the frame's status shows it.
            with contextlib.suppress(InputError):
                hub.run(lambda s: s.observe(state, unsure))

    def current_players() -> list[str] | None:
        s = hub.session
        return list(s.game.state.players) if s is not None else None

    def flagged() -> dict | None:
        s = hub.session
        return s.flag.get("move") if s is not None and s.flag else None

    loop = TableLoop(
        frames, layout, detect, on_settled, current_players, fps, on_restart, restarts, flagged
    )
    loop.palette = load_palette(app)
    app.extensions["alea.table"] = loop
    loop.start()
    return loop


def _demo(hub, feed=None):
    """The demo feed and its game: a demo game left by the last run resumes where the feed
    shows its board; any other demo game is kept and a new one starts."""
    from scanner.synth.demo import DemoFeed

    feed = feed or DemoFeed()
    seating = list(feed.scenes[0].state.players)
    session = hub.session
    if session is None or session.source == "demo":
        scene = None if session is None else feed.scene_of(session.game)
        if scene is None:
            hub.new_game(seating, source="demo")
        else:
            feed.start_at(scene)

    def roll_over() -> None:
        if hub.session is None or hub.session.source == "demo":
            hub.new_game(seating, source="demo")

    def feeds() -> bool:
        return hub.session is not None and hub.session.source == "demo"

    return (lambda: iter(feed)), 4.0, (lambda: feed.loops), roll_over, feeds


def _camera_frames(camera: str):
    """Frames from the camera; while it cannot be opened (no webcam plugged in yet, a video
    that went away) the loop is told why, once a second, and the source is tried again."""
    from scanner.vision.camera import open_source

    def frames():
        while True:
            try:
                source = open_source(camera, loop=not str(camera).isdigit())
            except InputError as err:
                yield f"{err.message}; trying again"
                time.sleep(1.0)
                continue
            with source:
                delivered = False
                for f in source:
                    delivered = True
                    yield f.image
            if not str(camera).isdigit() and not delivered:
                return
            yield "the camera stopped delivering frames; trying again"
            time.sleep(1.0)

    return frames


def layout_path(app):
    from pathlib import Path

    return Path(app.config["DATA_DIR"]) / "layout.json"


def palette_path(app):
    from pathlib import Path

    return Path(app.config["DATA_DIR"]) / "palette.json"


def load_palette(app):
    """The dice colours learnt at this table (Calibrate), or None: the reader's own colours.
    A file that cannot be read is set aside with a warning rather than stop the server."""
    from scanner.inputs import parse_json
    from scanner.vision.palette import Palette

    path = palette_path(app)
    if not path.exists():
        return None
    try:
        return Palette.from_json(parse_json(path.read_text(encoding="utf-8")))
    except (InputError, OSError, UnicodeDecodeError) as exc:
        print(f"warning: {path} cannot be read ({exc}); the dice colours are not used")
        return None


def load_layout(app):
    """The layout saved by the calibration wizard, else the printed sheet's default."""
    from scanner.vision.layout import Layout, default_layout

    path = layout_path(app)
    return Layout.load(path) if path.exists() else default_layout()


def _no_detector(board_image: np.ndarray):
    """Without a model the video and markers still work; no dice are read."""
    from scanner.vision.dice import Dice

    return Dice.empty()
