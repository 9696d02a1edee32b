"""Which data the face reader learns from, each set rendered once and cut once (extra `train`).

- rendered scenes (`alea synth` scenes at the test set's 640 px): value and colour labels exact
  by construction;
- the real photos of `photos_a/train` (never `test/`): value labels only, colour unknown (its
  loss is masked), each die cut many times turned and shifted because there are few of them;
- rectified board frames as `alea scan` sees them, and optionally scenes crowded with hard
  negatives (pip-less cubes, printed cards).

The crop arrays are written once (`crops_*.npz`) and cut again only when the scenes behind them
were drawn by an older renderer or for another count, or for a reader taking other light
numbers. The cutting itself is scanner.training.face_data's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from scanner.synth.table import MAX_TILT_DEG
from scanner.training.face_data import CropSet, board_crops, collect
from scanner.vision.evaluate import images_in
from scanner.vision.face import N_LIGHT


def real_split(real_dir: Path, val_photos: int = 20) -> tuple[list[Path], list[Path]]:
    """The real train photos cut into (fit, validation): the last `val_photos` are held out,
    the same ones the detector held out (scanner.training.detector.prepare)."""
    photos = sorted((real_dir / "images").glob("*.jpg"))
    return photos[: len(photos) - val_photos], photos[-val_photos:]


def prepare(
    out: Path,
    detector,
    synth_n: int = 4000,
    synth_val: int = 200,
    seed: int = 5,
    real_dir: Path | None = None,
    synth_copies: int = 2,
    real_copies: int = 12,
    boards: int = 400,
    board_val: int = 40,
    board_copies: int = 3,
    hard_n: int = 0,
    world: float = 0.0,
    side_pips: bool = False,
    logo_sixes: float = 0.0,
    long_pips: float = 0.0,
    translucent: float = 0.0,
    keyboards: float = 0.0,
    tiles: float = 0.0,
    board_sheen: float = 0.0,
    shades: str = "game",
    board_glare: float = 0.0,
    board_max_tilt: float = MAX_TILT_DEG,
    board_others: int = 0,
    board_logo_sixes: float = 0.0,
) -> tuple[CropSet, dict[str, CropSet]]:
    """Render (once) and cut (once) the reader's data; returns (train set, validation sets).

    Synthetic scenes are like the held-out test set's (640 px, 4–40 dice) but from their own
    seed; the validation scenes use the dataset's derived seed (scanner.synth.dataset). With
    `world`, that share of them (validation scenes too) comes from the wider world
    (`SceneConfig.world`, its dice with pips on their sides with `side_pips`); `logo_sixes` of
    the scenes' dice print an emblem on their six (`SceneConfig.logo_sixes`), `long_pips` of
    them draw their pips long (`SceneConfig.long_pips`), `translucent` of them are of clear
    plastic (`SceneConfig.translucent`), and `keyboards` of the world's scenes lie on sculpted
    keycaps (`SceneConfig.keyboards`), `tiles` of them hold loose tiles and a card sized to the
    dice (`SceneConfig.tiles`). `board_sheen`
    lays a lamp's sheen over the board frames' dice, training and validation alike
    (face_data.board_crops), and `board_glare` a wide lamp's glare over half the frames' top
    faces; `board_max_tilt` lets their cameras lean that far, and `board_others` lays up to
    that many dice of no player's colour on each, and `board_logo_sixes` of them
    print an emblem on their sets' sixes. `shades` names the ranges every
    game colour is drawn in, scenes and board frames alike (scanner.synth.dice.SHADE_CHOICES).
    With `synth_n` 0 only board frames are drawn: the data of a reader for the board alone,
    fine-tuned from another (`face_train.train`'s `init`).
    """
    for cached in out.glob("crops_*.npz"):
        with np.load(cached) as z:
            stale = z["light"].shape[1] != N_LIGHT
        if stale:  # cut for a reader that took other light numbers (scanner.vision.face)
            cached.unlink()
    sets: dict[str, CropSet] = {}
    if synth_n:
        from scanner.synth.scene import photo_config

        config = photo_config(
            world=world,
            side_pips=side_pips,
            shades=shades,
            logo_sixes=logo_sixes,
            long_pips=long_pips,
            translucent=translucent,
            keyboards=keyboards,
            tiles=tiles,
        )
        _draw_scenes(out, synth_n, synth_val, seed, config)
        sets = _scene_sets(out, detector, seed, real_dir, synth_copies, real_copies)
    # Board frames: a seed apart from the table benchmarks' (eval_table starts at 9000).
    boards_now = {
        "sheen": board_sheen,
        "shades": shades,
        "glare": board_glare,
        "max_tilt": board_max_tilt,
        "others": board_others,
        "logo_sixes": board_logo_sixes,
    }
    if _boards_drawn(out) != boards_now:  # cut under another lamp or shades: cut again
        for name in ("train_board", "val_board"):
            (out / f"crops_{name}.npz").unlink(missing_ok=True)
        out.mkdir(parents=True, exist_ok=True)
        (out / "boards.json").write_text(json.dumps(boards_now))
    for name, n, board_seed, cuts, jitter in (
        ("train_board", boards, seed + 100, board_copies, True),
        ("val_board", board_val, seed + 200, 1, False),
    ):
        path = out / f"crops_{name}.npz"
        if n and not path.exists():
            board_crops(
                n,
                board_seed,
                detector_at_board_scale(detector),
                cuts,
                jitter,
                sheen=board_sheen,
                shades=shades,
                glare=board_glare,
                max_tilt=board_max_tilt,
                others=board_others,
                logo_sixes=board_logo_sixes,
            ).save(path)
        if path.exists():
            sets[name] = CropSet.load(path)
    if hard_n:
        sets["train_hard"] = hard_negatives(
            out / "hard", out / "crops_train_hard.npz", hard_n, seed + 300, detector, synth_copies
        )
    train_set = sets.pop("train") if "train" in sets else sets.pop("train_board")
    for extra in ("train_board", "train_hard"):
        if extra in sets:
            train_set = CropSet.concat([train_set, sets.pop(extra)])
    return train_set, sets


def _draw_scenes(out: Path, synth_n: int, synth_val: int, seed: int, config) -> None:
    """Render the reader's scenes into `out`/synth unless they are there as asked."""
    from scanner.synth.dataset import renderer_of, write_dataset
    from scanner.synth.scene import RENDERER

    synth = out / "synth"
    new_renderer = renderer_of(synth) != RENDERER
    drawn = _drawn(synth) != _scenes(config, synth_n, synth_val)
    if (synth / "data.yaml").exists() and (new_renderer or drawn):
        # Drawn by an older renderer, or for other scenes: its scenes and the
        # crops cut from them are redone, and after a new renderer the board frames' crops
        # too (scanner.synth.table draws its dice with the same code).
        names = ["train", "val_synth", "val_real"]
        if new_renderer:
            names += ["train_board", "val_board"]
        shutil.rmtree(synth)
        for name in names:
            (out / f"crops_{name}.npz").unlink(missing_ok=True)
    if not (synth / "data.yaml").exists():
        write_dataset(synth, synth_n, seed, synth_val, config)
        (synth / "scenes.json").write_text(json.dumps(_scenes(config, synth_n, synth_val)))


def _scene_sets(
    out: Path, detector, seed: int, real_dir: Path | None, synth_copies: int, real_copies: int
) -> dict[str, CropSet]:
    """The rendered scenes' and the real photos' crop sets (`prepare`), each cut once."""
    synth = out / "synth"
    fit, held = real_split(real_dir) if real_dir is not None else ([], [])
    sets: dict[str, CropSet] = {}
    for name, split, real, copies, jitter in (
        ("train", "train", fit, (synth_copies, real_copies), True),
        ("val_synth", "val", [], (1, 1), False),
        ("val_real", None, held, (1, 1), False),
    ):
        path = out / f"crops_{name}.npz"
        if not path.exists():
            parts = []
            if split is not None:
                parts.append(
                    collect(
                        images_in(synth / "images" / split),
                        synth / "labels" / split,
                        synth / "colors" / split,
                        detector,
                        copies[0],
                        seed,
                        f"{name} rendered",
                        jitter,
                    )
                )
            if real and real_dir is not None:
                parts.append(
                    collect(
                        real,
                        real_dir / "labels",
                        None,
                        detector,
                        copies[1],
                        seed + 1,
                        f"{name} real",
                        jitter,
                    )
                )
            if not parts:  # no real photos given: no real validation set
                continue
            CropSet.concat(parts).save(path)
        sets[name] = CropSet.load(path)
    return sets


def hard_negatives(out: Path, cached: Path, n: int, seed: int, detector, copies: int) -> CropSet:
    """Crops of `n` extra training scenes crowded with what the reader most often takes for a
    die: pip-less cubes, most of them swirled, and printed cards. Their real dice are cut as
    positives as usual. Rendered (into `out`) and cut (into `cached`) once, like the other
    sets."""
    from scanner.synth.dataset import renderer_of, write_dataset
    from scanner.synth.scene import RENDERER, photo_config

    if cached.exists() and renderer_of(out) == RENDERER and _counts(out) == (n, 0):
        return CropSet.load(cached)
    if out.exists():
        shutil.rmtree(out)
    write_dataset(
        out,
        n,
        seed,
        0,
        photo_config(blank_cube_share=0.3, blank_marble_share=0.6, distractors=(2, 5)),
    )
    crops = collect(
        images_in(out / "images" / "train"),
        out / "labels" / "train",
        out / "colors" / "train",
        detector,
        copies,
        seed,
        "hard negatives",
        True,
    )
    crops.save(cached)
    return crops


def _scenes(config, train: int, val: int) -> dict:
    """What a rendered reader set holds: scene counts, the wider world's share, the shades."""
    return {
        "train": train,
        "val": val,
        "world": config.world,
        "side_pips": config.side_pips,
        "shades": config.shades,
        "logo_sixes": config.logo_sixes,
        "long_pips": config.long_pips,
        "translucent": config.translucent,
        "keyboards": config.keyboards,
        "tiles": config.tiles,
    }


def _drawn(synth: Path) -> dict:
    """`_scenes` of a set on disk (sets drawn before it was written hold no wider world, and
    sets drawn before the shades were named hold renderer 5's)."""
    try:
        drawn = json.loads((synth / "scenes.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        train, val = _counts(synth)
        drawn = {"train": train, "val": val, "world": 0.0, "side_pips": False}
    return {
        "shades": "game",
        "logo_sixes": 0.0,
        "long_pips": 0.0,
        "translucent": 0.0,
        "keyboards": 0.0,
        "tiles": 0.0,
        **drawn,
    }


def _boards_drawn(out: Path) -> dict:
    """How the board frames on disk were drawn (frames cut before this was written had no
    sheen, no glare, the table renderer's lean, no dice of other colours, renderer 5's shades
    and no emblems)."""
    try:
        drawn = json.loads((out / "boards.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        drawn = {"sheen": 0.0}
    return {
        "shades": "game",
        "glare": 0.0,
        "max_tilt": MAX_TILT_DEG,
        "others": 0,
        "logo_sixes": 0.0,
        **drawn,
    }


def _counts(synth: Path) -> tuple[int, int]:
    """How many train and validation scenes a rendered set on disk holds."""

    def count(split: str) -> int:
        folder = synth / "images" / split
        return len(images_in(folder)) if folder.is_dir() else 0

    return count("train"), count("val")


def detector_at_board_scale(detector):
    """The same detector, run at the rectified board's own scale as `alea scan` runs it."""
    if detector is None:
        return None
    import copy

    board = copy.copy(detector)
    board.imgsz = 0
    return board
