"""Train the face reader with torch (extra `train`): batches, loss, validation, checkpoints.

The model checkpoints every epoch under runs/face/NAME, so a re-run resumes, and the best epoch
is chosen on validation sets, never on a test split. The data comes from
scanner.training.face_sets, the network from scanner.training.face_model.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scanner import shipped
from scanner.training.face_data import CropSet
from scanner.training.face_model import build_model, has_gate

RUNS = shipped.RUNS / "face"


def _batches(data: CropSet, idx: np.ndarray, batch: int, rng, augment: bool):
    import torch

    for k in range(0, len(idx), batch):
        b = idx[k : k + batch]
        crops = data.crops[b]
        if augment:
            # Exact, resampling-free turns and flips on top of the cut-time rotations.
            turn = int(rng.integers(4))
            crops = np.rot90(crops, turn, axes=(1, 2))
            if rng.random() < 0.5:
                crops = crops[:, :, ::-1]
        # (N, S, S, 3) uint8 is already channels-last in memory: permute without a copy.
        x = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255
        if augment:
            # Real dice have no colour label: vary their brightness and contrast freely.
            free = torch.from_numpy(data.color[b] < 0)
            gain = torch.empty(len(b)).uniform_(0.7, 1.3)
            bias = torch.empty(len(b)).uniform_(-0.1, 0.1)
            x = torch.where(
                free[:, None, None, None],
                (x * gain[:, None, None, None] + bias[:, None, None, None]).clamp(0, 1),
                x,
            )
            x = (x + torch.randn_like(x) * float(rng.uniform(0, 0.02))).clamp(0, 1)
        yield (
            x,
            torch.from_numpy(data.light[b]).float(),
            torch.from_numpy(data.die[b].astype(np.float32)),
            torch.from_numpy(data.value[b].astype(np.int64)),
            torch.from_numpy(data.color[b].astype(np.int64)),
        )


def loss_fn(model, x, light, die, value, color):
    import torch.nn.functional as F

    d, v, c = model.logits(x, light)
    loss = F.binary_cross_entropy_with_logits(d, die)
    pos = value >= 0
    if pos.any():
        loss = loss + F.cross_entropy(v[pos], value[pos], label_smoothing=0.02)
    known = color >= 0
    if known.any():
        loss = loss + F.cross_entropy(c[known], color[known], label_smoothing=0.02)
    return loss


def evaluate(model, data: CropSet, batch: int = 512) -> dict:
    """Die/no-die, value and colour accuracy of `model` on a crop set (rest poses)."""
    import torch

    model.eval()
    dp, vp, cp = [], [], []
    with torch.no_grad():
        for x, light, *_ in _batches(data, np.arange(len(data)), batch, None, False):
            d, v, c = model(x, light)
            dp.append(d.numpy())
            vp.append(v.argmax(1).numpy())
            cp.append(c.argmax(1).numpy())
    d, v, c = np.concatenate(dp), np.concatenate(vp), np.concatenate(cp)
    pos, known = data.value >= 0, data.color >= 0

    def pct(ok):
        return round(100.0 * float(np.mean(ok)), 2) if len(ok) else None

    return {
        "die_acc": pct((d >= 0.5) == (data.die == 1)),
        "value_acc": pct(v[pos] == data.value[pos]),
        "color_acc": pct(c[known] == data.color[known]),
    }


def train(
    train_set: CropSet,
    val_sets: dict[str, CropSet],
    name: str,
    epochs: int,
    batch: int = 256,
    lr: float = 3e-3,
    seed: int = 0,
    threads: int | None = None,
    log=print,
    init: Path | None = None,
    learns: str = "all",
) -> Path:
    """Train (or resume runs/face/NAME/last.pt) and return the best checkpoint's path.

    `init`: start from that reader's weights (a `face.pt`) instead of at random: the reader for
    the board alone is the shipped reader taught the board's harder light, not a new one.
    `learns` "gate": `init`'s reader with a die-or-not branch of its own (`build_model`'s
    `gate`), and only that branch learns; every other weight, the batch norms' statistics
    included, stays `init`'s, so the values and colours it reads are `init`'s to the bit (a
    reader that learns what is no die without forgetting how it reads dice).

    The best epoch is chosen on the validation sets' mean die, value and colour accuracy (never
    on a test split).
    """
    import torch

    # torch's default counts physical cores: on this 2-vCPU machine that is 1, half the speed.
    torch.set_num_threads(threads or len(os.sched_getaffinity(0)))
    torch.manual_seed(seed)
    run = RUNS / name
    run.mkdir(parents=True, exist_ok=True)
    # channels-last convolutions train ~1.6x faster on this CPU (measured).
    gate = learns == "gate"
    model = build_model(gate=gate).to(memory_format=torch.channels_last)
    if init is not None:
        # A gate is new: the init reader has none (or, resumed below, it comes with last.pt).
        state = torch.load(init, weights_only=False)["model"]
        model.load_state_dict(state, strict=not gate or has_gate(state))
    if gate:
        model.requires_grad_(False)
        model.gate.requires_grad_(True)
    learning = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(learning, lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(train_set) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=0.15)
    start, best_score = 0, -1.0
    last = run / "last.pt"
    if last.exists():
        ck = torch.load(last, weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best_score = ck["epoch"] + 1, ck["best"]
    rng = np.random.default_rng(seed + start)
    for epoch in range(start, epochs):
        # Only the gate learning: the rest runs as at inference (no dropout, and the batch
        # norms keep their statistics).
        model.train(not gate)
        if gate:
            model.gate.train()
        t0, total, n = time.time(), 0.0, 0
        idx = rng.permutation(len(train_set))
        bar = tqdm(
            _batches(train_set, idx, batch, rng, True),
            total=(len(idx) + batch - 1) // batch,
            desc=f"face epoch {epoch + 1}/{epochs}",
            disable=None,
        )
        for x, light, die, value, color in bar:
            loss = loss_fn(model, x, light, die, value, color)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(x)
            n += len(x)
        figures = {k: evaluate(model, v) for k, v in val_sets.items()}
        score = float(
            np.mean(
                [
                    f[m]
                    for f in figures.values()
                    for m in ("value_acc", "color_acc", "die_acc")
                    if f[m] is not None
                ]
            )
        )
        row = {
            "epoch": epoch + 1,
            "loss": round(total / max(n, 1), 4),
            "seconds": round(time.time() - t0, 1),
            "val": figures,
            "score": round(score, 3),
        }
        log(json.dumps(row))
        with open(run / "log.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")
        if score > best_score:
            best_score = score
            torch.save({"model": model.state_dict(), "epoch": epoch}, run / "best.pt")
        torch.save(
            {
                "model": model.state_dict(),
                "opt": opt.state_dict(),
                "sched": sched.state_dict(),
                "epoch": epoch,
                "best": best_score,
            },
            last,
        )
    return run / "best.pt" if (run / "best.pt").exists() else last
