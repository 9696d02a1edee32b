"""The face reader's network (scanner.vision.face runs it) and its export to ONNX.

Apart from the training loop because the exported graph is the runtime's contract: its inputs
(crop, light) and outputs (die, value, color) are fixed here, and tests build the network alone
to check that a reader for other light numbers is refused.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from scanner.training.detector import OPSET
from scanner.vision.face import COLOR_CLASSES, CROP, DICE_LIGHT, N_LIGHT


def build_model(
    width: tuple[int, int, int, int] = (16, 32, 64, 128), n_light: int = N_LIGHT, gate: bool = False
):
    """The reader's CNN; its forward takes (crop 0..1 BGR, light) and returns probabilities.

    `gate`: P(die) comes from a branch of its own on the convolutions' features, not from the
    head the value and colour share, so that a reader can learn what is no die (`face_train`'s
    `learns="gate"`) while every weight its values and colours come from stays as it was."""
    import torch
    from torch import nn

    def block(cin, cout):
        return [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]

    c1, c2, c3, c4 = width

    class FaceNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                # One convolution at full size (the costly one), two at each smaller size:
                # about 14 M multiply-adds a die, ~2 ms of one core to train on.
                *block(6, c1),
                nn.MaxPool2d(2),
                *block(c1, c2),
                *block(c2, c2),
                nn.MaxPool2d(2),
                *block(c2, c3),
                *block(c3, c3),
                nn.MaxPool2d(2),
                *block(c3, c4),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.head = nn.Sequential(
                nn.Linear(c4 + n_light, 128), nn.ReLU(inplace=True), nn.Dropout(0.1)
            )
            self.die = nn.Linear(128, 1)
            self.value = nn.Linear(128, 6)
            self.color = nn.Linear(128, len(COLOR_CLASSES))
            self.gate = (
                nn.Sequential(
                    nn.BatchNorm1d(c4 + n_light),
                    nn.Linear(c4 + n_light, 64),
                    nn.ReLU(inplace=True),
                    nn.Linear(64, 1),
                )
                if gate
                else None
            )

        def logits(self, crop, light):
            # The crop as seen and divided by the light's colour as the scene's dice show it
            # (scanner.vision.face.dice_light): the network weighs both.
            gain = light[:, DICE_LIGHT] / light[:, DICE_LIGHT].mean(1, keepdim=True)
            corrected = (crop / gain[:, :, None, None]).clamp(0, 2)
            f = self.features(torch.cat([crop, corrected], 1))
            seen = torch.cat([f, light], 1)
            h = self.head(seen)
            die = self.gate(seen) if self.gate is not None else self.die(h)
            return die[:, 0], self.value(h), self.color(h)

        def forward(self, crop, light):
            d, v, c = self.logits(crop, light)
            return torch.sigmoid(d), torch.softmax(v, 1), torch.softmax(c, 1)

    return FaceNet()


def has_gate(state: dict) -> bool:
    """Whether a reader's weights (a checkpoint's state dict) hold a die-or-not branch."""
    return any(k.startswith("gate.") for k in state)


def export_onnx(weights: Path, dest: Path) -> Path:
    """The checkpoint as ONNX (opset 18, dynamic batch): inputs crop (N,3,S,S), light (N,N_LIGHT);
    outputs die (N,), value (N,6), color (N,6)."""
    import torch

    state = torch.load(weights, weights_only=False)["model"]
    model = build_model(gate=has_gate(state))
    model.load_state_dict(state)
    model.eval()
    dest.parent.mkdir(parents=True, exist_ok=True)
    args = (torch.zeros(2, 3, CROP, CROP), torch.full((2, N_LIGHT), 0.8))
    # The TorchScript exporter (dynamo=False) needs no onnxscript; it warns that it is legacy.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            args,
            str(dest),
            input_names=["crop", "light"],
            output_names=["die", "value", "color"],
            opset_version=OPSET,
            dynamic_axes={
                "crop": {0: "n"},
                "light": {0: "n"},
                "die": {0: "n"},
                "value": {0: "n"},
                "color": {0: "n"},
            },
            dynamo=False,
        )
    return dest
