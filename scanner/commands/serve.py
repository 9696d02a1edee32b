"""`alea serve`: the tablet web UI on the local network (waitress, many threads)."""

from __future__ import annotations

import argparse
import socket
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
        "--threads",
        type=int,
        default=32,
        help="server threads; every open video or event stream holds one",
    )


def _lan_address() -> str:
    """The address tablets on the same network can reach (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


@command("serve", "Serve the tablet web UI (demo feed when no camera is given).", _arguments)
def run_serve(args: argparse.Namespace) -> int:
    import waitress

    from webui import create_app

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
            "MAX_STREAMS": args.threads - 8,  # the rest answer pages and the game API
        }
    )
    if not args.no_camera:
        from webui.table import start

        start(app, args.camera)
    host = _lan_address() if args.host in ("0.0.0.0", "") else args.host
    print(
        f"alea is serving on http://{host}:{args.port}/  (game PIN {app.config['GAME_PIN']})",
        file=sys.stderr,
        flush=True,
    )
    try:
        waitress.serve(
            app, host=args.host, port=args.port, threads=args.threads, ident="alea", _quiet=True
        )
    except OSError as exc:
        raise InputError(
            "serve.port", f"cannot listen on {args.host}:{args.port}: {exc}", "--port"
        ) from None
    return 0
