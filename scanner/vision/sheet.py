"""The printable marker sheet: ArUco markers around the area where the buildings lie.

The sheet is drawn from a `Layout`, so the markers printed are exactly the markers calibration
looks for, at exactly the millimetre positions it assumes. It is written as PNG (for screens and
tests) and as a one-page PDF at the paper's true size (for printing at 100 %). The PDF is written
by hand (one Flate-compressed greyscale image on one page), so no PDF library is needed.

>>> from scanner.vision.layout import default_layout
>>> img = render_sheet(default_layout(), px_per_mm=2)
>>> img.shape, img.dtype.name
((594, 840), 'uint8')
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from scanner.vision.layout import Layout, Zone

PRINT_DPI = 300
MM_PER_INCH = 25.4
A4_FROM_A3 = 2**-0.5  # A-series papers share one aspect ratio: A4 is A3 scaled by 1/√2
ZONE_GREY = 170


def board_to_pixels(px_per_mm: float) -> np.ndarray:
    """The 3×3 map from board mm to pixel coordinates of an image drawn at `px_per_mm`.

    Pixel (i, j) covers board mm [i/s, (i+1)/s); OpenCV puts pixel centres at integer
    coordinates, hence the half-pixel shift. The sheet, the rectified board and the tests all use
    this one convention, so a point is never off by half a pixel between them.
    """
    s = float(px_per_mm)
    return np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1]], np.float64)


def aruco_dictionary(name: str):
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def render_sheet(layout: Layout, px_per_mm: float = PRINT_DPI / MM_PER_INCH, zones: bool = True):
    """The sheet as a greyscale image: white paper, black markers, light-grey zone outlines."""
    w = int(round(layout.width * px_per_mm))
    h = int(round(layout.height * px_per_mm))
    img = np.full((h, w), 255, np.uint8)
    dictionary = aruco_dictionary(layout.marker_dictionary)
    for mid in layout.markers:
        corners = layout.marker_corners(mid)
        x0, y0 = (int(round(v * px_per_mm)) for v in corners[0])
        x1, y1 = (int(round(v * px_per_mm)) for v in corners[2])
        side = min(x1 - x0, y1 - y0)
        img[y0 : y0 + side, x0 : x0 + side] = cv2.aruco.generateImageMarker(dictionary, mid, side)
        _label(img, f"{mid}", (x0, y1 + int(5 * px_per_mm)), px_per_mm * 0.12)
    if zones:
        _draw_zones(img, layout, px_per_mm)
    return img


def _label(img, text, org, scale, color=0):
    thickness = max(1, int(round(scale * 2)))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, color, thickness, cv2.LINE_AA)


def _draw_zones(img, layout: Layout, px_per_mm: float) -> None:
    thick = max(1, int(round(0.5 * px_per_mm)))
    shapes = list(layout.zones.items()) + [(z.name, z) for z in layout.pedestals]
    for name, zone in shapes:
        pts = np.round(zone.polygon * px_per_mm).astype(np.int32)
        cv2.polylines(img, [pts], True, ZONE_GREY, thick, cv2.LINE_AA)
        if not name.startswith("forum["):
            x, y = pts.min(axis=0)
            _label(
                img,
                name.upper(),
                (int(x + 2 * px_per_mm), int(y + 6 * px_per_mm)),
                px_per_mm * 0.1,
                ZONE_GREY,
            )
    xs = np.concatenate([z.polygon[:, 0] for z in layout.pedestals])
    ys = np.concatenate([z.polygon[:, 1] for z in layout.pedestals])
    _label(
        img,
        "FORUM ROMANUM",
        (int(xs.min() * px_per_mm), int((ys.min() - 3) * px_per_mm)),
        px_per_mm * 0.1,
        ZONE_GREY,
    )
    # The colour swatches: one square per player colour where a die of that colour is set down
    # for the camera to learn it (scanner.vision.palette), its colour name printed above it.
    for color, (cx, cy, side) in layout.swatches.items():
        h = side / 2
        p0 = (int(round((cx - h) * px_per_mm)), int(round((cy - h) * px_per_mm)))
        p1 = (int(round((cx + h) * px_per_mm)), int(round((cy + h) * px_per_mm)))
        cv2.rectangle(img, p0, p1, ZONE_GREY, thick, cv2.LINE_AA)
        _label(img, color.upper(), (p0[0], int(p0[1] - 2 * px_per_mm)), px_per_mm * 0.08, ZONE_GREY)
    # A 50 mm bar to check the print came out at 100 % (between the bottom markers).
    y = int((layout.height - 6) * px_per_mm)
    x0 = int(layout.width * 0.6 * px_per_mm)
    cv2.line(img, (x0, y), (x0 + int(50 * px_per_mm), y), 0, thick)
    _label(
        img,
        f"50 mm - print at 100 % on {layout.paper or 'paper'}",
        (x0, y - int(2 * px_per_mm)),
        px_per_mm * 0.08,
    )


def write_pdf(path: str | Path, image: np.ndarray, width_mm: float, height_mm: float) -> None:
    """One page of `width_mm` × `height_mm` filled by a greyscale image."""
    if image.ndim != 2 or image.dtype != np.uint8:
        raise ValueError("write_pdf takes an 8-bit greyscale image")
    h, w = image.shape
    pw, ph = width_mm / MM_PER_INCH * 72, height_mm / MM_PER_INCH * 72
    data = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
    content = f"q {pw:.3f} 0 0 {ph:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.3f} {ph:.3f}] "
        "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode()
        + data
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    Path(path).write_bytes(bytes(out))


def write_sheets(layout: Layout, out_dir: str | Path, dpi: int = PRINT_DPI) -> list[Path]:
    """PNG + PDF of the sheet on A3 (the layout as given) and on A4 (scaled by 1/√2), plus the
    A4 layout, which is what `alea calibrate --layout` needs for a sheet printed on A4."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for paper, lay in (("a3", layout), ("a4", layout.scaled(A4_FROM_A3, "A4"))):
        img = render_sheet(lay, dpi / MM_PER_INCH)
        png, pdf = out / f"markers-{paper}.png", out / f"markers-{paper}.pdf"
        cv2.imwrite(str(png), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        write_pdf(pdf, img, lay.width, lay.height)
        written += [png, pdf]
        if paper == "a4":
            import json

            lay_file = out / "layout-a4.json"
            lay_file.write_text(json.dumps(lay.to_json(), indent=2) + "\n", encoding="utf-8")
            written.append(lay_file)
    return written


ZONE_COLORS = {  # BGR, for previews and the video overlay
    "templum": (0, 200, 255),
    "senatus": (255, 120, 0),
    "castrum": (0, 0, 220),
    "forum": (0, 170, 0),
    "latrina": (160, 60, 160),
}


# A die's box in its player's colour (None: of no player's colour), BGR.
PLAYER_BGR: dict[str | None, tuple[int, int, int]] = {
    "grey": (150, 150, 150),
    "brown": (40, 75, 125),
    "blue": (190, 90, 30),
    "green": (60, 150, 50),
    "yellow": (20, 200, 240),
    None: (255, 255, 255),
}


def draw_zones(
    image: np.ndarray,
    layout: Layout,
    to_pixels: Callable[[np.ndarray], np.ndarray],
    width: int = 2,
    tolerance: bool = False,
    labels: bool = False,
) -> None:
    """Outline every zone and Forum pedestal on `image` in place, in its ZONE_COLORS, with
    `to_pixels` mapping board mm to the image's pixels (the rectified board's scale, or the
    calibration into a camera frame); with `tolerance` the tolerance band thin around each."""
    shapes: list[tuple[str, Zone, int | None]] = [(n, z, None) for n, z in layout.zones.items()]
    shapes += [("forum", z, i) for i, z in enumerate(layout.pedestals)]
    for name, zone, index in shapes:
        color = ZONE_COLORS[name]
        pts = np.round(to_pixels(zone.polygon.astype(np.float64))).astype(np.int32)
        cv2.polylines(image, [pts], True, color, width, cv2.LINE_AA)
        if tolerance and layout.tolerance > 0:
            band = to_pixels(_grow(zone.polygon, layout.tolerance))
            cv2.polylines(image, [np.round(band).astype(np.int32)], True, color, 1, cv2.LINE_AA)
        if labels:
            x, y = pts.min(axis=0)
            label = name.upper() if index is None else str(index + 1)
            cv2.putText(
                image,
                label,
                (int(x + 4), int(y + 18)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.55,
                color,
                2,
                cv2.LINE_AA,
            )


def draw_layout(board_bgr: np.ndarray, layout: Layout, tolerance: bool = True) -> np.ndarray:
    """The rectified board with each zone outlined (and its tolerance band dashed-thin), Forum
    pedestals numbered, and the markers boxed: what `alea calibrate` shows to check a setup."""
    out = board_bgr.copy()
    s = layout.px_per_mm
    draw_zones(out, layout, lambda mm: mm * s - 0.5, 2, tolerance, labels=True)
    for mid in layout.markers:
        c = np.round(layout.marker_corners(mid) * s - 0.5).astype(np.int32)
        cv2.polylines(out, [c], True, (0, 140, 255), 1, cv2.LINE_AA)
    return out


def _grow(polygon: np.ndarray, by: float) -> np.ndarray:
    """The outline `by` mm outside a convex polygon (offset each vertex along its bisector)."""
    pts = polygon.astype(np.float64)
    centre = pts.mean(axis=0)
    out = []
    n = len(pts)
    for i in range(n):
        prev, cur, nxt = pts[i - 1], pts[i], pts[(i + 1) % n]
        normals = []
        for a, b in ((prev, cur), (cur, nxt)):
            d = (b - a) / (np.linalg.norm(b - a) or 1)
            nrm = np.array([d[1], -d[0]])
            if np.dot(nrm, cur - centre) < 0:
                nrm = -nrm
            normals.append(nrm)
        bis = normals[0] + normals[1]
        bis /= np.linalg.norm(bis) or 1
        cos = max(np.dot(bis, normals[0]), 0.2)
        out.append(cur + bis * by / cos)
    return np.array(out)
