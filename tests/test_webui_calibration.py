"""The calibration wizard's API: sheets, the rectified view, saving an edited layout."""

import json

import pytest

from tests.conftest import PIN
from tests.test_table import oracle
from tests.test_webui_table import run_loop, still_table
from webui.table import load_layout


def test_sheets_are_served_and_nothing_else(app):
    c = app.test_client()
    res = c.get("/calibration/sheet/markers-a4.pdf")
    assert res.status_code == 200 and res.data[:5] == b"%PDF-"
    assert c.get("/calibration/sheet/layout.json").status_code == 404
    assert c.get("/calibration/sheet/..%2F..%2Fpyproject.toml").status_code == 404


def test_saving_a_layout_needs_the_pin_is_validated_and_persists(app, tmp_path):
    c = app.test_client()
    layout = c.get("/api/layout").get_json()
    layout["zones"]["latrina"]["rect"] = [290, 170, 370, 250]
    assert c.post("/api/layout", json=layout).status_code == 403
    res = c.post("/api/layout", json=layout, headers=PIN)
    assert res.status_code == 200
    saved = json.loads((tmp_path / "layout.json").read_text())
    assert saved["zones"]["latrina"]["rect"] == [290, 170, 370, 250]
    assert load_layout(app).zones["latrina"].polygon.min(axis=0).tolist() == [290, 170]
    bad = dict(layout, markers={"size": 40, "positions": []})
    res = c.post("/api/layout", json=bad, headers=PIN)
    assert res.status_code == 400 and res.get_json()["error"]["path"] == "$.markers.positions"
    assert json.loads((tmp_path / "layout.json").read_text()) == saved  # unchanged


@pytest.mark.parametrize(
    "edit, path",
    [
        (lambda lay: lay.update(note="x" * 100_000), "$.note"),
        (lambda lay: lay["zones"]["latrina"].update(colour="red"), "$.zones.latrina.colour"),
        (lambda lay: lay.update(comment="x" * 501), "$"),
        (lambda lay: lay["board"].update(paper=["A3"]), "$.board.paper"),
        (
            lambda lay: lay["zones"].update(latrina={"polygon": [[0, 0]] * 65}),
            "$.zones.latrina.polygon",
        ),
    ],
    ids=["unknown-key", "unknown-zone-key", "long-comment", "paper-list", "huge-polygon"],
)
def test_a_saved_layout_holds_only_what_a_layout_is(app, tmp_path, edit, path):
    """#20: unknown keys of any size were stored and sent to every tablet."""
    c = app.test_client()
    layout = c.get("/api/layout").get_json()
    edit(layout)
    res = c.post("/api/layout", json=layout, headers=PIN)
    assert res.status_code == 400 and res.get_json()["error"]["path"] == path, res.get_json()
    assert not (tmp_path / "layout.json").exists()


def test_rectified_view_of_the_running_camera(app):
    frame, cal = still_table()
    loop, _ = run_loop([frame.image] * 6, lambda board: oracle(frame, cal))
    app.extensions["alea.table"] = loop
    res = app.test_client().get("/calibration/rectified.jpg")
    assert res.status_code == 200 and res.data[:2] == b"\xff\xd8"
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(res.data, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == (891, 1260)  # 420 × 297 mm at 3 px/mm
    st = app.test_client().get("/api/game/table").get_json()
    assert st["markers"] == list(range(8)) and st["error_mm"] < 1.5


def test_learning_the_dice_colours_from_the_camera(app, tmp_path):
    from scanner.vision.models import load_detector
    from tests.test_palette import frames

    ref, game = frames(9103)
    loop, _ = run_loop([ref.image] * 4, load_detector(None, 0))
    app.extensions["alea.table"] = loop
    c = app.test_client()
    assert c.get("/api/palette").get_json() == {"palette": None}
    assert c.post("/api/palette", json={}).status_code == 403
    res = c.post("/api/palette", json={}, headers=PIN)
    assert res.status_code == 200, res.get_json()
    out = res.get_json()
    assert {"grey", "brown", "blue", "green"} <= set(out["taken"])
    assert out["warnings"] == []  # the sheet's white is not clipped
    assert out["palette"]["source"] == "table" and loop.palette is not None
    saved = json.loads((tmp_path / "palette.json").read_text())
    assert saved == out["palette"]
    # A restarted server uses it; forgetting it goes back to the reader's colours.
    from webui.table import load_palette

    assert set(load_palette(app).colors) == set(out["palette"]["colors"])
    res = c.post("/api/palette", json={"forget": True}, headers=PIN)
    assert res.get_json() == {"palette": None, "taken": []} and loop.palette is None
    assert not (tmp_path / "palette.json").exists()


def test_learning_colours_without_dice_on_the_squares_is_a_clear_error(app, tmp_path):
    from scanner.vision.models import load_detector
    from tests.test_palette import frames

    _, game = frames(9103)
    loop, _ = run_loop([game.image] * 4, load_detector(None, 0))
    app.extensions["alea.table"] = loop
    res = app.test_client().post("/api/palette", json={}, headers=PIN)
    assert res.status_code == 400 and res.get_json()["error"]["code"] == "palette.no-dice"
    assert not (tmp_path / "palette.json").exists()


def test_a_camera_that_clips_the_sheets_white_is_told_when_colours_are_learnt(app, tmp_path):
    """The reference frame two stops too bright: the paper clips, and the answer says so (the
    page shows it in its language, `cal.clipped`)."""
    import numpy as np

    from scanner.vision.models import load_detector
    from tests.test_palette import frames

    ref, _ = frames(9103)
    bright = np.clip(ref.image.astype(np.float64) * 4, 0, 255).astype(np.uint8)
    loop, _ = run_loop([bright] * 4, load_detector(None, 0))
    app.extensions["alea.table"] = loop
    res = app.test_client().post("/api/palette", json={}, headers=PIN)
    out = res.get_json()
    said = out["warnings"] if res.status_code == 200 else [out["error"]["message"]]
    assert len(said) == 1 and "clips the sheet's white" in said[0], out
