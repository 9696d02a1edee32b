"""A table seen from above: background, distractors, dice with shadows, then the camera.

`render_scene(seed)` is a pure function of its seed, so a dataset is reproducible image by image
and any one image can be regenerated to debug it. The steps follow what a real photo goes
through: surface (wood, cloth, printed board, plain paper like the real validation photos),
objects on it (hands, cards, coins, pip-less cubes), dice with soft shadows (some touching), then
the camera (mild tilt = perspective, lens blur, white balance and light colour, sensor noise,
JPEG). Labels are the warped outline of each die, so they are exact by construction. The
surfaces and distractors are drawn by scanner.synth.surfaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from scanner.synth.dice import (
    LOGOS,
    DieStyle,
    random_style,
    render_die,
    side_values,
    stretched_pips,
)
from scanner.synth.surfaces import (
    DISTRACTORS,
    SURFACE_WEIGHTS,
    SURFACES,
    UNDER_DICE,
    WORLD_DISTRACTORS,
    WORLD_SURFACE_WEIGHTS,
    WORLD_SURFACES,
    loose_tiles,
    noise,
    sculpted_keyboard,
)

# Bumped whenever a seed's pixels or labels change, so rendered sets on disk that an older
# renderer drew are known stale (scanner.synth.dataset stamps each set with it). 2: the tilted
# camera sees the table beyond the frame instead of a mirror image with unlabelled dice. 3: pips
# always stand out from the body (scanner.synth.dice.PIP_CONTRAST). 4: the game's dice wear one
# pip colour per colour (scanner.synth.dice.game_pip), as the table draws them. 3 and 4 keep
# every seed's dice, boxes and labels; only pips change. 5: the game's dice in a range of shades
# each (scanner.synth.dice.GAME_SHADES) and with white or black pips at random, so the reader
# learns colour from the body (issue 19: yellow dice with white pips read as no player's).
RENDERER = 5


@dataclass
class SceneConfig:
    """Knobs of the generator; the defaults match the top-down table view (die 26–56 px)."""

    width: int = 320
    height: int = 320
    min_dice: int = 2
    max_dice: int = 16
    die_px: tuple[float, float] = (26.0, 56.0)
    game_share: float = 0.6  # share of dice in the game's five colours
    shades: str = "game"  # their ranges of shades (scanner.synth.dice.SHADE_CHOICES)
    touch_share: float = 0.3  # share of dice placed right against another one
    distractors: tuple[int, int] = (0, 3)
    blank_cube_share: float = 0.04
    # Share of the pip-less cubes drawn in swirled two-tone plastic: the face reader's hardest
    # negatives, swirls that pass for pips. 0 draws nothing, so the default scenes are unchanged.
    blank_marble_share: float = 0.0
    jpeg_share: float = 0.7
    # Issue 19: the share of scenes drawn from the wider world (`_world`): planks of any wood,
    # keyboards, cards with pips and grids of squares among the distractors, dice from 14 px
    # to over half the frame, and some scenes seen 25-45 degrees off vertical. 0 draws none
    # and takes no random number, so the default scenes keep their pixels.
    world: float = 0.0
    # The world's dice wear pips on their side faces too (`dice.side_values`), as a leaning
    # camera sees them. False draws plain side faces and takes no random number: the world's
    # scenes as photos.onnx learnt them.
    side_pips: bool = False
    # The share of dice whose six is printed with a maker's emblem, not pips (`dice.LOGOS`), as many
    # real sets have them. 0 draws none and takes no random number: the scenes as before.
    logo_sixes: float = 0.0
    # The share of dice whose pips are drawn long (`dice.stretched_pips`). 0 draws none and
    # takes no random number: the scenes as before.
    long_pips: float = 0.0
    # The share of dice of clear plastic (`DieStyle.translucent`, 0.4-1). 0 draws none and takes
    # no random number: the scenes as before.
    translucent: float = 0.0
    # The share of the world's scenes laid on a keyboard of die-sized sculpted keycaps
    # (`surfaces.sculpted_keyboard`), drawn from its own random stream: 0 draws none and the
    # scenes keep their pixels; asked for, the keyboard changes the table under the dice and
    # nothing else.
    keyboards: float = 0.0
    # The share of the world's scenes with loose die-sized tiles and a card sized to the dice
    # (`surfaces.loose_tiles`), from its own random stream like the keyboards: 0 draws none.
    tiles: float = 0.0
    # False: the camera's random white balance, exposure and gamma are drawn but not applied, so
    # the same seed gives the same scene under neutral light (benchmarks/light_ablation.py).
    light_shift: bool = True


def photo_config(**overrides) -> SceneConfig:
    """The scenes of the synthetic test photos and of the face reader's data: 640 px like the
    real photos, dice at the table scale (26–56 px), 4–40 a scene. One definition, because the
    reader is trained, `alea eval` tests and the light ablation measures on the same kind."""
    return SceneConfig(**{"width": 640, "height": 640, "min_dice": 4, "max_dice": 40, **overrides})


@dataclass
class SceneDie:
    """One drawn die: its value, colour name and box (x0, y0, x1, y1) in image pixels.

    `visible` is the share of its outline inside the frame: a die the camera tilt pushes half
    out of the picture keeps its label, though the frame may hide the pips that tell its value
    (benchmarks/frame_edge.py measures what that costs)."""

    value: int
    color: str
    box: tuple[float, float, float, float]
    visible: float = 1.0


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    dice: list[SceneDie] = field(default_factory=list)


# ---------------------------------------------------------------- placement


def _place(
    rng: np.random.Generator, cfg: SceneConfig, n: int, sizes: list[float]
) -> list[tuple[float, float, float]]:
    """Centres for n dice of the given sizes: mostly apart, some touching, none overlapping."""
    placed: list[tuple[float, float, float]] = []
    for size in sizes[:n]:
        r = size * 0.72  # circumscribed radius of a rotated face, roughly
        for _ in range(40):
            if placed and rng.random() < cfg.touch_share:
                ox, oy, osz = placed[rng.integers(len(placed))]
                ang = rng.uniform(0, 2 * np.pi)
                dist = (size + osz) / 2 * rng.uniform(1.0, 1.3)
                x, y = ox + dist * np.cos(ang), oy + dist * np.sin(ang)
            else:
                x = rng.uniform(r * 0.6, cfg.width - r * 0.6)
                y = rng.uniform(r * 0.6, cfg.height - r * 0.6)
            if not (r * 0.6 <= x <= cfg.width - r * 0.6 and r * 0.6 <= y <= cfg.height - r * 0.6):
                continue
            # 1.08 x the mean side: faces may touch, rotated corners rarely overlap.
            if all(np.hypot(x - px, y - py) >= (size + ps) / 2 * 1.08 for px, py, ps in placed):
                placed.append((float(x), float(y), float(size)))
                break
    return placed


def composite(canvas, rgb, alpha, x, y):
    """Paste a patch centred at (x, y) with alpha, clipping at the canvas edges."""
    h, w = canvas.shape[:2]
    ph, pw = alpha.shape
    x0, y0 = int(round(x - pw / 2)), int(round(y - ph / 2))
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x0 + pw, w), min(y0 + ph, h)
    if cx0 >= cx1 or cy0 >= cy1:
        return x0, y0
    a = alpha[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0, None]
    region = canvas[cy0:cy1, cx0:cx1]
    if rgb is None:  # a shadow: darken
        canvas[cy0:cy1, cx0:cx1] = region * (1 - a)
    else:
        canvas[cy0:cy1, cx0:cx1] = (
            region * (1 - a) + rgb[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] * a
        )
    return x0, y0


# ---------------------------------------------------------------- camera


def _margin(h: int, w: int) -> int:
    """The table drawn beyond the frame on each side, wider than the camera tilt's 5 %."""
    return int(0.06 * min(h, w)) + 2


