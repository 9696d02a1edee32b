"""`alea serve`: the tablet web UI on the local network (waitress, many threads)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scanner.cli import command
from scanner.errors import InputError


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default all)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--camera",
        default=None,
        help="webcam index, video file or folder of frames (default: demo feed)",
    )
    parser.add_argument(
        "--no-camera",
        action="store_true",
        help="manual entry only: no camera and no demo feed",
    )
    parser.add_argument("--data", default="alea-data", help="folder for game records")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name tablets use to reach this machine, besides its own names and "
        "addresses (repeatable; '*' allows any)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=32,
        help="server threads; every open video or event stream holds one",
    )


def terminal_qr(text: str, colour: bool = True) -> str:
    """`text` as a QR code in the terminal, two rows of modules per line of half blocks, with
    its quiet zone. Light modules are drawn, so on a dark terminal it reads as printed; with
    `colour` the code is painted white on black to read so on a light terminal too."""
    import segno

    matrix = segno.make(text, error="m", micro=False).matrix  # 1: a dark module
    border = 4
    width = len(matrix[0]) + 2 * border
    quiet = [[True] * width for _ in range(border)]
    light = [[True] * border + [not m for m in row] + [True] * border for row in matrix]
    light = quiet + light + quiet + ([[True] * width] if len(matrix) % 2 else [])
    glyph = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}
    lines = []
    for top, bottom in zip(light[0::2], light[1::2], strict=True):
        line = "".join(glyph[pair] for pair in zip(top, bottom, strict=True))
        lines.append(f"\033[97;40m{line}\033[0m" if colour else line)
    return "\n".join(lines)


@command("serve", "Serve the tablet web UI (demo feed when no camera is given).", _arguments)
def run_serve(args: argparse.Namespace) -> int:
    import waitress

    from webui import create_app
    from webui.guard import MAX_UPLOAD_BYTES

    if not 1 <= args.port <= 65535:
        raise InputError("value.range", f"port {args.port} is not 1–65535", "--port")
    data = Path(args.data)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            "input.unwritable", f"cannot use {data} as data folder: {exc}", "--data"
        ) from None
    if args.no_camera and args.camera is not None:
        raise InputError(
            "value.conflict", "--no-camera and --camera exclude each other", "--camera"
        )
    if args.threads < 12:
        raise InputError("value.range", "--threads must be at least 12", "--threads")
    app = create_app(
        {
            "DATA_DIR": str(data.resolve()),
            "CAMERA": args.camera,
            "TABLE": not args.no_camera,
            "MAX_STREAMS": args.threads - 8,  # the rest answer pages and the game API
            "ALLOWED_HOSTS": tuple(args.allow_host),
        }
    )
    try:  # bound before anything is printed: the address printed is one that answers
        server = waitress.create_server(
            app,
            host=args.host,
            port=args.port,
            threads=args.threads,
            ident="alea",
            # waitress would spool up to 1 GB of a body before the app could refuse it; bodies
            # a little over the app's own limit still reach it, for its JSON 413.
            max_request_body_size=3 * MAX_UPLOAD_BYTES,
        )
    except OSError as exc:
        raise InputError(
            "serve.port", f"cannot listen on {args.host}:{args.port}: {exc}", "--port"
        ) from None
    from webui.guard import lan_address

    host = (lan_address() or "127.0.0.1") if args.host in ("0.0.0.0", "") else args.host
    pin = app.config["GAME_PIN"]
    print(f"alea is serving on http://{host}:{args.port}/  (game PIN {pin})", file=sys.stderr)
    link = f"http://{host}:{args.port}/game#pin={pin}"
    print(f"Scan to open the game page with the PIN filled in: {link}", file=sys.stderr)
    print(terminal_qr(link, colour=sys.stderr.isatty()), file=sys.stderr, flush=True)
    server.run()
    return 0
