#!/usr/bin/env python
"""Sanity check of frames written by render_table.py (needs numpy + opencv, not bpy).

    python benchmarks/blender/check_render.py DIR [--draw OUTDIR]

For every NNNN*.json in DIR: detects the ArUco markers (DICT_4X4_50) in the PNG and
compares their centres with the projected marker centres stored in the JSON (error in
px), and with --draw writes a copy of each frame with the labels drawn on it (die
boxes, top-face centres with value and colour, projected marker outlines).
Exit status 1 if any frame has fewer than 6 markers found or a centre error > 3 px.
Imports nothing from scanner/.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

BGR = {
    "grey": (160, 160, 160),
    "brown": (30, 70, 140),
    "blue": (230, 120, 20),
    "green": (40, 200, 40),
    "yellow": (0, 230, 250),
    None: (230, 0, 230),
}


def detect(gray):
    det = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = det.detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


def check(js_path, draw_dir=None):
    js = json.loads(js_path.read_text())
    img = cv2.imread(str(js_path.parent / js["image"]))
    found = detect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    errs = []
    for m in js["markers"]:
        if m["id"] in found:
            # JSON pixel coords put (0,0) at the top-left corner of the top-left pixel;
            # OpenCV puts it at that pixel's centre.
            c = found[m["id"]].mean(axis=0) + 0.5
            errs.append(float(np.hypot(*(c - np.array(m["center"])))))
    if draw_dir is not None:
        out = img.copy()
        for m in js["markers"]:
            pts = np.array(m["corners"], np.float32) - 0.5
            cv2.polylines(
                out,
                [pts.round().astype(np.int32)],
                True,
                (0, 0, 255) if m["id"] in found else (0, 128, 255),
                1,
            )
        for d in js["dice"]:
            col = BGR.get(d["color"], (255, 0, 255))
            x0, y0, x1, y1 = (int(round(v)) for v in d["bbox"])
            cv2.rectangle(out, (x0, y0), (x1, y1), col, 1)
            tx, ty = (int(round(v)) for v in d["top"])
            cv2.circle(out, (tx, ty), 2, (0, 0, 255), -1)
            name = (d["color"] or "other:" + d.get("set", "?"))[:8]
            label = f"{d['value']} {name}"
            cv2.putText(
                out, label, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 3
            )
            cv2.putText(out, label, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.38, col, 1)
        draw_dir.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(draw_dir / js["image"]), out)
    return len(found), errs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--draw", default=None)
    a = ap.parse_args(argv)
    bad = 0
    for p in sorted(Path(a.dir).glob("*.json")):
        n, errs = check(p, Path(a.draw) if a.draw else None)
        mx = max(errs) if errs else float("nan")
        ok = n >= 6 and (not errs or mx <= 3.0)
        bad += not ok
        mean = np.mean(errs) if errs else float("nan")
        print(
            f"{p.name}: markers {n}/8, centre error mean {mean:.2f} px, "
            f"max {mx:.2f} px {'ok' if ok else 'FAIL'}"
        )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
