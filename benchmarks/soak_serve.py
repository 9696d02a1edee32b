"""Soak: `alea serve` on its demo feed for minutes, as a new user runs it, with a browser on the
Game page. Counts passes of the feed, errors (HTTP, the camera loop's, the page's) and the
server's memory over time.

    python benchmarks/soak_serve.py [--seconds 600] [--no-browser]

The server is the real command in its own process (`alea serve --data DIR --port P`), so what
is measured is what a user runs; the browser is Debian's chromium through Playwright.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.cli import CHROMIUM_ARGS, serve  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def get(url: str) -> tuple[int, dict | None]:
    try:
        with urllib.request.urlopen(url, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as err:
        return err.code, None
    except (urllib.error.URLError, TimeoutError, ConnectionError):
        return 0, None


def soak(seconds: float = 600, browser: bool = True) -> dict:
    data = Path(tempfile.mkdtemp())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server, url = serve(data, port)
    pw = page = None
    page_errors: list[str] = []
    if browser:
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        chrome = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = chrome.new_page()
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        page.goto(f"{url}/game", wait_until="domcontentloaded")
    requests = http_errors = loop_errors = 0
    rss: list[tuple[float, float]] = []
    at_pass: list[float] = []
    rulings: dict[str, int] = {}
    t0 = time.monotonic()
    try:
        while (now := time.monotonic() - t0) < seconds:
            for path in ("/api/game", "/api/game/table"):
                code, body = get(url + path)
                requests += 1
                http_errors += code != 200
                if path.endswith("table") and body and body.get("error"):
                    loop_errors += 1
            rss.append((now, rss_mb(server.pid)))
            passes = len(list((data / "demo" / "games").glob("game-*.alea")))
            if passes > len(at_pass):
                at_pass.append(rss[-1][1])  # the server's memory as each pass ends
            if page is not None:
                page.wait_for_timeout(2000)
            else:
                time.sleep(2)
            if server.poll() is not None:
                break
        games = sorted((data / "demo" / "games").glob("*.alea"))
        from scanner.session import Session
        from scanner.store import GameStore

        rounds = 0
        for g in games:
            store = GameStore(g)
            session = Session(store)
            rounds += len(session.round_results)
            for e in session.log:
                rulings[e.get("kind", e["event"])] = rulings.get(e.get("kind", e["event"]), 0) + 1
            store.close()
    finally:
        if pw is not None:
            pw.stop()
        server.terminate()
        _, err = server.communicate(timeout=30)
    last = [m for _, m in rss[-5:]]
    return {
        "seconds": round(time.monotonic() - t0),
        "browser": browser,
        "server_alive": server.returncode in (None, 0, -15),
        "passes": sum(1 for g in games if g.name.startswith("game-")),
        "games": len(games),
        "rounds_scored": rounds,
        "rulings": rulings,
        "requests": requests,
        "http_errors": http_errors,
        "camera_loop_errors": loop_errors,
        "page_errors": len(page_errors),
        # The first pass renders and keeps the demo's frames; from then on memory is flat.
        "rss_mb_at_each_pass_end": [round(m, 1) for m in at_pass],
        "rss_mb_at_end": round(sum(last) / len(last), 1),
        "rss_mb_max": round(max(m for _, m in rss), 1),
        "server_traceback": "Traceback" in (err or ""),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    print(json.dumps(soak(args.seconds, not args.no_browser), indent=1))


if __name__ == "__main__":
    main()
