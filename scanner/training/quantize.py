"""The detector in 8-bit integers: static quantization, calibrated on training images.

On a CPU with 8-bit dot-product instructions (AVX-512 VNNI, AVX-VNNI, ARM dot product) an int8
convolution does several times the work of a float one per cycle, and the detector's convolutions
are nearly all of a board read. Static quantization fixes each activation's scale from images the
network will see, so the calibration set is drawn like the two inputs the detector gets at run
time: rectified boards of rendered tables at the board's own scale (`alea scan`, the live loop)
and photos letterboxed to 640 (`alea dice`). Both come from training sources only (rendered
seeds of the training boards, the real photos the detector trained on); which layers stay in
floating point is chosen on validation figures (`benchmarks/quantize_choice.py`).

Needs only onnxruntime, which ships its quantization tools; no torch.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from tqdm import tqdm

# Seeds of the rendered calibration boards: the face reader's training boards (seed 5 + 100 in
# scanner.training.face_sets), far from the validation (205, 7000) and test (9000+) tables.
CALIBRATION_SEED = 105
# Calibration images: a few dozen settle every activation's range (MinMax over all of them).
BOARDS, PHOTOS = 24, 24
# Which of the head's layers stay float (`float_nodes`). The head's output holds box
# coordinates in pixels and class scores in 0..1 in one tensor, so its decoding can never share
# one 8-bit scale; how much more than that stays float is chosen on validation.
HEAD = "/model.23/"
KEEP_FLOAT = ("head", "decode", "outputs")
DEFAULT_KEEP_FLOAT = "decode"


def calibration_images(
    detector, boards: int = BOARDS, photos: int = PHOTOS, real_dir: Path | None = None
) -> Iterator[np.ndarray]:
    """Network inputs (NCHW float blobs) for calibration: rendered rectified boards at the
    board's own scale, then real training photos at the detector's photo size."""
    from scanner.synth.table import mid_game_states, random_dice, render_table
    from scanner.training.face_sets import detector_at_board_scale, real_split
    from scanner.vision.calibrate import calibrate
    from scanner.vision.detect import load_image
    from scanner.vision.layout import default_layout

    layout = default_layout()
    at_board = detector_at_board_scale(detector)
    rng = np.random.default_rng(CALIBRATION_SEED)
    states = mid_game_states(CALIBRATION_SEED, layout)
    for n in range(boards):
        frame = render_table(next(states), (CALIBRATION_SEED, n), layout, dice=random_dice(rng))
        cal = calibrate(frame.image, layout)
        yield at_board.blob(cal.rectify(frame.image))[0]
    if real_dir is not None and photos:
        fit, _ = real_split(real_dir)
        for path in fit[:: max(1, len(fit) // photos)][:photos]:
            yield detector.blob(load_image(path))[0]


def float_nodes(model_path: str | os.PathLike, keep: str = DEFAULT_KEEP_FLOAT) -> list[str]:
    """The nodes to leave in floating point: `head` the whole YOLO head; `decode` the head
    after its convolution branches (distribution focal loss, box decoding, sigmoid, concat);
    `outputs` that and each branch's last 1×1 convolution, which gives the box and class
    logits."""
    import onnx

    if keep not in KEEP_FLOAT:
        raise ValueError(f"keep must be one of {KEEP_FLOAT}")
    names = [n.name for n in onnx.load(str(model_path)).graph.node if n.name.startswith(HEAD)]
    if keep == "head":
        return names

    def branch(name: str) -> bool:
        return name.startswith((HEAD + "cv2.", HEAD + "cv3."))

    def last_conv(name: str) -> bool:
        parts = name.split("/")
        return len(parts) == 5 and parts[-1] == "Conv" and parts[3].endswith(".2")

    return [n for n in names if not branch(n) or (keep == "outputs" and last_conv(n))]


def quantize_detector(
    src: str | os.PathLike,
    dst: str | os.PathLike,
    blobs: Iterator[np.ndarray],
    keep_float: list[str] | None = None,
) -> Path:
    """Write `dst`, the int8 (QDQ, per-channel weights) version of the float detector `src`,
    calibrated on `blobs`; nodes named in `keep_float` stay float. Returns `dst`."""
    import tempfile

    import onnxruntime as ort
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.blobs = iter(tqdm(list(blobs), desc="calibration images", disable=None))

        def get_next(self):
            blob = next(self.blobs, None)
            return None if blob is None else {name: blob}

    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        # The exported graph's shapes are symbolic (any board size), so skip symbolic inference.
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(
            str(pre),
            str(dst),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=keep_float or [],
        )
    return dst
