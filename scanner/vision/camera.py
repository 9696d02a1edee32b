"""Frames from a webcam, a video file or a folder of images: one iterator, clean errors.

`alea serve --camera 0 | FILE | DIR` and the tests use the same source: a folder of saved frames
replays a game exactly, which is how a vision bug is reproduced. Opening never raises anything but
`InputError` (code `camera.*`), so the CLI and the web UI report a bad source in one sentence.

>>> import tempfile
>>> try:
...     open_source(tempfile.mkdtemp())
... except InputError as err:
...     print(err.code)
camera.empty
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scanner.errors import InputError
from scanner.inputs import read_image_file

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


@dataclass(frozen=True)
class Frame:
    index: int  # 0, 1, 2 … in the order the source delivered them
    image: np.ndarray  # BGR
    name: str  # file name for a folder, "camera 0" / the video's name otherwise


class FrameSource:
    """An opened source; iterate it for frames, `close()` (or use `with`) to release a camera."""

    def __init__(self, spec: str | int, loop: bool = False) -> None:
        self.spec = spec
        self.loop = loop
        self._capture: cv2.VideoCapture | None = None
        self._files: list[Path] = []
        self._open()

    # ------------------------------------------------------------------------- opening
    def _open(self) -> None:
        spec = self.spec
        if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
            index = int(spec)
            cap = cv2.VideoCapture(index)
            if not cap.isOpened():
                cap.release()
                raise InputError("camera.not-found", f"no camera at index {index}", "$.camera")
            self._capture, self.name = cap, f"camera {index}"
            return
        path = Path(spec)
        if not path.exists():
            raise InputError("camera.not-found", f"no such file or folder: {spec}", "$.camera")
        if path.is_dir():
            self._files = sorted(
                p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
            )
            if not self._files:
                raise InputError("camera.empty", f"no images in folder {spec}", "$.camera")
            self.name = path.name
            return
        cap = cv2.VideoCapture(str(path))
        if not cap.isOpened():
            cap.release()
            raise InputError(
                "camera.unreadable", f"not a video OpenCV can read: {spec}", "$.camera"
            )
        self._capture, self.name = cap, path.name

    # ------------------------------------------------------------------------ iterating
    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while True:
            delivered = 0
            for name, image in self._frames_once():
                yield Frame(index, image, name)
                index += 1
                delivered += 1
            if not self.loop or delivered == 0 or self._is_live:
                return
            self._rewind()

    @property
    def _is_live(self) -> bool:
        return not self._files and isinstance(self.spec, int | str) and str(self.spec).isdigit()

    def _frames_once(self) -> Iterator[tuple[str, np.ndarray]]:
        if self._files:
            for path in self._files:
                try:
                    image = read_image_file(path, "$.camera")
                except InputError as err:
                    raise InputError("camera.unreadable", err.message, "$.camera") from None
                yield path.name, image
            return
        assert self._capture is not None
        while True:
            ok, image = self._capture.read()
            if not ok or image is None:
                return
            yield self.name, image

    def _rewind(self) -> None:
        if self._capture is not None:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_source(spec: str | int, loop: bool = False) -> FrameSource:
    """A webcam index (`0`), a video file, or a folder of images (in file-name order)."""
    return FrameSource(spec, loop)


def read_image(path: str | Path) -> np.ndarray:
    """One image file as BGR, or InputError (`input.not-found`, `image.unreadable`)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("input.not-found", f"no such image: {path}")
    return read_image_file(p)