def _camera(rng, img, outlines, pad: int, light_shift: bool = True, seen_h: int | None = None):
    """Perspective tilt, light colour, blur, noise; returns uint8 BGR and warped outlines.

    `img` is the table with `pad` pixels drawn beyond the frame on each side: a tilted camera
    sees some of it. (Mirroring the frame at its border instead drew mirrored copies of the
    dice near the edge, which no label named.) With `seen_h` the camera looks at the table
    obliquely: the table, drawn taller than the frame, is foreshortened to `seen_h` rows, and
    its near edge (the bottom) is magnified against its far edge."""
    h, w = img.shape[0] - 2 * pad, img.shape[1] - 2 * pad
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    if seen_h is not None:
        far, near = pad * 0.9, w * rng.uniform(0.03, 0.12)
        src = np.array(
            [
                [pad - far, pad],
                [pad + w + far, pad],
                [pad + w - near, pad + h],
                [pad + near, pad + h],
            ],
            np.float32,
        )
        h = seen_h
        frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        hm = cv2.getPerspectiveTransform(src, frame)
        img = cv2.warpPerspective(
            img, hm, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
        )
        outlines = [cv2.perspectiveTransform(o[None], hm)[0] for o in outlines]
    elif rng.random() < 0.6:
        j = rng.uniform(0, 0.05) * min(h, w)
        dst = frame + rng.uniform(-j, j, (4, 2)).astype(np.float32)
        hm = cv2.getPerspectiveTransform(frame + np.float32(pad), dst)
        img = cv2.warpPerspective(
            img, hm, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
        )
        outlines = [cv2.perspectiveTransform(o[None], hm)[0] for o in outlines]
    else:  # straight above: the frame itself, no resampling
        img = img[pad : pad + h, pad : pad + w]
        outlines = [o - np.float32(pad) for o in outlines]
    # Light colour and white balance: warm tungsten to cool daylight, plus exposure and gamma.
    warmth = rng.normal(0, 0.12)
    gains = np.array([1 + warmth, 1 + rng.normal(0, 0.04), 1 - warmth], np.float32)
    gains *= rng.uniform(0.7, 1.25)
    gamma = rng.uniform(0.8, 1.25)
    if light_shift:
        img = np.clip(img * gains[None, None, :], 0, 1) ** gamma
    # Uneven light: a broad gradient.
    img = img * (1 - rng.uniform(0, 0.3) * noise(rng, h, w, max(h, w) / 2))[..., None]
    sigma = rng.choice([0, 0, 0.5, 0.8, 1.2])
    if sigma:
        img = cv2.GaussianBlur(img, (0, 0), float(sigma))
    img = img + rng.normal(0, rng.uniform(0, 0.03), img.shape).astype(np.float32)
    bgr = (np.clip(img[..., ::-1], 0, 1) * 255).astype(np.uint8)
    return bgr, outlines


