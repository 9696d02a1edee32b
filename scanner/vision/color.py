"""Which player's die is it: colour from the die's own pixels, robust to the light's colour.

Why not let the detector do it: the detector's classes are the six values, learned from every
die colour including real photos that have no player colours; colour is a separate, cheap
decision made here, and it can say `None` ("none of the five") for a white or red die.

Features per die (all from the central half of its box, which lies on the top face whatever the
rotation): the body colour is the median of the 60 % of pixels closest to the crop's median, so
pips and glints drop out. It is measured twice, in CIE Lab as seen and after dividing by the
scene illuminant (shades-of-grey estimate, Minkowski p = 6, over the whole image), plus the
corrected chroma and hue angle and the pip contrast. Grey/brown/yellow drift into each other
under warm light in raw Lab; the corrected copy undoes most of that, and a small MLP trained on
renders with random white balance and light colour learns how much to trust each copy.
Classes: the five player colours + `other`; `other`, or a top probability under `min_prob`,
gives None.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from scanner.rules.components import PLAYER_COLORS

CLASSES: tuple[str, ...] = (*PLAYER_COLORS, "other")
DEFAULT_WEIGHTS = Path(__file__).resolve().parents[2] / "models" / "color.json"
N_FEATURES = 15


def illuminant(img: np.ndarray) -> np.ndarray:
    """Shades-of-grey estimate of the light (BGR, 0..1): its colour and its brightness."""
    small = cv2.resize(img, (64, 64), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    x = small.astype(np.float64) / 255.0
    return np.power(np.mean(np.power(x, 6), axis=0), 1 / 6) + 1e-6


def _lab(bgr01: np.ndarray) -> np.ndarray:
    px = np.clip(bgr01, 0, 1).astype(np.float32).reshape(-1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(-1, 3)


def white_level(img: np.ndarray) -> float:
    """Lab lightness (0..1) of the scene's whites: the 98th percentile of a downscaled image.

    A white die and a grey one differ in how close they come to the brightest surfaces around,
    not in absolute brightness, which follows the exposure.
    """
    small = cv2.resize(img, (64, 64), interpolation=cv2.INTER_AREA)
    lum = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)[..., 0].astype(np.float64) / 255.0
    return float(np.quantile(lum, 0.98)) + 1e-3


def die_features(img: np.ndarray, boxes: np.ndarray, illum: np.ndarray | None = None):
    """(N, N_FEATURES) feature rows for the dice at `boxes` (xyxy, image pixels)."""
    illum = illuminant(img) if illum is None else illum
    white = white_level(img)
    h, w = img.shape[:2]
    rows = np.zeros((len(boxes), N_FEATURES), np.float32)
    for i, (x0, y0, x1, y1) in enumerate(np.asarray(boxes, dtype=np.float64)):
        cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 4, (y1 - y0) / 4
        xa, xb = int(np.clip(cx - hw, 0, w - 1)), int(np.clip(np.ceil(cx + hw), 1, w))
        ya, yb = int(np.clip(cy - hh, 0, h - 1)), int(np.clip(np.ceil(cy + hh), 1, h))
        crop = img[ya:max(yb, ya + 1), xa:max(xb, xa + 1)].reshape(-1, 3).astype(np.float64) / 255
        lab = _lab(crop)
        med = np.median(lab, axis=0)
        dist = np.linalg.norm(lab - med, axis=1)
        body = dist <= np.quantile(dist, 0.6)
        raw = np.median(lab[body], axis=0)
        body_bgr = np.median(crop[body], axis=0)
        corr = _lab(np.clip(body_bgr / (illum / illum.mean()), 0, 1)[None])[0]
        # Brightness relative to the scene's bright surfaces: separates grey from white/black
        # whatever the exposure.
        rel = _lab(np.clip(body_bgr / illum * 0.9, 0, 1)[None])[0][0] / 100
        chroma = np.hypot(corr[1], corr[2])
        hue = np.arctan2(corr[2], corr[1])
        lum = lab[:, 0]
        contrast = (np.quantile(lum, 0.95) - np.quantile(lum, 0.05)) / 100.0
        pip_dark = float(np.median(lum) - np.quantile(lum, 0.05)) > float(
            np.quantile(lum, 0.95) - np.median(lum))
        rows[i] = (
            raw[0] / 100, raw[1] / 64, raw[2] / 64,
            corr[0] / 100, corr[1] / 64, corr[2] / 64,
            chroma / 64, np.cos(hue) * min(chroma / 10, 1), np.sin(hue) * min(chroma / 10, 1),
            contrast, float(pip_dark),
            np.std(lab[body][:, 1]) / 32, np.std(lab[body][:, 2]) / 32, rel,
            raw[0] / 100 / white,
        )
    return rows


class ColorClassifier:
    """A one-hidden-layer MLP over `die_features`, weights in models/color.json."""

    def __init__(self, weights: dict, min_prob: float = 0.5) -> None:
        self.mean = np.array(weights["mean"], np.float32)
        self.std = np.array(weights["std"], np.float32)
        self.w1 = np.array(weights["w1"], np.float32)
        self.b1 = np.array(weights["b1"], np.float32)
        self.w2 = np.array(weights["w2"], np.float32)
        self.b2 = np.array(weights["b2"], np.float32)
        self.classes = tuple(weights["classes"])
        self.min_prob = min_prob

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> ColorClassifier | None:
        """The shipped classifier, or None when no weights exist (colours are then null)."""
        path = Path(path)
        if not path.is_file():
            return None
        return cls(json.loads(path.read_text()))

    def proba(self, feats: np.ndarray) -> np.ndarray:
        x = (feats - self.mean) / self.std
        hid = np.maximum(x @ self.w1 + self.b1, 0)
        z = hid @ self.w2 + self.b2
        z = z - z.max(1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(1, keepdims=True)

    def classify(self, img: np.ndarray, boxes: np.ndarray) -> list[str | None]:
        if not len(boxes):
            return []
        p = self.proba(die_features(img, boxes))
        out: list[str | None] = []
        for row in p:
            k = int(row.argmax())
            name = self.classes[k]
            out.append(name if name in PLAYER_COLORS and row[k] >= self.min_prob else None)
        return out


def fit(feats: np.ndarray, labels: np.ndarray, hidden: int = 48, epochs: int = 300,
        lr: float = 0.01, seed: int = 0) -> dict:
    """Train the MLP with full-batch Adam on (N, F) features and class indices into CLASSES."""
    rng = np.random.default_rng(seed)
    mean, std = feats.mean(0), feats.std(0) + 1e-6
    x = (feats - mean) / std
    n, f = x.shape
    k = len(CLASSES)
    params = {
        "w1": rng.normal(0, np.sqrt(2 / f), (f, hidden)), "b1": np.zeros(hidden),
        "w2": rng.normal(0, np.sqrt(1 / hidden), (hidden, k)), "b2": np.zeros(k),
    }
    m = {p: np.zeros_like(v) for p, v in params.items()}
    v2 = {p: np.zeros_like(v) for p, v in params.items()}
    onehot = np.eye(k)[labels]
    # Classes are unbalanced (other covers ten colours): weight samples to balance them.
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    sw = (n / (k * np.maximum(counts, 1)))[labels][:, None]
    for t in range(1, epochs + 1):
        hid_pre = x @ params["w1"] + params["b1"]
        hid = np.maximum(hid_pre, 0)
        z = hid @ params["w2"] + params["b2"]
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        dz = (p - onehot) * sw / n
        grads = {"w2": hid.T @ dz, "b2": dz.sum(0)}
        dh = dz @ params["w2"].T * (hid_pre > 0)
        grads["w1"] = x.T @ dh + 1e-4 * params["w1"]
        grads["b1"] = dh.sum(0)
        for name in params:
            m[name] = 0.9 * m[name] + 0.1 * grads[name]
            v2[name] = 0.999 * v2[name] + 0.001 * grads[name] ** 2
            mh, vh = m[name] / (1 - 0.9**t), v2[name] / (1 - 0.999**t)
            params[name] -= lr * mh / (np.sqrt(vh) + 1e-8)
    out = {name: val.tolist() for name, val in params.items()}
    out.update(mean=mean.tolist(), std=std.tolist(), classes=list(CLASSES))
    return out
