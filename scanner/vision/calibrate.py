"""Camera frame → board millimetres: find the ArUco markers, fit a homography, rectify the board.

Every visible marker gives 4 corners whose board position is known from the layout, so with 2 or
more markers a homography maps image pixels to board mm. All corners of all visible markers go
into one fit (subpixel-refined, RANSAC against a misread marker), and a fit whose corners miss
their known positions by more than `max_error_mm` is rejected rather than trusted.

The rectified board is a top-down image at the layout's fixed `px_per_mm`, so a die has the same
size in pixels wherever it lies and whatever the camera: the detector is trained at that scale.

With a camera matrix and distortion coefficients in the profile (from a separate lens
calibration), corners are undistorted before the fit and rectification remaps through the lens
model. Without them the lens is taken as ideal, which is fine for most webcams at this range.

`scanner.vision.tracking.Calibrator` is the live loop's version: it keeps the last good
calibration while hands cover markers and refits when the camera has moved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scanner.errors import InputError
from scanner.inputs import expect_number, is_int, read_json_file
from scanner.vision.layout import Layout
from scanner.vision.palette import Palette
from scanner.vision.sheet import aruco_dictionary, board_to_pixels

SCHEMA = "alea.calibration/1"
MIN_MARKERS = 2
MAX_ERROR_MM = 1.5  # RMS corner error above which a fit is not trusted
RANSAC_MM = 4.0


class BoardNotFound(Exception):
    """The frame does not show enough of the marker sheet to locate the board; str() says why,
    `why` says it as a message id and its facts, for a page in another language."""

    def __init__(self, message: str, why: str, **facts: object) -> None:
        super().__init__(message)
        self.why = {"id": why, **facts}


@dataclass(frozen=True)
class Lens:
    """A camera's intrinsics (3×3 matrix) and OpenCV distortion coefficients."""

    matrix: np.ndarray
    distortion: np.ndarray

    def undistort(self, pts: np.ndarray) -> np.ndarray:
        """Distorted pixel coordinates → ideal (pinhole) pixel coordinates, same matrix."""
        p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.undistortPoints(p, self.matrix, self.distortion, P=self.matrix).reshape(-1, 2)

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Ideal pixel coordinates → where the real lens puts them."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        norm = cv2.undistortPoints(p.reshape(-1, 1, 2), self.matrix, None).reshape(-1, 2)
        obj = np.concatenate([norm, np.ones((len(norm), 1))], axis=1)
        zero = np.zeros(3)
        img, _ = cv2.projectPoints(obj, zero, zero, self.matrix, self.distortion)
        return img.reshape(-1, 2)

    def to_json(self) -> dict:
        return {"matrix": self.matrix.tolist(), "distortion": self.distortion.ravel().tolist()}

    @classmethod
    def from_json(cls, data: Any, path: str = "$") -> Lens:
        try:
            matrix = np.array(data["matrix"], np.float64)
            dist = np.array(data.get("distortion", []), np.float64).ravel()
        except (TypeError, KeyError, ValueError):
            raise InputError(
                "calibration.lens",
                "a lens is {matrix: 3×3, distortion: [k1, k2, p1, p2, k3]}",
                path,
            ) from None
        if matrix.shape != (3, 3) or dist.size not in (0, 4, 5, 8, 12, 14):
            raise InputError("calibration.lens", "matrix must be 3×3, distortion 4–14 values", path)
        return cls(matrix, dist if dist.size else np.zeros(5))