OBLIQUE_SHARE = 0.35  # of the world's scenes, seen 25-45 degrees off vertical


def _world(rng: np.random.Generator, cfg: SceneConfig) -> tuple[SceneConfig, float]:
    """A world scene's config and camera lean (radians; 0 straight above): a third of the time
    the table's dice, else small dice in crowds or big ones a few at a time (close-ups)."""
    regime = rng.random()
    big = min(200.0, 0.6 * min(cfg.width, cfg.height))
    if regime < 0.35:
        scale: dict = {}
    elif regime < 0.55:
        scale = {"die_px": (14.0, 26.0), "min_dice": 4, "max_dice": 30}
    else:
        scale = {"die_px": (56.0, big), "min_dice": 1, "max_dice": 5}
    lean = float(np.radians(rng.uniform(25, 45))) if rng.random() < OBLIQUE_SHARE else 0.0
    return replace(cfg, distractors=(1, 5), **scale), lean


def render_scene(seed: int | tuple[int, ...], cfg: SceneConfig | None = None) -> Scene:
    """Render one scene; the same seed and config always give the same pixels and labels.

    `seed` may be a tuple such as (dataset seed, image index): each image then has its own
    independent stream and can be regenerated alone.
    """
    cfg = cfg or SceneConfig()
    rng = np.random.default_rng(seed)
    surfaces: tuple = SURFACES
    weights: tuple = SURFACE_WEIGHTS
    distractors: tuple = DISTRACTORS
    lean = 0.0
    world = bool(cfg.world) and rng.random() < cfg.world
    if world:
        surfaces, weights, distractors = WORLD_SURFACES, WORLD_SURFACE_WEIGHTS, WORLD_DISTRACTORS
        cfg, lean = _world(rng, cfg)
    # Seen obliquely, the frame shows a table taller than itself, foreshortened by cos(lean).
    table = replace(cfg, height=int(round(cfg.height / np.cos(lean)))) if lean else cfg
    h, w = table.height, table.width
    surface = surfaces[rng.choice(len(surfaces), p=weights)]
    img = surface(rng, h, w).astype(np.float32)

    n = int(rng.integers(cfg.min_dice, cfg.max_dice + 1))
    base = rng.uniform(*cfg.die_px)  # dice in one photo share a scale, with small variation
    sizes = [float(np.clip(base * rng.uniform(0.92, 1.08), *cfg.die_px)) for _ in range(n)]
    # A leaning camera sees each die's near side face: room for it between the dice.
    room = 1 + 0.6 * np.tan(lean)
    centres = [(x, y, sz / room) for x, y, sz in _place(rng, table, n, [s * room for s in sizes])]

    styles: list[DieStyle] = []
    # Emblems drawn from their own stream: asked for, they change the sixes and nothing else.
    emblems = rng.spawn(1)[0] if cfg.logo_sixes else None
    stretches = rng.spawn(1)[0] if cfg.long_pips else None  # the same, for long pips
    clear = rng.spawn(1)[0] if cfg.translucent else None  # and for translucent dice
    for _x, _y, size in centres:
        style = random_style(rng, int(rng.integers(1, 7)), size, cfg.game_share, cfg.shades)
        if rng.random() < cfg.blank_cube_share:
            style = DieStyle(**{**style.__dict__, "blank": True})
            if cfg.blank_marble_share and rng.random() < cfg.blank_marble_share:
                style = DieStyle(**{**style.__dict__, "marble": float(rng.uniform(0.3, 1.0))})
        if lean:  # every die shows the side facing the camera, as tall as tan(lean) of it
            style = replace(style, tilt=(0.0, float(size * np.tan(lean) * rng.uniform(0.85, 1.15))))
        if world and cfg.side_pips:
            style = replace(style, sides=side_values(rng, style.value))
        if emblems is not None and emblems.random() < cfg.logo_sixes:
            style = replace(style, logo=int(emblems.integers(1, len(LOGOS) + 1)))
        if stretches is not None and stretches.random() < cfg.long_pips:
            style = replace(style, pip_stretch=stretched_pips(stretches, style.pip_radius))
        if clear is not None and clear.random() < cfg.translucent:
            style = replace(style, translucent=float(clear.uniform(0.4, 1.0)))
        styles.append(style)

    # Distractors first, kept off the dice so every label stays fully visible; in the world's
    # scenes what lies flat (UNDER_DICE) is drawn whole, the dice lying on it.
    avoid = np.zeros((h, w), np.float32)
    for x, y, size in centres:
        cv2.circle(avoid, (int(x), int(y)), int(size * 0.9), 1.0, -1)
    bare = np.zeros_like(avoid)
    # What lies under the dice when asked for, each from its own stream (none: no number taken).
    for share, lay in ((cfg.keyboards, sculpted_keyboard), (cfg.tiles, loose_tiles)):
        own = rng.spawn(1)[0] if world and share else None
        if own is not None and own.random() < share:
            img = lay(own, img, bare, base)
    for _ in range(rng.integers(cfg.distractors[0], cfg.distractors[1] + 1)):
        draw = distractors[rng.integers(len(distractors))]
        img = draw(rng, img, bare if world and draw in UNDER_DICE else avoid)

    # The surface and distractors go on beyond the frame (mirrored: no die is there yet), so
    # the tilted camera never sees past the table's edge; dice and shadows are drawn after.
    pad = _margin(h, w)
    img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REFLECT)
    centres = [(x + pad, y + pad, size) for x, y, size in centres]

    # Soft shadows under all dice, then the dice.
    sh_dir = rng.uniform(0, 2 * np.pi)
    sh_len = rng.uniform(0.0, 0.25)
    sh_dark = rng.uniform(0.2, 0.6)
    patches = [render_die(st, rng) for st in styles]
    for (x, y, size), (_rgb, alpha, _o) in zip(centres, patches, strict=True):
        blur = max(1.0, size * rng.uniform(0.05, 0.15))
        sa = cv2.GaussianBlur(alpha, (0, 0), blur) * sh_dark
        composite(
            img, None, sa, x + np.cos(sh_dir) * sh_len * size, y + np.sin(sh_dir) * sh_len * size
        )
    outlines: list = [None] * len(centres)
    # Far dice first, so a near die hides the far one's side face (draws as before when the
    # camera does not lean: every die is drawn in its own order then).
    order = (
        sorted(range(len(centres)), key=lambda i: centres[i][1]) if lean else range(len(centres))
    )
    for i in order:
        (x, y, _size), (rgb, alpha, outline) = centres[i], patches[i]
        x0, y0 = composite(img, rgb, alpha, x, y)
        outlines[i] = outline + np.array([x0, y0], np.float32)

    bgr, outlines = _camera(rng, img, outlines, pad, cfg.light_shift, cfg.height if lean else None)
    h = cfg.height
    if lean and h == w and rng.random() < 0.5:  # the camera at the table's side, not its foot
        bgr = np.ascontiguousarray(bgr.transpose(1, 0, 2))
        outlines = [o[:, ::-1].copy() for o in outlines]
    if rng.random() < cfg.jpeg_share:
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
        bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    dice = []
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    for st, o in zip(styles, outlines, strict=True):
        if st.blank:
            continue
        x0, y0 = np.clip(o.min(0), 0, [w, h])
        x1, y1 = np.clip(o.max(0), 0, [w, h])
        hull = cv2.convexHull(o.astype(np.float32))[:, 0]
        inside, _ = cv2.intersectConvexConvex(hull, frame)
        area = cv2.contourArea(hull)
        visible = float(inside / area) if area > 0 else 0.0
        dice.append(
            SceneDie(
                st.value, st.color, (float(x0), float(y0), float(x1), float(y1)), min(visible, 1.0)
            )
        )
    return Scene(bgr, dice)
