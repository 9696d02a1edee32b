"""What lies under and around the dice of a rendered scene: the surfaces (wood, cloth, plain
paper, printed board) and the objects that are no die (hands, cards, coins).

Kept apart from scene.py, which composes a scene from these and the dice, because the table
(scanner.synth.table) draws its wood and uneven light with the same noise. Any change here
changes rendered pixels, so it bumps scanner.synth.scene.RENDERER.
"""

from __future__ import annotations

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