@dataclass
class Calibration:
    """Where the board is in one camera's frames: the homography from (undistorted) image pixels
    to board mm, the layout it refers to, and how good the fit was."""

    homography: np.ndarray  # 3×3, image px → board mm
    image_size: tuple[int, int]  # width, height of the frames it was fitted on
    layout: Layout
    markers: tuple[int, ...] = ()  # marker ids the fit used
    error_mm: float = 0.0  # RMS distance of the used corners from their known positions
    lens: Lens | None = None
    # The players' dice colours learnt at this table (`alea palette`); None: not taken yet.
    palette: Palette | None = None
    _maps: tuple | None = field(default=None, repr=False, compare=False)

    # ----------------------------------------------------------------------- mapping
    @property
    def px_per_mm(self) -> float:
        return self.layout.px_per_mm

    @property
    def rectified_size(self) -> tuple[int, int]:
        s = self.px_per_mm
        return int(round(self.layout.width * s)), int(round(self.layout.height * s))

    def image_to_board(self, pts: np.ndarray) -> np.ndarray:
        """Camera pixels (as the camera delivers them) → board mm."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        if self.lens is not None:
            p = self.lens.undistort(p)
        return _apply(self.homography, p)

    def board_to_image(self, pts: np.ndarray) -> np.ndarray:
        """Board mm → camera pixels (through the lens model when there is one)."""
        p = _apply(np.linalg.inv(self.homography), np.asarray(pts, np.float64).reshape(-1, 2))
        return p if self.lens is None else self.lens.distort(p)

    def rectified_to_board(self, pts: np.ndarray) -> np.ndarray:
        """Pixels of the rectified board image → board mm."""
        return _apply(np.linalg.inv(board_to_pixels(self.px_per_mm)), pts)

    def board_to_rectified(self, pts: np.ndarray) -> np.ndarray:
        return _apply(board_to_pixels(self.px_per_mm), pts)

    def camera_matrix(self) -> np.ndarray:
        """The lens's matrix, or one estimated from the homography (see `estimate_focal`)."""
        if self.lens is not None:
            return self.lens.matrix
        w, h = self.image_size
        f = estimate_focal(np.linalg.inv(self.homography), (w / 2, h / 2))
        return np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)

    def camera_position(self) -> tuple[float, float, float]:
        """Where the camera is: (x, y) of the board point straight below it and its height
        above the board, all in mm. Used to undo the parallax of a die's raised top face."""
        b = np.linalg.inv(self.camera_matrix()) @ np.linalg.inv(self.homography)
        scale = 2 / (np.linalg.norm(b[:, 0]) + np.linalg.norm(b[:, 1]))
        r1, r2, t = b[:, 0] * scale, b[:, 1] * scale, b[:, 2] * scale
        if t[2] < 0:  # the board is in front of the camera
            r1, r2, t = -r1, -r2, -t
        r = np.column_stack([r1, r2, np.cross(r1, r2)])
        u, _, vt = np.linalg.svd(r)  # nearest true rotation
        r = u @ vt
        centre = -r.T @ t
        return float(centre[0]), float(centre[1]), float(abs(centre[2]))

    def rectify(self, frame: np.ndarray) -> np.ndarray:
        """The board seen from straight above, `px_per_mm` pixels per millimetre."""
        size = self.rectified_size
        if self.lens is None:
            m = board_to_pixels(self.px_per_mm) @ self.homography
            return cv2.warpPerspective(frame, m, size, flags=cv2.INTER_LINEAR)
        if self._maps is None:
            # One remap table per calibration: rectified pixel → board mm → distorted image px.
            xs, ys = np.meshgrid(np.arange(size[0]), np.arange(size[1]))
            grid = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
            src = self.board_to_image(self.rectified_to_board(grid)).astype(np.float32)
            self._maps = (src[:, 0].reshape(size[1], size[0]), src[:, 1].reshape(size[1], size[0]))
        return cv2.remap(frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR)

    # ----------------------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        return {
            "schema": SCHEMA,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "markers": list(self.markers),
            "error_mm": round(self.error_mm, 4),
            "lens": None if self.lens is None else self.lens.to_json(),
            "layout": self.layout.to_json(),
            **({} if self.palette is None else {"palette": self.palette.to_json()}),
        }

    @classmethod
    def from_json(cls, data: Any, path: str = "$") -> Calibration:
        if not isinstance(data, dict):
            raise InputError("schema.type", "a calibration profile is a JSON object", path)
        if data.get("schema") != SCHEMA:
            raise InputError(
                "calibration.schema", f"not a calibration profile (schema {SCHEMA})", path
            )
        for key in ("image_size", "homography", "layout"):
            if key not in data:
                raise InputError("schema.missing", f"missing field {key!r}", path)
        try:
            h = np.array(data["homography"], np.float64)
            size = tuple(int(v) for v in data["image_size"])
        except (TypeError, ValueError):
            raise InputError(
                "schema.type", "homography is 3×3 numbers", f"{path}.homography"
            ) from None
        if h.shape != (3, 3) or not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-12:
            raise InputError(
                "calibration.homography",
                "homography must be an invertible 3×3",
                f"{path}.homography",
            )
        if len(size) != 2 or min(size) <= 0:
            raise InputError("schema.type", "image_size is [width, height]", f"{path}.image_size")
        lens = data.get("lens")
        markers, error_mm = data.get("markers", []), data.get("error_mm", 0.0)
        if not isinstance(markers, list) or not all(is_int(m) for m in markers):
            raise InputError("schema.type", "markers is a list of marker ids", f"{path}.markers")
        error_mm = expect_number(error_mm, f"{path}.error_mm", 0)
        return cls(
            homography=h,
            image_size=(size[0], size[1]),
            layout=Layout.from_json(data["layout"], f"{path}.layout"),
            markers=tuple(markers),
            error_mm=error_mm,
            lens=None if lens is None else Lens.from_json(lens, f"{path}.lens"),
            palette=(
                None
                if data.get("palette") is None
                else Palette.from_json(data["palette"], f"{path}.palette")
            ),
        )

    @classmethod
    def load(cls, file: str | Path) -> Calibration:
        return cls.from_json(read_json_file(file, "calibration", "calibration file"))


