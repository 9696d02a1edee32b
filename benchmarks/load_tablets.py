"""Load: N simulated tablets on one `alea serve`, each holding the game's event stream (SSE) and
the camera's MJPEG open, and reloading the game page now and then, while a player changes the
game twice a second. Prints whether any tablet missed a state update and the page-load times.

    python benchmarks/load_tablets.py [--tablets 8] [--seconds 60]

The server is started in-process on the demo feed (camera loop included), as `alea serve` runs.
Target (issue 7): 8 tablets for a minute, no dropped state update, page loads under 300 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import tempfile
import threading
import time

PIN = "4321"


def start_server(threads: int = 32) -> tuple[str, int]:
    import waitress

    from webui import create_app

    # Every simulated tablet connects from 127.0.0.1: the per-client stream cap (meant for one
    # browser) is lifted, the server-wide one is as `alea serve --threads` sets it.
    app = create_app(
        {
            "DATA_DIR": tempfile.mkdtemp(),
            "GAME_PIN": PIN,
            "MAX_STREAMS": threads - 8,
            "MAX_STREAMS_PER_CLIENT": threads,
            "TABLE": True,
        }
    )
    loop = app.extensions["alea.table"]
    # The demo camera keeps streaming but does not play: the benchmark's own moves are the
    # only state changes, so each one can be counted at every tablet.
    loop.on_settled = lambda state, unsure: None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = waitress.create_server(app, host="127.0.0.1", port=port, threads=threads)
    threading.Thread(target=server.run, daemon=True).start()
    time.sleep(0.5)
    return "127.0.0.1", port


def post(host, port, path, body) -> dict:
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request(
        "POST", path, json.dumps(body), {"Content-Type": "application/json", "X-Alea-Pin": PIN}
    )
    out = json.loads(conn.getresponse().read())
    conn.close()
    return out


class Tablet:
    def __init__(self, host: str, port: int, stop: threading.Event) -> None:
        self.host, self.port, self.stop = host, port, stop
        self.versions: list[int] = []
        self.mjpeg_frames = 0
        self.page_ms: list[float] = []
        self.errors: list[str] = []

    def sse(self) -> None:
        try:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            conn.request("GET", "/api/game/stream")
            res = conn.getresponse()
            while not self.stop.is_set():
                line = res.fp.readline()
                if line.startswith(b"data: "):
                    self.versions.append(json.loads(line[6:])["version"])
            conn.close()
        except Exception as exc:  # a tablet's failure is a figure, not a crash
            self.errors.append(f"sse: {exc}")

    def mjpeg(self) -> None:
        try:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            conn.request("GET", "/video.mjpg")
            res = conn.getresponse()
            while not self.stop.is_set():
                chunk = res.fp.readline()
                if chunk.startswith(b"--frame"):
                    self.mjpeg_frames += 1
            conn.close()
        except Exception as exc:
            self.errors.append(f"mjpeg: {exc}")

    def pages(self) -> None:
        while not self.stop.is_set():
            for path in ("/game", "/static/game.js", "/api/game"):
                t = time.perf_counter()
                conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
                conn.request("GET", path)
                status = conn.getresponse()
                status.read()
                conn.close()
                if status.status != 200:
                    self.errors.append(f"{path}: {status.status}")
                if path == "/game":
                    self.page_ms.append((time.perf_counter() - t) * 1000)
            self.stop.wait(3)


def run(tablets: int = 8, seconds: float = 60) -> dict:
    host, port = start_server()
    first = post(host, port, "/api/game/new", {"players": ["grey", "blue", "green"]})["version"]
    stop = threading.Event()
    fleet = [Tablet(host, port, stop) for _ in range(tablets)]
    threads = [
        threading.Thread(target=f, daemon=True) for t in fleet for f in (t.sse, t.mjpeg, t.pages)
    ]
    for th in threads:
        th.start()
    time.sleep(1)
    changes = 0
    end = time.perf_counter() + seconds
    move = {"player": "grey", "building": "forum", "dice": [2, 4]}  # flagged, kept in the log
    while time.perf_counter() < end:
        post(host, port, "/api/game/place", {"move": move})
        changes += 1
        time.sleep(0.5)
    time.sleep(1.5)
    final = json.loads(http_get(host, port, "/api/game"))["version"]
    stop.set()
    missed = []
    for t in fleet:
        seen = sorted(set(t.versions))
        want = set(range(seen[0], final + 1)) if seen else {final}
        missed.append(len(want - set(seen)))
    pages = [ms for t in fleet for ms in t.page_ms]
    return {
        "tablets": tablets,
        "seconds": seconds,
        "state_changes": changes,
        "versions_seen_by_server": final - first,
        "updates_missed_per_tablet": missed,
        "mjpeg_frames_per_tablet_per_s": round(
            statistics.mean(t.mjpeg_frames for t in fleet) / seconds, 2
        ),
        "page_loads": len(pages),
        "page_ms_median": round(statistics.median(pages), 1),
        "page_ms_p95": round(sorted(pages)[int(0.95 * (len(pages) - 1))], 1),
        "page_ms_max": round(max(pages), 1),
        "errors": sorted({e for t in fleet for e in t.errors})[:5],
    }


def http_get(host, port, path) -> bytes:
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request("GET", path)
    body = conn.getresponse().read()
    conn.close()
    return body


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tablets", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args()
    print(json.dumps(run(a.tablets, a.seconds), indent=1), flush=True)
    # The server, camera and stream threads are daemons mid-request: leave without unwinding
    # them (a normal exit aborts in onnxruntime's thread pool teardown).
    import os

    os._exit(0)
