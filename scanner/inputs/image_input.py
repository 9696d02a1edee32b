"""Images as the commands, the camera and the web API read them: a photo that is missing,
empty, not an image, or announces more pixels than memory allows is an InputError with its code,
never an OpenCV traceback or an allocation of gigabytes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from scanner.errors import InputError

MAX_PIXELS = 100_000_000  # 100 MP: beyond this a photo is refused rather than risking memory
MAX_IMAGE_BYTES = 200 * 1024 * 1024


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from an image file's header, without decoding it (PNG, JPEG, GIF, BMP,
    WebP, TIFF); None when the header is not one of those or is cut short. A 300-byte PNG may
    announce 100000 x 100000 pixels: the size is checked before OpenCV allocates them."""
    try:
        size = _header_size(data)
    except (IndexError, ValueError):
        return None
    return size if size is not None and min(size) > 0 else None  # 0: the header is cut short


def _header_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:2] == b"BM":
        w = int.from_bytes(data[18:22], "little", signed=True)
        h = int.from_bytes(data[22:26], "little", signed=True)
        return abs(w), abs(h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            h = int.from_bytes(data[i + 5 : i + 7], "big")
            w = int.from_bytes(data[i + 7 : i + 9], "big")
            return w, h
        i += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        return w, int.from_bytes(data[27:30], "little") + 1
    if kind == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8 ":
        w = int.from_bytes(data[26:28], "little") & 0x3FFF
        return w, int.from_bytes(data[28:30], "little") & 0x3FFF
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    order: Literal["little", "big"] = "little" if data[:2] == b"II" else "big"
    at = int.from_bytes(data[4:8], order)
    count = int.from_bytes(data[at : at + 2], order)
    size: dict[int, int] = {}
    for k in range(count):
        entry = data[at + 2 + 12 * k : at + 14 + 12 * k]
        tag, kind = int.from_bytes(entry[0:2], order), int.from_bytes(entry[2:4], order)
        if tag in (256, 257):  # image width, image length
            width = 2 if kind == 3 else 4
            size[tag] = int.from_bytes(entry[8 : 8 + width], order)
    return (size[256], size[257]) if len(size) == 2 else None


def decode_image(data: bytes, name: str = "the image", where: str = "$"):
    """An image file's bytes as 8-bit BGR (EXIF orientation applied), or InputError:
    `image.empty`, `image.too-large` (checked on the header before decoding), `image.unreadable`.
    OpenCV's own complaints are silenced: the contract allows one stderr line."""
    import cv2
    import numpy as np

    if not data:
        raise InputError("image.empty", f"{name} is empty", where)
    if len(data) > MAX_IMAGE_BYTES:
        raise InputError("image.too-large", f"{name} is over 200 MB", where)
    size = image_size(data)
    if size is None:
        raise InputError(
            "image.unreadable", f"{name} is not a PNG, JPEG, GIF, BMP, WebP or TIFF image", where
        )
    if size[0] * size[1] > MAX_PIXELS:
        raise InputError(
            "image.too-large", f"{name} is {size[0]} x {size[1]} pixels, over 100 megapixels", where
        )
    logging = cv2.utils.logging
    previous = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    said: list[str] = []
    try:
        with _codec_messages(said):
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except (cv2.error, MemoryError) as exc:
        raise InputError("image.unreadable", f"cannot decode {name}: {exc}", where) from None
    finally:
        logging.setLogLevel(previous)
    if image is None or image.size == 0:
        why = f" ({said[-1]})" if said else ""
        raise InputError("image.unreadable", f"{name} is not a readable image{why}", where)
    return image


@contextmanager
def _codec_messages(said: list[str]) -> Iterator[None]:
    """libpng and libjpeg write their complaints ("Corrupt JPEG data ...") straight to file
    descriptor 2, past OpenCV's log level. While this process has no other Python thread (a
    command, not the server) they are caught here and put in `said`, so that the command's one
    stderr line stays one; a thread could write to stderr in between, so a server keeps them."""
    if threading.active_count() > 1:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            lines = caught.read(4096).decode("utf-8", "replace").strip().splitlines()
            said.extend(line.strip() for line in lines if line.strip())


def read_image_file(path, where: str = "$"):
    """An image file as 8-bit BGR (see `decode_image`); `image.not-found` when it is missing."""
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise InputError("image.not-found", f"no such image file: {path}", where)
    if p.stat().st_size > MAX_IMAGE_BYTES:
        raise InputError("image.too-large", f"image file over 200 MB: {path}", where)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError("image.unreadable", f"cannot read {path}: {exc}", where) from None
    return decode_image(data, str(path), where)
