"""`alea scan`, `alea calibrate`, `alea markers`, `alea board` as CONTRACT.md fixes them, the scan
pipeline end to end with a fake detector, and the frame sources."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from scanner import cli
from scanner.commands import vision as vision_commands
from scanner.errors import InputError
from scanner.vision.calibrate import calibrate
from scanner.vision.camera import open_source, read_image
from scanner.vision.layout import Layout, default_layout
from scanner.vision.scan import scan_image
from tests.cli import alea, assert_bad_input
from tests.fake_detector import FakeDetector
from tests.scenes import render_scene, table_texture

# The synthetic dice are printed flat on the sheet: no height, so no parallax to undo.
LAY = Layout.from_json({**default_layout().to_json(), "parallax_height": 0})
FIVE = ["grey", "brown", "blue", "green", "yellow"]
DICE = [
    (100, 100, "blue", 5),  # Templum
    (80, 80, "green", 3),
    (120, 125, "green", 6),
    (190, 90, "grey", 3),  # Senate run
    (210, 90, "grey", 4),
    (230, 90, "grey", 5),
    (300, 80, "brown", 4),  # Castrum set of two
    (340, 125, "brown", 4),
    (102, 175, "blue", 2),  # Forum, pedestals 2, 1, 3
    (72, 175, "green", 1),
    (132, 175, "grey", 2),
    (320, 200, "yellow", 6),  # Latrina
    (150, 262, "blue", 1),  # on the sheet, in no building
]
EXPECTED = {
    "players": FIVE,
    "templum": {"blue": [5], "green": [3, 6]},
    "senatus": {"grey": [3, 4, 5]},
    "castrum": [{"player": "brown", "value": 4, "count": 2}],
    "forum": [
        {"player": "green", "value": 1},
        {"player": "blue", "value": 2},
        {"player": "grey", "value": 2},
    ],
    "latrina": {"yellow": 1},
    "supply": {"grey": 4, "brown": 6, "blue": 6, "green": 5, "yellow": 7},
}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A photo of the table with dice, and a calibration profile made from another photo."""
    d = tmp_path_factory.mktemp("table")
    rng = np.random.default_rng(2024)
    empty = render_scene(LAY, rng)
    scene = render_scene(LAY, rng, dice=DICE)
    cv2.imwrite(str(d / "empty.png"), empty.image)
    cv2.imwrite(str(d / "table.png"), scene.image)
    cv2.imwrite(str(d / "nothing.png"), table_texture(rng).astype(np.uint8))
    (d / "cal.json").write_text(json.dumps(calibrate(empty.image, LAY).to_json()))
    return d, scene


@pytest.mark.parametrize("seed", range(3))
def test_scan_pipeline_end_to_end(seed):
    rng = np.random.default_rng(seed)
    scene = render_scene(LAY, rng, dice=DICE)
    cal = calibrate(render_scene(LAY, rng).image, LAY)  # profile from another camera pose
    reading = scan_image(scene.image, cal, FakeDetector().detect, FIVE)
    assert reading.state.to_json() == EXPECTED
    assert reading.warnings == []
    assert len(reading.dice) == len(DICE)
    # Each die's box in the photo contains where that die truly is in the photo.
    truth = cv2.perspectiveTransform(
        np.array([[d[:2] for d in DICE]], np.float64), scene.board_to_image
    ).reshape(-1, 2)
    for die in reading.dice:
        x0, y0, x1, y1 = die.image_xyxy
        inside = [(x0 <= x <= x1 and y0 <= y <= y1) for x, y in truth]
        assert sum(inside) == 1
        i = inside.index(True)
        assert (die.color, die.value) == DICE[i][2:]
        assert np.hypot(*(np.array(die.center_mm) - DICE[i][:2])) < 3.0


