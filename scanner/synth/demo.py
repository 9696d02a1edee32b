"""The demo game: what `alea serve` plays when no camera is plugged in, and the end-to-end test
of camera → referee.

A seeded random game is turned into a script of table scenes: a hand over the table, then the
board after each placement. Now and then a player first makes an illegal placement, which the
referee must flag with its rule id, and takes it back. At the end of each round the buildings
are cleared. Each settled scene carries what the referee should make of it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from scanner.rules import components
from scanner.rules.game import Game
from scanner.rules.move import Move
from scanner.rules.moves import candidates
from scanner.rules.placement import check, legal_moves, place_anyway
from scanner.rules.state import BoardState
from scanner.synth.arrange import TooManyDice, lay_out
from scanner.synth.table import Camera, TableFrame, random_camera, render_table
from scanner.vision.layout import Layout, default_layout

# Pixels of slack around the demo's noise field: each frame's noise is a window into it.
NOISE_MARGIN = 64

# Illegal placements the demo shows: each lies on the table in an obvious way.
SHOWN_RULES = (
    "senatus.identical",
    "senatus.not-a-run",
    "senatus.not-extending",
    "castrum.identical",
    "castrum.mixed",
    "forum.shape",
    "templum.count",
    "templum.sum",
)


@dataclass(frozen=True)
class Scene:
    """One still picture of the table, held for a while by the demo feed."""

    state: BoardState  # the board (parsed non-strict: an illegal placement lies there too)
    hand: bool  # a hand over the table: nothing is settled
    note: str  # what is happening, for people
    expect: dict | None = None  # for settled scenes: the ruling the referee should give

    def to_json(self) -> dict:
        return {
            "state": self.state.to_json(),
            "hand": self.hand,
            "note": self.note,
            "expect": self.expect,
        }


def _illegal_try(state: BoardState, player: str, roll: tuple, rng: random.Random) -> Move | None:
    tries = [m for m in candidates(state, player, roll) if m.building != "latrina"]
    # Candidates are shaped to be plausible; widen them with a few shapes players get wrong.
    values = sorted(set(roll))
    if len(values) >= 2:
        tries.append(Move(player, "forum", (values[0], values[-1])))
        tries.append(Move(player, "castrum", (values[0], values[1])))
        tries.append(Move(player, "senatus", (values[0], values[-1])))
    # A Forum placement needs pedestals for its dice to be shown lying there at all.
    room = state.forum_columns - len(state.forum)
    tries = [m for m in tries if m.building != "forum" or len(m.dice) <= room]
    rng.shuffle(tries)
    for move in tries:
        v = check(state, move, roll)
        if not v.legal and v.rule in SHOWN_RULES:
            return move
    return None


def demo_script(
    seed: int = 7,
    players: int = 4,
    rounds: int = 1,
    illegal_share: float = 0.15,
    layout: Layout | None = None,
) -> list[Scene]:
    """The scenes of a short game: `rounds` rounds of `players` players."""
    layout = layout or default_layout()
    rng = random.Random(seed)
    game = Game(components.PLAYER_COLORS[:players], seed=seed)
    scenes: list[Scene] = [Scene(game.state, False, "the table before the game", {"kind": "none"})]
    while not game.over and game.round_no <= rounds:
        while (player := game.current_player) is not None:
            roll = game.roll()
            before = game.state
            if rng.random() < illegal_share:
                bad = _illegal_try(before, player, roll, rng)
                if bad is not None:
                    shown = place_anyway(before, bad)
                    rule = check(before, bad, roll).rule
                    scenes += [
                        Scene(before, True, f"{player} places dice"),
                        Scene(
                            shown,
                            False,
                            f"{player}: {bad.building} {list(bad.dice)} breaks {rule}",
                            {"kind": "placement", "legal": False, "rule": rule},
                        ),
                        Scene(before, True, f"{player} takes the dice back"),
                        Scene(before, False, "taken back", {"kind": "none"}),
                    ]
            options = list(legal_moves(before, player, roll))
            rng.shuffle(options)
            for move in options:  # a placement that still fits the printed zones
                after = check(before, move, roll).state
                assert after is not None, "a legal move leaves a state"
                try:
                    lay_out(after, layout)
                    break
                except TooManyDice:
                    continue
            game.place(move)
            scenes += [
                Scene(before, True, f"{player} places dice"),
                Scene(
                    game.state,
                    False,
                    f"{player}: {move.building} {list(move.dice)}",
                    {"kind": "placement", "legal": True, "move": move.to_json()},
                ),
            ]
        last = game.state
        result = game.end_round()
        scenes += [
            Scene(last, True, "the round is scored: the buildings are cleared"),
            Scene(
                BoardState(players=game.state.players if not game.over else last.players),
                False,
                f"round {game.round_no - 1} scored",
                {"kind": "cleared", "round": result.to_json()},
            ),
        ]
    return scenes


@dataclass
class DemoFeed:
    """An endless frame source playing the demo script, with a fixed camera as a mounted
    webcam would be. Frames are rendered when first needed and kept as JPEG at quality 95, as an
    MJPEG webcam delivers them (a scene is still; 63 raw scenes would hold a quarter of a
    gigabyte for the server's lifetime, 63 PNGs 61 MB, these 12 MB)."""

    seed: int = 7
    players: int = 4
    rounds: int = 1
    hold: int = 8  # frames a settled scene lasts (stillness 2 + a 2-of-3 vote, and margin)
    hand_hold: int = 2
    size: tuple[int, int] = (1280, 720)
    layout: Layout = field(default_factory=default_layout)

    def __post_init__(self) -> None:
        self.scenes = demo_script(self.seed, self.players, self.rounds, layout=self.layout)
        self.camera: Camera = random_camera(
            self.layout, np.random.default_rng(self.seed), self.size
        )
        self._cache: dict[int, tuple[bytes, TableFrame]] = {}  # JPEG, truth without its image
        self._shown: tuple[int, TableFrame] | None = None  # the scene decoded last
        self._noise: tuple[np.ndarray, np.ndarray] | None = None
        self.loops = 0  # how many times the script restarted
        self.scene_index = 0
        self._start = 0  # the first pass begins here (a resumed demo game), later ones at 0

    def table(self, i: int) -> TableFrame:
        """Scene `i` drawn (with its truth: where each die lies)."""
        if self._shown is not None and self._shown[0] == i:
            return self._shown[1]
        if i not in self._cache:
            s = self.scenes[i]
            drawn = render_table(
                s.state,
                (self.seed, i),
                self.layout,
                hand=s.hand,
                camera=self.camera,
                size=self.size,
                look=self.seed,
            )
            ok, encoded = cv2.imencode(".jpg", drawn.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            assert ok, "JPEG encoding of a rendered scene failed"
            self._cache[i] = (
                encoded.tobytes(),
                replace(drawn, image=np.empty((0, 0, 3), np.uint8)),
            )
        jpeg, truth = self._cache[i]
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert image is not None, "a kept JPEG failed to decode"
        self._shown = (i, replace(truth, image=image))
        return self._shown[1]

    def frame(self, i: int) -> np.ndarray:
        return self.table(i).image

    def scene_of(self, game: Game) -> int | None:
        """The settled scene of round 1 that shows the board `game` has accepted, so a demo
        game left by a restart resumes there; None when the game is past the script."""
        if game.round_no != 1 or game.current_player is None:
            return None
        board = game.state.to_json()
        board.pop("supply", None)
        for i in range(len(self.scenes) - 1, -1, -1):
            seen = self.scenes[i].state.with_(players=game.state.players).to_json()
            seen.pop("supply", None)
            if not self.scenes[i].hand and seen == board:
                return i
        return None

    def start_at(self, scene: int) -> None:
        """Begin the first pass at `scene` (later passes play the whole script)."""
        self._start = scene

    def __iter__(self) -> Iterator[np.ndarray]:
        while True:
            yield from (image for _, image in self.frames(self._start))
            self._start = 0
            self.loops += 1

    def frames(self, start: int = 0) -> Iterator[tuple[int, np.ndarray]]:
        """(scene index, frame) once through the script from `start`. Each frame gets its own
        sensor noise: a webcam never delivers the same picture twice, and the live loop's vote
        over several frames relies on that to outvote a reading one frame's pixels get wrong."""
        rng = np.random.default_rng(self.seed)
        for i, s in list(enumerate(self.scenes))[start:]:
            self.scene_index = i
            for _ in range(self.hand_hold if s.hand else self.hold):
                yield i, self._noisy(self.frame(i), rng)

    def _noisy(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """`image` with Gaussian noise (σ 2.5 grey levels): a window at a random offset into
        one larger noise field drawn once, added and subtracted with saturation. Drawing fresh
        noise for every frame took most of an idle server's time."""
        h, w = image.shape[:2]
        if self._noise is None or self._noise[0].shape[:2] != (h + NOISE_MARGIN, w + NOISE_MARGIN):
            field_rng = np.random.default_rng(self.seed + 1)
            noise = field_rng.normal(0, 2.5, (h + NOISE_MARGIN, w + NOISE_MARGIN, 3)).round()
            self._noise = (
                np.clip(noise, 0, 255).astype(np.uint8),
                np.clip(-noise, 0, 255).astype(np.uint8),
            )
        up, down = self._noise
        y, x = rng.integers(0, NOISE_MARGIN, 2)
        window = np.s_[y : y + h, x : x + w]
        return cv2.subtract(cv2.add(image, up[window]), down[window])


def write_demo(
    out: str | Path, seed: int = 7, players: int = 4, rounds: int = 1, hold: int = 8
) -> dict:
    """Frames as JPEG files (`frame-00001.jpg`…) plus `script.json`, for `alea replay`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    feed = DemoFeed(seed, players, rounds, hold=hold, hand_hold=2)
    frames = []
    for n, (i, image) in enumerate(feed.frames(), start=1):
        name = f"frame-{n:05d}.jpg"
        cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        frames.append({"file": name, "scene": i})
    script = {
        "seed": seed,
        "players": list(feed.scenes[0].state.players),
        "frames": frames,
        "scenes": [s.to_json() for s in feed.scenes],
    }
    (out / "script.json").write_text(json.dumps(script, indent=1), encoding="utf-8")
    return script
