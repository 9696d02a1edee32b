"""What lies under and around the dice of a rendered scene: the surfaces (wood, cloth, plain
paper, printed board) and the objects that are no die (hands, cards, coins).

Kept apart from scene.py, which composes a scene from these and the dice, because the table
(scanner.synth.table) draws its wood and uneven light with the same noise. Any change here
changes rendered pixels, so it bumps scanner.synth.scene.RENDERER.
"""

from __future__ import annotations

from functools import partial

import cv2
import numpy as np

# ---------------------------------------------------------------- surfaces


def noise(rng, h, w, scale):
    """Smooth value noise: random grid upsampled with cubic interpolation."""
    gh, gw = max(2, int(h / scale)), max(2, int(w / scale))
    g = rng.random((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _text(img, text, org, scale, color, thickness):
    """putText on a float image (OpenCV 5 draws text on 8-bit images only)."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(mask, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness, cv2.LINE_AA)
    a = (mask.astype(np.float32) / 255)[..., None]
    img[:] = img * (1 - a) + np.float32(color) * a


def wood(rng, h, w):
    base = np.array(
        rng.choice([(0.55, 0.36, 0.2), (0.7, 0.5, 0.3), (0.4, 0.25, 0.15), (0.8, 0.65, 0.45)]),
        dtype=np.float32,
    )
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    t = x * np.cos(ang) + y * np.sin(ang)
    warp = noise(rng, h, w, 40) * 25
    grain = 0.5 + 0.5 * np.sin((t + warp) * rng.uniform(0.15, 0.5))
    fine = noise(rng, h, w, 3)
    k = (0.8 + 0.15 * grain + 0.1 * fine)[..., None]
    return base * k


def _cloth(rng, h, w):
    base = rng.uniform(0.05, 0.75, 3).astype(np.float32)
    weave = noise(rng, h, w, 1.5) * 0.12 + noise(rng, h, w, 30) * 0.1
    return base * (0.9 + weave[..., None] - 0.1)


def _paper(rng, h, w):
    # Plain light surfaces with a lighting gradient: the real validation photos look like this.
    g = rng.uniform(0.7, 0.97)
    tint = 1 + rng.normal(0, 0.03, 3)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    grad = 1 - rng.uniform(0, 0.2) * (x * rng.normal() + y * rng.normal()) / (h + w)
    return np.clip(g * tint[None, None, :] * grad[..., None], 0, 1).astype(np.float32)


def _board(rng, h, w):
    # A printed game board: coloured regions, frames, lines, lettering, icons.
    img = np.ones((h, w, 3), np.float32) * rng.uniform(0.4, 0.9, 3).astype(np.float32)
    for _ in range(rng.integers(3, 9)):
        x0, y0 = rng.integers(-w // 4, w), rng.integers(-h // 4, h)
        x1, y1 = x0 + rng.integers(w // 8, w), y0 + rng.integers(h // 8, h)
        col = tuple(float(c) for c in rng.uniform(0.1, 0.95, 3))
        if rng.random() < 0.6:
            cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), col, -1)
        else:
            cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), col, int(rng.integers(1, 6)))
    for _ in range(rng.integers(0, 6)):
        col = tuple(float(c) for c in rng.uniform(0, 1, 3))
        _text(
            img,
            "".join(rng.choice(list("ALEAIACTAEST TEMPLVM FORVM 0123456789"), 6)),
            (int(rng.integers(0, w)), int(rng.integers(0, h))),
            float(rng.uniform(0.3, 1.2)),
            col,
            int(rng.integers(1, 3)),
        )
    for _ in range(rng.integers(0, 8)):
        # small round icons: the dots that a detector must not read as pips without a die face
        col = tuple(float(c) for c in rng.uniform(0, 1, 3))
        cv2.circle(
            img,
            (int(rng.integers(0, w)), int(rng.integers(0, h))),
            int(rng.integers(2, 8)),
            col,
            -1,
            cv2.LINE_AA,
        )
    return img * (0.95 + 0.1 * noise(rng, h, w, 2)[..., None])


SURFACES = (wood, _cloth, _paper, _board)
SURFACE_WEIGHTS = (0.25, 0.2, 0.3, 0.25)


# ---------------------------------------------------------------- distractors


def _hand(rng, img, mask_avoid):
    h, w = img.shape[:2]
    skin = np.array(
        rng.choice([(0.87, 0.67, 0.55), (0.7, 0.5, 0.38), (0.45, 0.3, 0.2), (0.95, 0.78, 0.68)]),
        dtype=np.float32,
    )
    layer = np.zeros((h, w), np.uint8)
    side = rng.integers(4)
    cx, cy = [
        (rng.integers(w), -h // 6),
        (rng.integers(w), h + h // 6),
        (-w // 6, rng.integers(h)),
        (w + w // 6, rng.integers(h)),
    ][side]
    palm = int(rng.uniform(0.15, 0.3) * min(h, w))
    cv2.ellipse(
        layer,
        (int(cx), int(cy)),
        (palm, int(palm * 1.3)),
        float(rng.uniform(0, 180)),
        0,
        360,
        255,
        -1,
    )
    toward = np.array([w / 2 - cx, h / 2 - cy], np.float32)
    toward /= np.linalg.norm(toward) + 1e-6
    for i in range(rng.integers(2, 6)):
        spread = (i - 2) * 0.25 + rng.normal(0, 0.05)
        d = np.array(
            [
                toward[0] * np.cos(spread) - toward[1] * np.sin(spread),
                toward[0] * np.sin(spread) + toward[1] * np.cos(spread),
            ]
        )
        length = palm * rng.uniform(1.2, 2.0)
        p0 = (int(cx), int(cy))
        p1 = (int(cx + d[0] * length), int(cy + d[1] * length))
        cv2.line(layer, p0, p1, 255, int(palm * 0.35), cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (5, 5), 1.5)
    a = (layer.astype(np.float32) / 255) * (1 - mask_avoid)
    tex = skin * (0.85 + 0.2 * noise(rng, h, w, 20)[..., None])
    return img * (1 - a[..., None]) + tex * a[..., None]


def _card(rng, img, mask_avoid):
    h, w = img.shape[:2]
    layer = np.zeros((h, w, 3), np.float32)
    a = np.zeros((h, w), np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    sw, sh = rng.uniform(0.1, 0.35) * w, rng.uniform(0.1, 0.35) * h
    pts = cv2.boxPoints(((cx, cy), (sw, sh), rng.uniform(0, 180))).astype(np.int32)
    col = tuple(float(c) for c in rng.uniform(0.2, 1, 3))
    cv2.fillPoly(layer, [pts], col, cv2.LINE_AA)
    cv2.fillPoly(a, [pts], 1.0, cv2.LINE_AA)
    _text(layer, "XII", (int(cx - 10), int(cy)), 0.5, (0.1, 0.1, 0.1), 1)
    a = a * (1 - mask_avoid)
    return img * (1 - a[..., None]) + layer * a[..., None]


def _coin(rng, img, mask_avoid):
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.float32)
    r = int(rng.uniform(8, 22))
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    cv2.circle(layer, c, r, 1.0, -1, cv2.LINE_AA)
    col = np.array(rng.choice([(0.8, 0.65, 0.3), (0.7, 0.7, 0.72), (0.6, 0.4, 0.25)]), np.float32)
    a = layer * (1 - mask_avoid)
    tex = col * (0.8 + 0.3 * noise(rng, h, w, 4)[..., None])
    return img * (1 - a[..., None]) + tex * a[..., None]


DISTRACTORS = (_hand, _card, _coin)


# ---------------------------------------------------------------- the wider world (issue 19)
# What real tables showed the camera and the scenes above never drew: wood from walnut to
# birch in planks, keyboards, playing cards with pips, grids of squares. Drawn only in a
# scene's "world" share (scanner.synth.scene.SceneConfig.world), so the default scenes and
# every set rendered from them keep their pixels.


def wood_planks(rng, h, w):
    """Wood of any shade from near-black walnut to pale birch, in planks with seams, knots and
    grain of varying tightness: the table most players have, and the one that hid dice."""
    hue = rng.uniform(0.0, 1.0)
    value = rng.uniform(0.12, 0.85)
    base = np.array((value, value * (0.62 + 0.15 * hue), value * (0.36 + 0.2 * hue)), np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    across = -x * np.sin(ang) + y * np.cos(ang)
    plank = rng.uniform(40, 220)
    index = np.floor((across + rng.uniform(0, plank)) / plank)
    shift = (np.sin(index * 12.9898) * 43758.5453) % 1.0  # each plank its own shade and grain
    warp = noise(rng, h, w, rng.uniform(20, 60)) * rng.uniform(10, 40)
    freq = rng.uniform(0.08, 0.6)
    grain = 0.5 + 0.5 * np.sin((across + warp + shift * 50) * freq)
    fine = noise(rng, h, w, rng.uniform(1.5, 4))
    k = 0.75 + rng.uniform(0.1, 0.35) * grain + 0.1 * fine + 0.12 * (shift - 0.5)
    seam = (np.abs(((across + plank * 0.5) % plank) - plank * 0.5) > plank * 0.5 - 1.2) & (
        rng.random() < 0.7
    )
    k = np.where(seam, k * 0.45, k)
    img = base * k[..., None]
    for _ in range(rng.integers(0, 3)):  # knots
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        r = int(rng.uniform(4, 18))
        knot = np.zeros((h, w), np.float32)
        cv2.ellipse(knot, c, (r, int(r * 0.6)), float(np.degrees(ang)), 0, 360, 1.0, -1)
        knot = cv2.GaussianBlur(knot, (0, 0), r / 3)
        img = img * (1 - 0.5 * knot[..., None])
    return np.clip(img, 0, 1)


def _layer(rng, img, mask_avoid, draw, size):
    """`draw(rgb, alpha)` on a `size`-pixel square canvas, turned by a random angle, dropped at
    a random place and blended in, kept off `mask_avoid`."""
    h, w = img.shape[:2]
    rgb = np.zeros((size, size, 3), np.float32)
    alpha = np.zeros((size, size), np.float32)
    draw(rgb, alpha)
    centre = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
    m = cv2.getRotationMatrix2D((size / 2, size / 2), float(rng.uniform(0, 360)), 1.0)
    m[:, 2] += np.array(centre) - size / 2
    rgb = cv2.warpAffine(rgb, m, (w, h), flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(alpha, m, (w, h), flags=cv2.INTER_LINEAR) * (1 - mask_avoid)
    return img * (1 - a[..., None]) + rgb * a[..., None]


def _rounded_square(rgb, box, r: int, col) -> None:
    """A keycap's face: the box (x0, y0, x1, y1) filled with its corners rounded to radius r."""
    a, b, c, d = box
    cv2.rectangle(rgb, (a + r, b), (c - r, d), col, -1, cv2.LINE_AA)
    cv2.rectangle(rgb, (a, b + r), (c, d - r), col, -1, cv2.LINE_AA)
    for px, py in ((a + r, b + r), (c - r, b + r), (a + r, d - r), (c - r, d - r)):
        cv2.circle(rgb, (px, py), r, col, -1, cv2.LINE_AA)


def _keys(rng, img, mask_avoid):
    """A keyboard: rows of rounded keycaps the size of dice, each with a letter, on a deck;
    laptop keys were read as dice, up to 14 in one photo."""
    pitch = rng.uniform(18, 64)
    cols, rows = int(rng.integers(4, 14)), int(rng.integers(2, 6))
    size = int(pitch * (max(cols, rows) + 2) * 1.5)
    dark = rng.random() < 0.6
    cap = np.float32(rng.uniform(0.03, 0.2) if dark else rng.uniform(0.72, 0.95))
    tint = (1 + rng.normal(0, 0.04, 3)).astype(np.float32)
    ink = np.float32(0.9 if dark else 0.15)
    deck = tint * np.float32(rng.uniform(0.1, 0.8))
    key = pitch * rng.uniform(0.78, 0.9)

    def draw(rgb, alpha):
        x0 = (size - cols * pitch) / 2
        y0 = (size - rows * pitch) / 2
        cv2.rectangle(
            rgb,
            (int(x0 - pitch * 0.3), int(y0 - pitch * 0.3)),
            (int(x0 + cols * pitch + pitch * 0.3), int(y0 + rows * pitch + pitch * 0.3)),
            tuple(float(c) for c in deck),
            -1,
        )
        cv2.rectangle(
            alpha,
            (int(x0 - pitch * 0.3), int(y0 - pitch * 0.3)),
            (int(x0 + cols * pitch + pitch * 0.3), int(y0 + rows * pitch + pitch * 0.3)),
            1.0,
            -1,
        )
        r = max(1, int(key * rng.uniform(0.08, 0.25)))
        for j in range(rows):
            stagger = pitch * rng.uniform(0, 0.5) * (j % 2)
            for i in range(cols):
                if rng.random() < 0.08:
                    continue
                cx, cy = x0 + stagger + (i + 0.5) * pitch, y0 + (j + 0.5) * pitch
                a, b = int(cx - key / 2), int(cy - key / 2)
                c, d = int(cx + key / 2), int(cy + key / 2)
                shade = cap * tint * np.float32(rng.uniform(0.92, 1.08))
                col = tuple(float(v) for v in shade)
                _rounded_square(rgb, (a, b, c, d), r, col)
                edge = tuple(float(v) * 0.7 for v in shade)
                cv2.line(rgb, (a + r, d), (c - r, d), edge, max(1, int(key * 0.06)), cv2.LINE_AA)
                glyph = str(rng.choice(list("QWERTYUIOPASDFGHJKLZXCVBNM1234567890")))
                _text(
                    rgb,
                    glyph,
                    (int(cx - key * 0.3), int(cy + key * 0.05)),
                    float(key / 45),
                    (float(ink),) * 3,
                    max(1, int(key / 25)),
                )

    return _layer(rng, img, mask_avoid, draw, size)


# A keycap's legend: letters, digits and the punctuation that prints a dot or a dash, or none.
LEGENDS = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890.,;:'-=/[]`" + "." * 6 + "-" * 4


def _cap(rgb, rng, centre, key: float, shade, look, legend: str, place: str, height: float):
    """One sculpted cap (a keycap or a loose tile) of side `key` at `centre`: its skirt's four
    sides shaded by the light, its top face inset and shifted, and a legend `height` of the
    face tall, centred, in the corner or low (`look` = (top face's share of the side, light
    direction, top face's shift, legend's ink))."""
    top, light, shift, ink = look
    cx, cy = centre
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32)
    o = corners * key / 2 + np.array((cx, cy))
    t = corners * key * top / 2 + np.array((cx, cy))
    t += shift
    for k, normal in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
        lit = 0.7 + 0.45 * max(0.0, float(np.dot(normal, light)))
        side = np.array([o[k], o[(k + 1) % 4], t[(k + 1) % 4], t[k]], np.int32)
        cv2.fillConvexPoly(rgb, side, tuple(float(v) for v in shade * lit), cv2.LINE_AA)
    r = max(1, int(key * top * rng.uniform(0.05, 0.2)))
    a, b = (int(v) for v in t[0])
    c, d = (int(v) for v in t[2])
    _rounded_square(rgb, (a, b, c, d), r, tuple(float(v) for v in shade * 1.05))
    if not legend:
        return
    scale = float(height * key * top / 22)
    thick = max(1, int(round(scale * 2)))
    (tw, th), _ = cv2.getTextSize(legend, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    face = key * top
    if place == "centre":
        org = (cx + shift[0] - tw / 2, cy + shift[1] + th / 2)
    elif place == "corner":
        org = (t[0][0] + face * 0.15, t[0][1] + face * 0.15 + th)
    else:
        org = (t[0][0] + face * 0.15, t[2][1] - face * 0.15)
    _text(rgb, legend, (int(org[0]), int(org[1])), scale, (ink,) * 3, thick)


def sculpted_keyboard(rng, img, mask_avoid, die_px: float):
    """A keyboard of die-sized sculpted keycaps: each a tapered cap whose top face is a square
    inset in a skirt that the light shades side by side, with a small legend (often a single
    dot or dash, centred or in a corner) or none. From above such a cap is a die's one or blank
    face; the flat keycaps of `_keys` with their big letters did not teach the detector that,
    and keycaps were read as ones on another renderer's keyboards."""
    pitch = die_px * rng.uniform(1.0, 1.5)
    cols, rows = int(rng.integers(4, 15)), int(rng.integers(2, 7))
    size = int(pitch * (max(cols, rows) + 2) * 1.5)
    dark = rng.random() < 0.55
    cap = np.float32(rng.uniform(0.04, 0.25) if dark else rng.uniform(0.6, 0.95))
    tint = (1 + rng.normal(0, 0.05, 3)).astype(np.float32)
    ink = np.float32(rng.uniform(0.7, 0.95) if dark else rng.uniform(0.05, 0.3))
    deck = tint * np.float32(rng.uniform(0.03, 0.5))
    key = pitch * rng.uniform(0.8, 0.94)
    top = rng.uniform(0.55, 0.8)  # the top face's side over the skirt's
    light = rng.normal(0, 1, 2)
    light /= np.linalg.norm(light) + 1e-6
    shift = rng.uniform(-0.08, 0.08, 2) * key  # a leaning cap's top face off its skirt's centre
    caps = [(j, i) for j in range(rows) for i in range(cols) if rng.random() > 0.06]
    tones = rng.uniform(0.9, 1.1, len(caps)).astype(np.float32)
    legends = [str(rng.choice(list(LEGENDS))) if rng.random() > 0.15 else "" for _ in caps]
    places = rng.choice(["centre", "centre", "corner", "low"], len(caps))
    heights = rng.uniform(0.12, 0.4, len(caps))
    look = (top, light, shift, float(ink))

    def draw(rgb, alpha):
        x0 = (size - cols * pitch) / 2
        y0 = (size - rows * pitch) / 2
        corners = (int(x0 - pitch * 0.25), int(y0 - pitch * 0.25))
        far = (int(x0 + cols * pitch + pitch * 0.25), int(y0 + rows * pitch + pitch * 0.25))
        cv2.rectangle(rgb, corners, far, tuple(float(c) for c in deck), -1)
        cv2.rectangle(alpha, corners, far, 1.0, -1)
        for (j, i), tone, legend, place, height in zip(
            caps, tones, legends, places, heights, strict=True
        ):
            cx, cy = x0 + (i + 0.5) * pitch, y0 + (j + 0.5) * pitch
            _cap(rgb, rng, (cx, cy), key, cap * tint * tone, look, legend, str(place), height)

    return _layer(rng, img, mask_avoid, draw, size)


def _suit(rgb, suit: int, cx: float, cy: float, s: float, col) -> None:
    """One card suit symbol of size `s` at (cx, cy): diamond, heart, club or spade."""
    c = tuple(float(v) for v in col)
    if suit == 0:
        pts = np.array([[cx, cy - s], [cx + s * 0.7, cy], [cx, cy + s], [cx - s * 0.7, cy]])
        cv2.fillPoly(rgb, [pts.astype(np.int32)], c, cv2.LINE_AA)
        return
    lobe = max(1, int(s * 0.45))
    if suit == 2:  # club: three balls and a stem
        for dx, dy in ((0, -0.45), (-0.45, 0.1), (0.45, 0.1)):
            cv2.circle(rgb, (int(cx + dx * s), int(cy + dy * s)), lobe, c, -1, cv2.LINE_AA)
    else:  # heart (point down) or spade (point up)
        sign = 1 if suit == 1 else -1
        for dx in (-0.4, 0.4):
            cv2.circle(rgb, (int(cx + dx * s), int(cy - sign * 0.2 * s)), lobe, c, -1, cv2.LINE_AA)
        tri = np.array(
            [
                [cx - s * 0.85, cy - sign * 0.05 * s],
                [cx + s * 0.85, cy - sign * 0.05 * s],
                [cx, cy + sign * s],
            ]
        )
        cv2.fillPoly(rgb, [tri.astype(np.int32)], c, cv2.LINE_AA)
    if suit in (2, 3):
        cv2.line(rgb, (int(cx), int(cy)), (int(cx), int(cy + s)), c, max(1, int(s * 0.2)))


def _pip_card(rng, img, mask_avoid, width: float | None = None):
    """A playing card: white, rounded, with its rank's suit symbols in two or three columns
    and the rank in the corners; cards were read as dice (precision 76 % on a set with cards).
    `width` in pixels, else drawn at random (`loose_tiles` sizes a card to the dice)."""
    cw = rng.uniform(45, 160) if width is None else width
    ch = cw * 1.4
    size = int(ch * 1.5)
    paper = np.float32(rng.uniform(0.82, 0.98)) * (1 + rng.normal(0, 0.02, 3)).astype(np.float32)
    suit = int(rng.integers(4))
    ink = (0.75, 0.08, 0.1) if suit in (0, 1) else (0.05, 0.05, 0.06)
    rank = int(rng.integers(1, 11))

    def draw(rgb, alpha):
        x0, y0 = (size - cw) / 2, (size - ch) / 2
        pts = cv2.boxPoints(((size / 2, size / 2), (cw, ch), 0)).astype(np.int32)
        cv2.fillPoly(rgb, [pts], tuple(float(v) for v in paper), cv2.LINE_AA)
        cv2.fillPoly(alpha, [pts], 1.0, cv2.LINE_AA)
        s = cw * rng.uniform(0.08, 0.13)
        cols = [0.5] if rank <= 3 else [0.3, 0.7]
        per = int(np.ceil(rank / len(cols)))
        left = rank
        for cx in cols:
            k = min(per, left)
            left -= k
            for j in range(k):
                cy = 0.5 if k == 1 else 0.2 + 0.6 * j / (k - 1)
                _suit(rgb, suit, x0 + cx * cw, y0 + cy * ch, s, ink)
        label = "A" if rank == 1 else str(rank)
        _text(rgb, label, (int(x0 + cw * 0.05), int(y0 + ch * 0.12)), float(cw / 160), ink, 1)

    return _layer(rng, img, mask_avoid, draw, size)


def _tile_grid(rng, img, mask_avoid):
    """A grid of squares the size of dice (a printed track, tiles, a chequered board), some
    holding a dot, a few dots or a number: the squares a detector must not take for faces."""
    cell = rng.uniform(16, 70)
    n = int(rng.integers(3, 9))
    size = int(cell * (n + 2) * 1.5)
    a_col = rng.uniform(0.1, 0.95, 3).astype(np.float32)
    b_col = rng.uniform(0.1, 0.95, 3).astype(np.float32)
    line = np.float32(rng.uniform(0.0, 0.3))
    chequer = rng.random() < 0.5

    def draw(rgb, alpha):
        x0 = y0 = (size - n * cell) / 2
        for j in range(n):
            for i in range(n):
                col = b_col if chequer and (i + j) % 2 else a_col
                p0 = (int(x0 + i * cell), int(y0 + j * cell))
                p1 = (int(x0 + (i + 1) * cell), int(y0 + (j + 1) * cell))
                cv2.rectangle(rgb, p0, p1, tuple(float(v) for v in col), -1)
                cv2.rectangle(rgb, p0, p1, (float(line),) * 3, max(1, int(cell * 0.05)))
                cx, cy = (p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2
                what = rng.random()
                ink = tuple(float(v) for v in rng.uniform(0, 1, 3))
                if what < 0.25:  # dots, like pips on a face
                    for _ in range(int(rng.integers(1, 4))):
                        dx, dy = rng.uniform(-0.25, 0.25, 2) * cell
                        cv2.circle(
                            rgb,
                            (int(cx + dx), int(cy + dy)),
                            max(1, int(cell * 0.08)),
                            ink,
                            -1,
                            cv2.LINE_AA,
                        )
                elif what < 0.45:
                    _text(
                        rgb,
                        str(int(rng.integers(1, 13))),
                        (int(cx - cell * 0.25), int(cy + cell * 0.15)),
                        float(cell / 50),
                        ink,
                        max(1, int(cell / 30)),
                    )
        cv2.rectangle(alpha, (int(x0), int(y0)), (int(x0 + n * cell), int(y0 + n * cell)), 1.0, -1)

    return _layer(rng, img, mask_avoid, draw, size)


WORLD_SURFACES = (wood_planks, wood, _cloth, _paper, _board)
WORLD_SURFACE_WEIGHTS = (0.4, 0.1, 0.15, 0.15, 0.2)


def _tile(rgb, alpha, *, rng, key: float, shade, look, legend: str, h: float) -> None:
    """One loose tile of side `key` in the middle of its square canvas (`_layer`'s draw)."""
    mid = rgb.shape[0] / 2
    cv2.rectangle(alpha, (int(mid - key / 2 - 1),) * 2, (int(mid + key / 2 + 1),) * 2, 1.0, -1)
    _cap(rgb, rng, (mid, mid), key, shade, look, legend, "centre", h)


def loose_tiles(rng, img, mask_avoid, die_px: float):
    """Square tiles the size of dice lying loose, a letter, a digit or a ring printed on each
    or none, and a playing card sized to the dice, so that its suits are as big as pips up
    close. Both were read as dice on another renderer's tables: a tile's letter as a one, a
    club's three lobes as a three."""
    card = die_px * rng.uniform(3.0, 4.5)
    img = _pip_card(rng, img, mask_avoid, width=card)
    for _ in range(int(rng.integers(2, 8))):
        key = die_px * rng.uniform(1.0, 1.6)
        shade = np.float32(rng.uniform(0.1, 0.95)) * rng.uniform(0.7, 1.0, 3).astype(np.float32)
        ink = float(0.1 if shade.mean() > 0.5 else 0.9)
        light = rng.normal(0, 1, 2)
        light /= np.linalg.norm(light) + 1e-6  # a direction, as the keyboard's
        look = (rng.uniform(0.75, 0.9), light, rng.uniform(-0.05, 0.05, 2) * key, ink)
        legend = (
            str(rng.choice(list("ABCDEFGHKMNOPRSTWXZ0123456789O"))) if rng.random() > 0.2 else ""
        )
        height = rng.uniform(0.25, 0.6)
        size = int(key * 2)

        tile = partial(_tile, rng=rng, key=key, shade=shade, look=look, legend=legend, h=height)
        img = _layer(rng, img, mask_avoid, tile, size)
    return img


WORLD_DISTRACTORS = (_hand, _card, _coin, _keys, _pip_card, _tile_grid)
# What lies flat on the table: in the world's scenes the dice lie on it, so it is drawn whole
# (kept off the dice, it left a bare ring round every die: a cue no real table gives).
UNDER_DICE = (_card, _coin, _keys, _pip_card, _tile_grid)