def test_scan_cli_contract(table, monkeypatch, capsys):
    d, _ = table
    fake = FakeDetector()
    monkeypatch.setattr(vision_commands, "load_detector", lambda model: fake.detect)
    rc = cli.main(
        [
            "scan",
            str(d / "table.png"),
            "--calibration",
            str(d / "cal.json"),
            "--players",
            "grey,brown,blue",
            "green",
            "yellow",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and set(out) == {"state", "dice", "warnings"}
    assert out["state"] == EXPECTED and out["warnings"] == []
    for die in out["dice"]:
        assert {"value", "color", "confidence", "bbox", "building"} <= set(die)
        assert len(die["bbox"]) == 4 and die["bbox"][2] > die["bbox"][0]
    assert sorted(str(x["building"]) for x in out["dice"]) == sorted(
        ["templum"] * 3 + ["senatus"] * 3 + ["castrum"] * 2 + ["forum"] * 3 + ["latrina", "None"]
    )


def test_scan_of_several_photos_loads_the_model_once_and_prints_a_line_each(
    table, monkeypatch, capsys
):
    """#22: `alea scan IMAGE [IMAGE ...]`, like `alea dice`."""
    d, _ = table
    fake, loads = FakeDetector(), []
    monkeypatch.setattr(
        vision_commands, "load_detector", lambda model: loads.append(model) or fake.detect
    )
    photos = [str(d / "table.png"), str(d / "nothing.png"), str(d / "table.png")]
    rc = cli.main(["scan", *photos, "--calibration", str(d / "cal.json"), "--players", *FIVE])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 0 and len(loads) == 1
    assert [out["path"] for out in lines] == photos
    assert lines[0]["state"] == EXPECTED == lines[2]["state"] and lines[1]["state"] is None
    # A missing photo anywhere in the list is found before the first is read.
    rc = cli.main(["scan", photos[0], str(d / "typo.png"), "--calibration", str(d / "cal.json")])
    out = capsys.readouterr().out.splitlines()
    assert rc == 2 and len(out) == 1 and json.loads(out[0])["error"]["path"] == "$.images[1]"
    assert len(loads) == 1


def test_scan_without_a_board_is_state_null(table, monkeypatch, capsys):
    d, _ = table
    fake = FakeDetector()
    monkeypatch.setattr(vision_commands, "load_detector", lambda model: fake.detect)
    rc = cli.main(["scan", str(d / "nothing.png"), "--calibration", str(d / "cal.json")])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["state"] is None and out["dice"] == []
    assert len(out["warnings"]) == 1 and "board not found: no markers" in out["warnings"][0]
    assert fake.calls == 0


def test_scan_with_fixed_camera_uses_the_stored_calibration(table, monkeypatch, capsys):
    d, _ = table
    # Hide every marker of the calibration photo's view: same camera, hands all over the edges.
    img = cv2.imread(str(d / "empty.png"))
    from scanner.vision.calibrate import Calibration

    cal = Calibration.load(d / "cal.json")
    for mid in LAY.markers:
        pts = cal.board_to_image(LAY.marker_corners(mid)).astype(np.int32)
        cv2.fillConvexPoly(img, pts, (120, 160, 210))
    path = d / "covered.png"
    cv2.imwrite(str(path), img)
    monkeypatch.setattr(vision_commands, "load_detector", lambda model: FakeDetector().detect)
    assert cli.main(["scan", str(path), "--calibration", str(d / "cal.json")]) == 0
    assert json.loads(capsys.readouterr().out)["state"] is None
    assert (
        cli.main(["scan", str(path), "--calibration", str(d / "cal.json"), "--fixed-camera"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["state"] is not None
    assert "using the stored calibration" in out["warnings"][0]
    # Two adjacent markers left in view: alone they fit with a warning; with --fixed-camera the
    # stored 8-marker fit stays in use, as they agree with it.
    img = cv2.imread(str(d / "empty.png"))
    for mid in [1, 2, 4, 5, 6, 7]:
        pts = cal.board_to_image(LAY.marker_corners(mid)).astype(np.int32)
        cv2.fillConvexPoly(img, pts, (120, 160, 210))
    cv2.imwrite(str(path), img)
    assert (
        cli.main(
            ["scan", str(path), "--calibration", str(d / "cal.json"), "--players", "grey,blue"]
        )
        == 0
    )
    assert "lie along one edge" in json.loads(capsys.readouterr().out)["warnings"][0]
    argv = ["scan", str(path), "--calibration", str(d / "cal.json"), "--fixed-camera"]
    assert cli.main([*argv, "--players", "grey", "blue"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []


def test_scan_without_a_detector_is_a_clear_error(table):
    d, _ = table
    rc, out, err = alea(
        "scan",
        str(d / "table.png"),
        "--calibration",
        str(d / "cal.json"),
        "--model",
        str(d / "no-such-model.onnx"),
    )
    assert_bad_input(rc, out, err, code="model.missing")


def test_scan_bad_inputs(table, capsys):
    d, _ = table
    cases = [
        (["scan", str(d / "missing.png"), "--calibration", str(d / "cal.json")], "input.not-found"),
        (["scan", str(d / "cal.json"), "--calibration", str(d / "cal.json")], "image.unreadable"),
        (
            ["scan", str(d / "table.png"), "--calibration", str(d / "table.png")],
            "calibration.unreadable",
        ),
        (
            [
                "scan",
                str(d / "table.png"),
                "--calibration",
                str(d / "cal.json"),
                "--players",
                "red,blue",
            ],
            "value.color",
        ),
    ]
    for argv, code in cases:
        rc = cli.main(argv)
        captured = capsys.readouterr()
        out = json.loads(captured.out)
        assert rc == 2 and out["error"]["code"] == code, (argv, out)
        assert len(captured.err.strip().splitlines()) == 1


def test_calibrate_cli(table, tmp_path):
    d, _ = table
    rc, out, err = alea("calibrate", str(d / "empty.png"), "--out", str(tmp_path / "c.json"))
    assert rc == 0, err
    assert out["markers"] == list(range(8)) and out["error_mm"] < 1 and out["warnings"] == []
    profile = json.loads((tmp_path / "c.json").read_text())
    assert profile["schema"] == "alea.calibration/1" and profile["layout"]["zones"]
    preview = cv2.imread(str(tmp_path / "c.png"))
    assert preview.shape == (891, 1260, 3)
    rc, out, err = alea("calibrate", str(d / "nothing.png"), "--out", str(tmp_path / "x.json"))
    assert_bad_input(rc, out, err, code="calibration.no-board")
    assert not (tmp_path / "x.json").exists()


def test_markers_cli(tmp_path, capsys):
    assert cli.main(["markers", "--out", str(tmp_path), "--dpi", "100"]) == 0
    written = json.loads(capsys.readouterr().out)["written"]
    names = sorted(p.rsplit("/", 1)[-1] for p in written)
    assert names == [
        "layout-a4.json",
        "markers-a3.pdf",
        "markers-a3.png",
        "markers-a4.pdf",
        "markers-a4.png",
    ]
    a4 = cv2.imread(str(tmp_path / "markers-a4.png"), cv2.IMREAD_GRAYSCALE)
    assert abs(a4.shape[1] - 297 / 25.4 * 100) <= 1  # A4 landscape at 100 dpi


def test_board_cli_runs_the_board_stage_alone(tmp_path, capsys):
    s = LAY.px_per_mm
    dice = [
        {
            "value": 3,
            "color": "blue",
            "confidence": 0.8,
            "bbox": [(x - 8) * s, (y - 8) * s, (x + 8) * s, (y + 8) * s],
        }
        for x, y in [(72, 175), (320, 200)]
    ]
    path = tmp_path / "dice.json"
    path.write_text(json.dumps({"dice": dice}))
    assert cli.main(["board", str(path), "--players", "blue", "green"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"]["forum"] == [{"player": "blue", "value": 3}]
    assert out["state"]["latrina"] == {"blue": 1}
    path.write_text(json.dumps({"dice": [{**dice[0], "value": 7}]}))
    assert cli.main(["board", str(path)]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["path"] == "$.dice[0].value"


# ------------------------------------------------------------------------- frame sources
def test_folder_source_is_sorted(tmp_path):
    for name, v in [("b.png", 2), ("a.png", 1), ("c.jpg", 3)]:
        cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), v * 40, np.uint8))
    (tmp_path / "notes.txt").write_text("not a frame")
    frames = list(open_source(str(tmp_path)))
    assert [f.name for f in frames] == ["a.png", "b.png", "c.jpg"]
    assert [f.index for f in frames] == [0, 1, 2]
    looped = open_source(str(tmp_path), loop=True)
    assert [f.name for _, f in zip(range(5), looped, strict=False)][3:] == ["a.png", "b.png"]


def test_video_source(tmp_path):
    path = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    with open_source(str(path)) as src:
        frames = list(src)
    assert len(frames) == 5 and frames[0].image.shape == (48, 64, 3)


def test_bad_sources(tmp_path):
    codes = []
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad.mp4").write_text("not a video")
    for spec in [str(tmp_path / "none"), str(tmp_path / "empty"), str(tmp_path / "bad.mp4"), 47]:
        with pytest.raises(InputError) as err:
            open_source(spec)
        codes.append(err.value.code)
    assert codes == ["camera.not-found", "camera.empty", "camera.unreadable", "camera.not-found"]
    with pytest.raises(InputError):
        read_image(tmp_path / "bad.mp4")


def test_watch_cli_on_a_folder(table, tmp_path, monkeypatch, capsys):
    d, scene = table
    rng = np.random.default_rng(3)
    for i in range(8):
        noisy = scene.image.astype(np.float32) + rng.normal(0, 2, scene.image.shape)
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), np.clip(noisy, 0, 255).astype(np.uint8))
    monkeypatch.setattr(vision_commands, "load_detector", lambda model: FakeDetector().detect)
    rc = cli.main(
        ["watch", str(tmp_path), "--calibration", str(d / "cal.json"), "--players", *FIVE]
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and len(lines) == 1
    out = json.loads(lines[0])
    assert out["state"] == EXPECTED and out["name"] == f"{out['frame']:03d}.png"