def estimate_focal(board_to_image: np.ndarray, principal: tuple[float, float]) -> float:
    """Focal length in pixels from one plane's homography, assuming square pixels and the
    principal point at `principal` (Zhang's two constraints, least squares in 1/f²).

    Near a straight-down view the homography barely depends on f; the estimate is then unsure,
    and a typical webcam's (70° across) is used instead; parallax hardly depends on it there.
    """
    cx, cy = principal
    g = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64) @ board_to_image
    a = np.array(
        [
            g[0, 0] * g[0, 1] + g[1, 0] * g[1, 1],
            g[0, 0] ** 2 + g[1, 0] ** 2 - g[0, 1] ** 2 - g[1, 1] ** 2,
        ]
    )
    b = np.array([g[2, 0] * g[2, 1], g[2, 0] ** 2 - g[2, 1] ** 2])
    typical = cx / np.tan(np.deg2rad(35))
    denom = float(a @ a)
    if denom == 0:
        return typical
    w = -float(a @ b) / denom  # 1 / f²
    if w <= 0:
        return typical
    f = 1 / np.sqrt(w)
    # Trust it only where the view is oblique enough to pin f down.
    if not 0.3 * cx < f < 6 * cx or np.hypot(*b) * f * f < 0.05 * np.hypot(*a):
        return typical
    return float(f)


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(p, h).reshape(-1, 2)


# ----------------------------------------------------------------------------- finding
def marker_detector(layout: Layout) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(aruco_dictionary(layout.marker_dictionary), params)


def find_markers(
    image: np.ndarray, layout: Layout, detector: cv2.aruco.ArucoDetector | None = None
) -> dict[int, np.ndarray]:
    """The layout's markers visible in `image`: id → 4×2 corners in image pixels.

    Markers of ids not in the layout are ignored; an id seen twice is dropped (it cannot be
    both places, and guessing which is real is what RANSAC would do worse)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = (detector or marker_detector(layout)).detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    for c, i in zip(corners, [] if ids is None else ids.ravel(), strict=False):
        mid = int(i)
        if mid not in layout.markers:
            continue
        if mid in found:
            twice.add(mid)
        found[mid] = np.asarray(c, np.float64).reshape(4, 2)
    for mid in twice:
        del found[mid]
    return found


def fit(
    found: dict[int, np.ndarray],
    layout: Layout,
    image_size: tuple[int, int],
    lens: Lens | None = None,
    max_error_mm: float = MAX_ERROR_MM,
) -> Calibration:
    """Fit the homography to the markers found; raise BoardNotFound with the reason."""
    if len(found) < MIN_MARKERS:
        seen = f"marker {next(iter(found))}" if found else "no markers"
        raise BoardNotFound(
            f"board not found: {seen} of the sheet visible, at least {MIN_MARKERS} are needed",
            "board.too-few",
            seen=sorted(found),
            need=MIN_MARKERS,
        )
    ids = sorted(found)
    img = np.concatenate([found[i] for i in ids])
    if lens is not None:
        img = lens.undistort(img)
    board = np.concatenate([layout.marker_corners(i) for i in ids]).astype(np.float64)
    h, mask = cv2.findHomography(img, board, cv2.RANSAC, RANSAC_MM, maxIters=2000, confidence=0.999)
    if h is None:
        raise BoardNotFound(
            "board not found: the markers seen do not fit a flat sheet", "board.not-flat"
        )
    inlier = np.asarray(mask.ravel().astype(bool).reshape(len(ids), 4).all(axis=1)).tolist()
    used = [i for i, ok in zip(ids, inlier, strict=True) if ok]
    if len(used) < MIN_MARKERS:
        raise BoardNotFound(
            f"board not found: markers {ids} do not agree on where the board is",
            "board.disagree",
            markers=ids,
        )
    if len(used) < len(ids):
        # Refit on the markers that agree, all their corners equally weighted.
        keep = np.repeat(inlier, 4)
        img, board = img[keep], board[keep]
        h, _ = cv2.findHomography(img, board, 0)
    err = float(np.sqrt(np.mean(np.sum((_apply(h, img) - board) ** 2, axis=1))))
    if not err <= max_error_mm:
        raise BoardNotFound(
            f"board not found: the markers fit a flat sheet only to {err:.1f} mm "
            f"(limit {max_error_mm} mm); is the sheet bent or a marker misprinted?",
            "board.bent",
            error_mm=round(err, 1),
            limit_mm=max_error_mm,
        )
    return Calibration(h, image_size, layout, tuple(used), err, lens)


def calibrate(
    image: np.ndarray,
    layout: Layout,
    lens: Lens | None = None,
    max_error_mm: float = MAX_ERROR_MM,
) -> Calibration:
    """Locate the board in one frame (see module docstring); raise BoardNotFound if it is not."""
    height, width = image.shape[:2]
    return fit(find_markers(image, layout), layout, (width, height), lens, max_error_mm)


def spread_warning(cal: Calibration) -> str | None:
    """A warning when the markers used all lie along one edge: the fit then extrapolates across
    the board and errors grow several-fold on the far side (with 2 adjacent markers:
    tests/test_calibrate.py)."""
    centres = np.array([cal.layout.markers[i][:2] for i in cal.markers])
    extent = centres.max(axis=0) - centres.min(axis=0)
    # Spread across both directions (2 diagonal corners, 3 corners, …): the fit interpolates.
    if extent[0] > 0.35 * cal.layout.width and extent[1] > 0.35 * cal.layout.height:
        return None
    return (
        f"only markers {list(cal.markers)} are visible and they lie along one edge; "
        "positions far from them may be off by several millimetres"
    )
