"""Calibration on synthetic camera views: the printed sheet warped by random camera poses, with
noise and blur; errors measured in board millimetres against the true homography."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from scanner.errors import InputError
from scanner.vision.calibrate import (
    BoardNotFound,
    Calibration,
    Lens,
    calibrate,
    find_markers,
    fit,
    spread_warning,
)
from scanner.vision.layout import Layout, default_layout
from scanner.vision.sheet import A4_FROM_A3, board_to_pixels, render_sheet, write_pdf
from scanner.vision.tracking import Calibrator
from tests.scenes import homography_error_mm, render_scene, table_texture

LAY = default_layout()
EDGE_MARKERS = (4, 5, 6, 7)


def corners_only() -> Layout:
    """The default layout with just its 4 corner markers."""
    data = LAY.to_json()
    data["markers"]["positions"] = [m for m in data["markers"]["positions"] if m["id"] < 4]
    return Layout.from_json(data)


@pytest.mark.parametrize("seed", range(4))
def test_random_poses_calibrate_to_a_fraction_of_a_millimetre(seed):
    rng = np.random.default_rng(seed)
    scene = render_scene(LAY, rng)
    cal = calibrate(scene.image, LAY)
    assert cal.markers == tuple(range(8))
    err = homography_error_mm(cal, scene, LAY)
    assert err.max() < 0.5, err.max()
    assert cal.error_mm < 0.6


def test_upside_down_camera():
    rng = np.random.default_rng(11)
    from tests.scenes import camera_pose

    scene = render_scene(LAY, rng, pose=camera_pose(LAY, rng, roll=180))
    assert homography_error_mm(calibrate(scene.image, LAY), scene, LAY).max() < 0.5


@pytest.mark.parametrize(
    "visible, limit_mm",
    [
        ((0, 1, 2), 1.5),  # 3 of 4 corners
        ((0, 2), 3.0),  # 2 diagonal corners: 2 of 4 covered
        ((1, 3), 3.0),
    ],
)
def test_covered_corner_markers_still_calibrate(visible, limit_mm):
    lay = corners_only()
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        scene = render_scene(lay, rng, hide_markers=[m for m in range(4) if m not in visible])
        cal = calibrate(scene.image, lay)
        assert cal.markers == visible
        assert spread_warning(cal) is None  # spread across the sheet: no warning
        err = homography_error_mm(cal, scene, lay)
        assert err.max() < limit_mm, (visible, err.max())


def test_two_adjacent_markers_calibrate_with_a_warning():
    lay = corners_only()
    rng = np.random.default_rng(7)
    scene = render_scene(lay, rng, hide_markers=[2, 3])
    cal = calibrate(scene.image, lay)
    assert cal.markers == (0, 1)
    assert homography_error_mm(cal, scene, lay).max() < 8.0
    assert "lie along one edge" in spread_warning(cal)
    full = calibrate(render_scene(lay, rng).image, lay)
    assert spread_warning(full) is None


def test_one_marker_or_none_is_no_board():
    rng = np.random.default_rng(3)
    scene = render_scene(LAY, rng, hide_markers=[1, 2, 3, 4, 5, 6, 7])
    with pytest.raises(BoardNotFound, match="marker 0 of the sheet visible, at least 2"):
        calibrate(scene.image, LAY)
    table = table_texture(rng).astype(np.uint8)
    with pytest.raises(BoardNotFound, match="no markers"):
        calibrate(table, LAY)


def test_a_misplaced_marker_is_left_out_and_a_bent_sheet_rejected():
    # Exact corners of 6 markers, plus marker 7 printed 30 mm from where the layout says.
    h = np.array([[1.4, 0.1, 200], [-0.05, 1.3, 90], [1e-5, 2e-5, 1]])
    found = {}
    for mid in range(8):
        board = LAY.marker_corners(mid).astype(np.float64)
        if mid == 7:
            board = board + [30, 0]
        found[mid] = cv2.perspectiveTransform(board.reshape(-1, 1, 2), h).reshape(4, 2)
    cal = fit(found, LAY, (1280, 720))
    assert cal.markers == (0, 1, 2, 3, 4, 5, 6)
    assert cal.error_mm < 0.01
    # Every corner off by ~2 mm at random: no flat sheet fits to the limit.
    rng = np.random.default_rng(0)
    scale = np.sqrt(abs(np.linalg.det(h[:2, :2])))
    noisy = {m: c + rng.normal(0, 2.0 * scale, c.shape) for m, c in found.items() if m != 7}
    with pytest.raises(BoardNotFound, match="fit a flat sheet only to"):
        fit(noisy, LAY, (1280, 720), max_error_mm=1.5)


def test_rectified_board_is_top_down_at_the_fixed_scale():
    rng = np.random.default_rng(21)
    scene = render_scene(LAY, rng)
    cal = calibrate(scene.image, LAY)
    board = cal.rectify(scene.image)
    w, h = cal.rectified_size
    assert board.shape == (h, w, 3) and (w, h) == (1260, 891)
    # The markers in the rectified image sit where the layout says, to well under a millimetre.
    for mid, corners in find_markers(board, LAY).items():
        expected = cal.board_to_rectified(LAY.marker_corners(mid))
        assert np.abs(corners - expected).max() / LAY.px_per_mm < 0.5


def test_lens_distortion_is_undone():
    rng = np.random.default_rng(31)
    scene = render_scene(LAY, rng)
    k = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])
    lens = Lens(k, np.array([-0.25, 0.08, 0, 0, 0]))
    # Distort the ideal image: each distorted pixel samples the ideal image where it came from.
    xs, ys = np.meshgrid(np.arange(1280), np.arange(720))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
    src = lens.undistort(grid).astype(np.float32)
    distorted = cv2.remap(
        scene.image, src[:, 0].reshape(720, 1280), src[:, 1].reshape(720, 1280), cv2.INTER_LINEAR
    )
    naive = calibrate(distorted, LAY, max_error_mm=50)
    with_lens = calibrate(distorted, LAY, lens)
    # Compare at true positions, seen through the lens.
    board = np.array([[x, y] for x in range(60, 361, 50) for y in range(60, 241, 45)], np.float64)
    ideal = cv2.perspectiveTransform(board.reshape(-1, 1, 2), scene.board_to_image).reshape(-1, 2)
    seen = lens.distort(ideal)
    err_lens = np.linalg.norm(with_lens.image_to_board(seen) - board, axis=1).max()
    err_naive = np.linalg.norm(naive.image_to_board(seen) - board, axis=1).max()
    assert err_lens < 0.5 < 2 * err_naive, (err_lens, err_naive)
    # And the rectified board comes out straight through the lens model too.
    rect = with_lens.rectify(distorted)
    for mid, corners in find_markers(rect, LAY).items():
        expected = with_lens.board_to_rectified(LAY.marker_corners(mid))
        assert np.abs(corners - expected).max() / LAY.px_per_mm < 0.5


def test_calibrator_keeps_the_last_good_fit_under_hands_and_refits_after_a_move():
    rng = np.random.default_rng(41)
    scene = render_scene(LAY, rng)
    live = Calibrator(LAY)
    first = live.update(scene.image)
    assert first is not None and len(first.markers) == 8
    # Hands over 6 markers: the fit with 8 stays.
    covered = render_scene(LAY, rng, pose=scene.board_to_image, hide_markers=[1, 2, 4, 5, 6, 7])
    assert live.update(covered.image) is first
    # Hands over 7: no fit possible, the last good one is kept and the reason given.
    worse = render_scene(LAY, rng, pose=scene.board_to_image, hide_markers=[1, 2, 3, 4, 5, 6, 7])
    assert live.update(worse.image) is first
    assert "at least 2" in live.reason
    # The camera is bumped: markers in view disagree with the kept fit, so it is replaced.
    moved = render_scene(LAY, rng, hide_markers=[4, 5, 6])
    cal = live.update(moved.image)
    assert cal is not first and homography_error_mm(cal, moved, LAY).max() < 1.0
    # Bumped again with one marker visible: better no board than the wrong one.
    lone = render_scene(LAY, rng, hide_markers=[1, 2, 3, 4, 5, 6, 7])
    assert live.update(lone.image) is None
    assert "moved" in live.reason


def test_profile_round_trip_and_bad_profiles(tmp_path):
    rng = np.random.default_rng(51)
    scene = render_scene(LAY, rng)
    cal = calibrate(scene.image, LAY)
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal.to_json()))
    back = Calibration.load(path)
    assert np.allclose(back.homography, cal.homography) and back.markers == cal.markers
    assert back.layout == cal.layout
    with pytest.raises(InputError) as err:
        Calibration.from_json({**cal.to_json(), "homography": [[1, 0], [0, 1]]})
    assert err.value.path == "$.homography"
    with pytest.raises(InputError, match="not a calibration profile"):
        Calibration.from_json({"players": []})
    bad_layout = cal.to_json()
    bad_layout["layout"]["zones"]["forum"]["pedestals"] = bad_layout["layout"]["zones"]["forum"][
        "pedestals"
    ][:2]
    with pytest.raises(InputError) as err:
        Calibration.from_json(bad_layout)
    assert err.value.path == "$.layout.zones.forum.pedestals"


def test_a4_sheet_with_its_layout():
    a4 = LAY.scaled(A4_FROM_A3, "A4")
    assert round(a4.width) == 297 and round(a4.height) == 210 and a4.tolerance == LAY.tolerance
    rng = np.random.default_rng(61)
    scene = render_scene(a4, rng)
    assert homography_error_mm(calibrate(scene.image, a4), scene, a4).max() < 0.5
    # The A3 layout on an A4 print is a flat sheet at the wrong scale: it fits, 1/√2 too small.
    wrong = calibrate(scene.image, LAY)
    assert wrong.error_mm < 0.5
    assert np.abs(homography_error_mm(wrong, scene, a4)).max() > 20


def test_sheet_image_matches_the_layout_and_the_pdf_is_well_formed(tmp_path):
    img = render_sheet(LAY, 4)
    assert img.shape == (1188, 1680)
    found = find_markers(img, LAY)
    assert sorted(found) == list(range(8))
    for mid, corners in found.items():
        expected = cv2.perspectiveTransform(
            LAY.marker_corners(mid).reshape(-1, 1, 2).astype(np.float64), board_to_pixels(4)
        ).reshape(4, 2)
        assert np.abs(corners - expected).max() < 1.0  # pixels at 4 px/mm
    pdf = tmp_path / "s.pdf"
    write_pdf(pdf, img, LAY.width, LAY.height)
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    assert data[xref : xref + 4] == b"xref"
    offsets = [int(o) for o in re.findall(rb"(\d{10}) 00000 n", data)]
    for i, off in enumerate(offsets, start=1):
        assert data[off:].startswith(f"{i} 0 obj".encode())
    mediabox = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert abs(float(mediabox.group(1)) - 420 / 25.4 * 72) < 0.01  # A3 at 100 %


def test_camera_position_and_parallax_correction():
    """A die's box centre is a point ~8 mm above the board; the camera sees it pushed outwards.
    From the calibration alone (focal length estimated), the push is undone to under 1 mm."""
    from scanner.vision.zones import undo_parallax
    from tests.scenes import camera_pose

    worst_raw, worst_fixed = 0.0, 0.0
    for seed in range(5):
        rng = np.random.default_rng(300 + seed)
        hom, k, r, t, cam = camera_pose(LAY, rng, full=True)
        scene = render_scene(LAY, rng, pose=hom)
        cal = calibrate(scene.image, LAY)
        x, y, height = cal.camera_position()
        assert np.hypot(x - cam[0], y - cam[1]) < 25 and abs(height + cam[2]) < 0.05 * -cam[2]
        for bx, by in [(60, 60), (360, 60), (360, 240), (60, 240), (210, 150)]:
            lifted = np.array([bx, by, -8.0])  # 8 mm above the board
            img = k @ (r @ lifted + t)
            seen = cal.image_to_board(img[:2] / img[2])[0]
            fixed = undo_parallax((seen[0], seen[1]), (x, y, height), 8.0)
            worst_raw = max(worst_raw, float(np.hypot(seen[0] - bx, seen[1] - by)))
            worst_fixed = max(worst_fixed, float(np.hypot(fixed[0] - bx, fixed[1] - by)))
    assert worst_raw > 2.5  # the shift the tolerance band alone would have to absorb
    assert worst_fixed < 1.0, worst_fixed


def test_calibrator_drops_a_fit_made_for_another_resolution():
    rng = np.random.default_rng(71)
    scene = render_scene(LAY, rng)
    cal = calibrate(scene.image, LAY)
    live = Calibrator(LAY, initial=cal)
    half = cv2.resize(scene.image, (640, 360))
    hidden = render_scene(LAY, rng, pose=scene.board_to_image, hide_markers=range(8))
    assert live.update(hidden.image) is cal  # same resolution, nothing in view: kept
    assert live.update(cv2.resize(hidden.image, (640, 360))) is None
    refit = live.update(half)
    assert refit is not None and refit.image_size == (640, 360)


class CountingDetector:
    """An ArUco detector that counts its searches."""

    def __init__(self, inner) -> None:
        self.inner, self.searches = inner, 0

    def detectMarkers(self, gray):  # noqa: N802 (OpenCV's name)
        self.searches += 1
        return self.inner.detectMarkers(gray)


def noisy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same view with a new frame's sensor noise."""
    return np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)


def test_a_still_camera_is_not_searched_for_markers_every_frame():
    rng = np.random.default_rng(43)
    scene = render_scene(LAY, rng)
    live = Calibrator(LAY)
    live._detector = counting = CountingDetector(live._detector)
    fitted = live.update(scene.image)
    # The same view with new sensor noise: the fit stands, no search.
    for _ in range(3):
        assert live.update(noisy(scene.image, rng)) is fitted
    assert counting.searches == 1
    # A hand over one marker changes its pixels: searched again (and the fit with 8 kept).
    covered = scene.image.copy()
    x0, y0 = find_markers(scene.image, LAY)[3].min(axis=0).astype(int)
    covered[y0 : y0 + 25, x0 : x0 + 25] = (90, 120, 170)
    assert live.update(covered) is fitted and counting.searches == 2
    # The camera nudged by a third of a pixel: searched, and the new fit used.
    shifted = cv2.warpAffine(scene.image, np.float64([[1, 0, 0.33], [0, 1, 0]]), (1280, 720))
    moved = live.update(shifted)
    assert counting.searches == 3 and moved is not fitted
    # However still the view, a search now and then (a marker hidden at the fit comes back).
    kept = [live.update(noisy(shifted, rng)) for _ in range(live.watch.recheck + 1)]
    assert counting.searches == 4
    assert all(k is moved for k in kept[:-1]) and kept[-1] is not moved


def test_a_profile_written_again_is_whole_or_left_as_it_was(tmp_path, monkeypatch):
    """`alea calibrate --out` over a profile that works: a write that fails half way (a kill, a
    full disk) must not leave the table without its profile."""
    from pathlib import Path

    from scanner.store import write_json

    cal = calibrate(render_scene(LAY, np.random.default_rng(52)).image, LAY)
    path = tmp_path / "cal.json"
    write_json(path, cal.to_json())
    before = path.read_bytes()
    real = Path.write_text

    def half(self, text, *args, **kwargs):
        real(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError("no space left on device")

    monkeypatch.setattr(Path, "write_text", half)
    with pytest.raises(OSError):
        write_json(path, {**cal.to_json(), "players": ["grey"]})
    monkeypatch.undo()
    assert path.read_bytes() == before and Calibration.load(path).markers == cal.markers
