"""Training recipe for the shipped card classifier (``tablecam train``).

Runs in the training environment (``.venv-train`` with torch; the runtime
never imports torch).  One stage = render a deterministic corner dataset
from the training decks (never the held-out ones), train a small CNN on the
CPU with a fixed seed, export it to ONNX next to a JSON file holding the
class list and the recipe that made it.  A later stage may start from the
previous stage's weights (``--init``).

Why a CNN of our own rather than ``yolo11n-cls``: the corner crop is tiny
(48x64) and the network needs ~0.5 MFLOP per crop to run under a
millisecond per card in ONNX Runtime; a model this size trains in minutes on
two cores.  See docs/vision-model.md for the measurements.
"""

from __future__ import annotations

import functools
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from .recipes import BackCheckRecipe, ClassifierRecipe, LocaliserRecipe


# apparent resolution of the ``small`` views, a share of the 250x350 face
SMALL_SCALE = (0.25, 0.5)
# pixels a millimetre across the card of the ``oblique`` views: a 480p-720p
# webcam over a whole table (0.6: the far row at 480p through a wide lens)
# to a close one (2.0: a card 127 px wide)
OBLIQUE_PX_PER_MM = (0.6, 2.0)


def build_net(n_classes: int, width: int = 16):
    """Five 3x3 conv blocks (BN, ReLU), three max-pools, global average pool."""
    import torch.nn as nn

    def blk(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(
        *blk(3, w), nn.MaxPool2d(2),
        *blk(w, 2 * w), nn.MaxPool2d(2),
        *blk(2 * w, 4 * w), *blk(4 * w, 4 * w), nn.MaxPool2d(2),
        *blk(4 * w, 8 * w),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(8 * w, n_classes),
    )


def _geometry_tag() -> str:
    """Cache-name suffix of the corner window (empty for the legacy one, so
    earlier caches keep their names)."""
    from ..vision.classify import CORNER_BOX, INPUT_H, INPUT_W, LEGACY_CORNER_BOX, LEGACY_INPUT

    if CORNER_BOX == LEGACY_CORNER_BOX and (INPUT_W, INPUT_H) == LEGACY_INPUT:
        return ""
    return f"-c{CORNER_BOX[2]}x{CORNER_BOX[3]}-i{INPUT_W}x{INPUT_H}"


def _cached(f: Path, make):
    """The (x, y) arrays saved at ``f``, or ``make()``'s, saved there: a
    rerun of a stage skips rendering."""
    if f.exists():
        z = np.load(f)
        return z["x"], z["y"]
    x, y = make()
    f.parent.mkdir(parents=True, exist_ok=True)
    np.savez(f, x=x, y=y)
    return x, y


def _seeded(seed: int, threads: int) -> None:
    """Seed torch and numpy, fix torch's threads, and keep its algorithms
    deterministic: a recipe run twice gives the same weights."""
    import torch

    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def _set_name(kind: str, n: int, seed: int, decks: list[str] | None = None, generated: int = 0) -> str:
    """Cache file name of one rendered set (the names of earlier caches kept)."""
    from .designs import active_version

    name = f"{kind}-n{n}-s{seed}" + (f"-d{len(decks)}" if decks is not None else "")
    v = active_version()
    tag = (f"-g{generated}" + (f"v{v}" if v > 1 else "")) if generated else ""
    return name + tag + _geometry_tag() + ".npz"


def _dataset(n: int, seed: int, cache: Path, progress: bool, generated: int = 0):
    from ..vision.classify import CLASSES
    from .faces import training_decks
    from .synth import corner_dataset

    decks = training_decks(generated)
    x, y = _cached(cache / _set_name("corners", n, seed, decks, generated),
                   lambda: corner_dataset(n, decks, seed=seed, classes=CLASSES, progress=progress))
    return x, y, decks


def _affine_jitter(xb, strength: float, g):
    """Each crop scaled by 1 +/- ``strength``, turned by up to ``strength``/2
    radians and shifted by up to ``strength`` of its size (edges repeated)."""
    import torch
    import torch.nn.functional as F

    n = len(xb)
    u = torch.rand(n, 4, generator=g) * 2 - 1
    s = 1 + strength * u[:, 0]
    a = 0.5 * strength * u[:, 1]
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = s * torch.cos(a)
    theta[:, 0, 1] = -s * torch.sin(a)
    theta[:, 1, 0] = s * torch.sin(a)
    theta[:, 1, 1] = s * torch.cos(a)
    theta[:, :, 2] = 2 * strength * u[:, 2:]
    grid = F.affine_grid(theta, list(xb.shape), align_corners=False)
    return F.grid_sample(xb, grid, padding_mode="border", align_corners=False)


def _deck_views(kind: str, make, n: int, seed: int, cache: Path, generated: int = 0):
    """``n`` rendered views of the training decks (``make(n, decks,
    seed=)``: wrong-quad or pile views), cached under ``kind``."""
    from .faces import training_decks

    decks = training_decks(generated)
    return _cached(cache / _set_name(kind, n, seed, decks, generated), lambda: make(n, decks, seed=seed))


def _oblique(n: int, seed: int, cache: Path, generated: int = 0):
    """``n`` corner views of the training decks seen small and oblique
    through a webcam (:func:`~tablecam.training.synth.oblique_sample`),
    cached under ``oblique0.6-2``."""
    from ..vision.classify import CLASSES
    from .synth import corner_dataset

    lo, hi = OBLIQUE_PX_PER_MM
    make = functools.partial(corner_dataset, classes=CLASSES, camera=OBLIQUE_PX_PER_MM)
    return _deck_views(f"oblique{lo:g}-{hi:g}", make, n, seed, cache, generated)


def _real_faces(cache: Path):
    """The edje train split's real faces (:func:`~tablecam.training.realfaces.edje_faces`), cached."""
    from .realfaces import edje_faces

    def make():
        faces, ranks = edje_faces()
        return faces, np.array(ranks)

    faces, ranks = _cached(cache / "realfaces-edje-train.npz", make)
    return faces, [str(r) for r in ranks]


def _real_views(faces: np.ndarray, ranks: list[str], n: int, seed: int, cache: Path,
                camera: tuple[float, float] | None, wrong: bool = False):
    """``n`` rank-labelled corner views of the real faces, or with
    ``wrong`` views through wrong quads labelled ``none``
    (:func:`~tablecam.training.realfaces.face_views`), cached."""
    from ..vision.classify import CLASSES
    from .realfaces import face_views

    kind = f"real{len(faces)}" + (f"-oblique{camera[0]:g}-{camera[1]:g}" if camera else "") + ("-offcorner" if wrong else "")
    none = CLASSES.index("none") if wrong else None
    return _cached(cache / _set_name(kind, n, seed),
                   lambda: face_views(faces, ranks, n, seed, len(CLASSES), camera, none=none))


def _prints(n: int, seed: int, cache: Path):
    from .synth import print_dataset

    return _cached(cache / _set_name("prints", n, seed), lambda: print_dataset(n, seed=seed))


def _loss(out, yb, smoothing: float, groups=None, soft=None):
    """The batch's mean loss and how many it read right.  With ``soft``
    (a teacher's probabilities for the batch) the cross-entropy against
    them, and "right" is agreeing with the teacher's likeliest class;
    else cross-entropy with label ``smoothing`` for a label that names a class; for a label
    past the classes (``realfaces.rank_label``: a real card whose rank
    alone is known) minus the log of its rank's four cards' probability
    together (``groups``: one row of classes a rank), so a rank is taught
    and no suit is guessed."""
    import torch
    import torch.nn.functional as F

    if soft is not None:
        loss = -(soft * F.log_softmax(out, 1)).sum(1).mean()
        return loss, int((out.argmax(1) == soft.argmax(1)).sum())
    if groups is None:  # every label a class: the loss every earlier stage was trained with, bit for bit
        return F.cross_entropy(out, yb, label_smoothing=smoothing), int((out.argmax(1) == yb).sum())
    n = out.shape[1]
    exact = yb < n
    loss = out.new_zeros(())
    right = int((out[exact].argmax(1) == yb[exact]).sum())
    if bool(exact.any()):
        loss = loss + F.cross_entropy(out[exact], yb[exact], label_smoothing=smoothing, reduction="sum")
    if not bool(exact.all()):
        o, allowed = out[~exact], groups[yb[~exact] - n]
        loss = loss + (torch.logsumexp(o, 1) - torch.logsumexp(o.masked_fill(~allowed, float("-inf")), 1)).sum()
        right += int(allowed.gather(1, o.argmax(1, keepdim=True)).sum())
    return loss / len(yb), right


def _fit(net, xt, yt, epochs: int, batch: int, lr: float, g, augment, smoothing: float = 0.05,
         progress: bool = True, groups=None, teacher=None) -> list[dict]:
    """Train ``net`` on uint8 images ``xt`` and labels ``yt``: AdamW,
    one-cycle learning rate, cross-entropy with label ``smoothing`` (a
    rank-only label against its ``groups`` row, :func:`_loss`), each
    batch scaled to [0, 1] and passed through ``augment`` (which draws
    from the generator ``g``, as the shuffling does); a progress bar, or a
    line per epoch; with a ``teacher`` (logits of the log of a mean
    probability, :func:`averaged_net`) the net learns the teacher's
    probabilities on each augmented batch instead of the labels.  Returns
    the loss and accuracy of each epoch."""
    import torch

    from .synth import progress_bar

    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(xt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    bar = progress_bar(steps, "train", "batch", progress)
    history = []
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(xt), generator=g)
        tot, correct, loss_sum = 0, 0, 0.0
        for i in range(0, len(xt), batch):
            idx = perm[i:i + batch]
            xb = augment(xt[idx].float() / 255.0)
            yb = yt[idx]
            soft = None
            if teacher is not None:
                with torch.no_grad():
                    soft = torch.softmax(teacher(xb), 1)
            out = net(xb)
            loss, right = _loss(out, yb, smoothing, groups, soft)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += len(yb)
            correct += right
            loss_sum += loss.item() * len(yb)
            if bar:
                bar.update(1)
                bar.set_postfix(epoch=ep + 1, loss=f"{loss_sum / tot:.3f}", acc=f"{correct / tot:.3f}")
        history.append({"epoch": ep + 1, "loss": round(loss_sum / tot, 4), "train_acc": round(correct / tot, 4)})
        if not bar:
            print(f"epoch {ep + 1}/{epochs} loss {loss_sum / tot:.3f} acc {correct / tot:.3f}", flush=True)
    if bar:
        bar.close()
    return history


def train_classifier(out_dir: Path, recipe: ClassifierRecipe = ClassifierRecipe(), data_dir: Path = Path("data"),
                     progress: bool = True) -> dict:
    """Train (or fine-tune from ``recipe.init``) the corner classifier as
    ``recipe`` says (:class:`~tablecam.training.recipes.ClassifierRecipe`);
    write ``card_classifier.pt``, ``.onnx`` and ``.json`` (classes, input,
    the recipe and the history) to ``out_dir``; rendered sets are cached in
    ``data_dir``."""
    import torch

    from ..vision.classify import CLASSES
    from .designs import VERSION, active_version, drawing
    from .synth import cable_dataset, corner_dataset, joker_dataset, offcorner_dataset, pile_dataset

    r = recipe
    t0 = time.time()
    _seeded(r.seed, r.threads)
    parts = [_dataset(r.samples, s, data_dir, progress, r.generated) for s in r.seeds]
    decks = parts[-1][2]
    if r.offcorner:
        parts.append((*_deck_views("offcorner", offcorner_dataset, r.offcorner, r.seed, data_dir, r.generated), decks))
    if r.prints:
        parts.append((*_prints(r.prints, r.seed, data_dir), decks))
    if r.piles:
        kind = "piles" if r.pile_seen == 0.8 else f"piles{r.pile_seen:g}"  # the earlier caches keep their names
        make = functools.partial(pile_dataset, seen=r.pile_seen)
        parts.append((*_deck_views(kind, make, r.piles, r.seed, data_dir, r.generated), decks))
    if r.cables:
        parts.append((*_deck_views("cables", cable_dataset, r.cables, r.seed, data_dir, r.generated), decks))
    if r.small:
        make = functools.partial(corner_dataset, classes=CLASSES, scale=SMALL_SCALE)
        kind = f"small{SMALL_SCALE[0]:g}-{SMALL_SCALE[1]:g}"
        parts.append((*_deck_views(kind, make, r.small, r.seed, data_dir, r.generated), decks))
    if r.oblique:
        parts.append((*_oblique(r.oblique, r.seed, data_dir, r.generated), decks))
    if r.jokers:
        with drawing(VERSION):
            parts.append((*_deck_views("jokers", joker_dataset, r.jokers, r.seed, data_dir, r.generated), decks))
    groups = None
    if r.real or r.real_oblique or r.real_offcorner:
        from .realfaces import rank_masks

        faces, ranks = _real_faces(data_dir)
        if r.real:
            parts.append((*_real_views(faces, ranks, r.real, r.seed, data_dir, None), decks))
        if r.real_oblique:
            parts.append((*_real_views(faces, ranks, r.real_oblique, r.seed, data_dir, OBLIQUE_PX_PER_MM), decks))
        if r.real_offcorner:
            parts.append((*_real_views(faces, ranks, r.real_offcorner, r.seed, data_dir, None, wrong=True), decks))
        groups = torch.from_numpy(rank_masks(CLASSES))
    if r.detect_views:
        from .distil import detect_view_set

        views = data_dir / f"detect-views-n{r.detect_views}-s{r.seed}-photos.npz"
        parts.append((*_cached(views, lambda: detect_view_set(r.detect_views, r.seed)), decks))
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    t_data = time.time() - t0
    xt = torch.from_numpy(x)
    yt = torch.from_numpy(y)
    net = build_net(len(CLASSES), r.width)
    if r.init:
        net.load_state_dict(torch.load(r.init, map_location="cpu"))
    g = torch.Generator().manual_seed(r.seed)

    def augment(xb):
        # small translations: the localiser's corner is never exact
        dx, dy = torch.randint(-3, 4, (2,), generator=g).tolist()
        xb = torch.roll(xb, shifts=(dy, dx), dims=(2, 3))
        if r.jitter > 0:
            xb = _affine_jitter(xb, r.jitter, g)
        if r.gray > 0:
            g_mask = torch.rand(len(xb), generator=g) < r.gray
            xb[g_mask] = xb[g_mask].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
        return xb

    teacher = averaged_net(list(r.teacher)) if r.teacher else None
    history = _fit(net, xt, yt, r.epochs, r.batch, r.lr, g, augment, progress=progress, groups=groups,
                   teacher=teacher)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out_dir / "card_classifier.pt")
    model_meta = _export_classifier(net.eval(), out_dir)
    wall = time.time() - t0
    meta = {
        **model_meta,
        "recipe": {
            "command": " ".join(sys.argv),
            "samples": int(len(xt)), "epochs": r.epochs, "seed": r.seed, "threads": r.threads,
            "data_seeds": r.seeds, "generated_decks": r.generated,
            "design_version": active_version() if r.generated else None, "gray": r.gray, "jitter": r.jitter,
            "offcorner": r.offcorner, "prints": r.prints, "piles": r.piles, "pile_seen": r.pile_seen,
            "cables": r.cables, "jokers": r.jokers, "jokers_design_version": VERSION if r.jokers else None,
            "small": r.small, "small_scale": SMALL_SCALE if r.small else None,
            "oblique": r.oblique, "oblique_px_per_mm": OBLIQUE_PX_PER_MM if r.oblique else None,
            "real": r.real, "real_oblique": r.real_oblique, "real_offcorner": r.real_offcorner,
            "teacher": [str(t) for t in r.teacher], "detect_views": r.detect_views,
            "batch": r.batch, "lr": r.lr, "width": r.width, "init": str(r.init) if r.init else None,
            "train_decks": decks, "data_seconds": round(t_data, 1), "wall_seconds": round(wall, 1),
            "torch": torch.__version__, "machine": platform.processor() or platform.machine(),
        },
        "history": history,
    }
    (out_dir / "card_classifier.json").write_text(json.dumps(meta, indent=1))
    return meta


def _export_classifier(net, out_dir: Path) -> dict:
    """Write ``net`` (a corner classifier, logits out) as
    ``card_classifier.onnx`` and return the JSON fields the reader needs:
    classes and input format, corner window included."""
    from ..vision.classify import CLASSES, CORNER_BOX, INPUT_H, INPUT_W

    _to_onnx(net, out_dir / "card_classifier.onnx", "corners", INPUT_H, INPUT_W)
    return {"classes": CLASSES,
            "input": {"shape": [3, INPUT_H, INPUT_W], "scale": "1/255", "channels": "BGR",
                      "corner_box": list(CORNER_BOX)}}


def _to_onnx(net, path: Path, input_name: str, h: int, w: int) -> None:
    """Export an image network (N x 3 x ``h`` x ``w`` in, ``logits`` out,
    any batch size) as opset-17 ONNX at ``path``."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, h, w), str(path), input_names=[input_name], output_names=["logits"],
                      dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)


def train_back_check(out_dir: Path, recipe: BackCheckRecipe = BackCheckRecipe(), data_dir: Path = Path("data"),
                     progress: bool = True) -> dict:
    """Train the whole-card back check (``backs.py``) as ``recipe`` says
    (:class:`~tablecam.training.recipes.BackCheckRecipe`: views of cards in
    rendered scenes on the real train photos' floors, decoys, prints and,
    with ``printed``, drawn printed matter),
    then export ``back_check.onnx`` and its JSON (classes, input, recipe)
    to ``out_dir``; rendered views are cached in ``data_dir``."""
    import torch

    from ..vision.backs import BACK_CLASSES, VIEW_H, VIEW_W
    from .backdata import back_views
    from .faces import training_decks
    from .locdata import real_floors

    r = recipe
    t0 = time.time()
    _seeded(r.seed, r.threads)
    decks = training_decks(r.generated)
    kind = "backviews" + (f"-loose{r.loose:g}" if r.loose else "")
    x, y = _cached(data_dir / _set_name(kind, r.samples, r.seed, decks, r.generated),
                   lambda: back_views(r.samples, decks, seed=r.seed, reals=real_floors(), progress=progress,
                                      loose=r.loose))
    none = BACK_CLASSES.index("none")
    if r.decoys:
        from .backdata import real_decoys

        d = real_decoys(r.decoys, seed=r.seed)
        x, y = np.concatenate([x, d]), np.concatenate([y, np.full(len(d), none, np.int64)])
    if r.prints:
        from ..vision.backs import card_view
        from .synth import print_sample

        rng = np.random.default_rng(r.seed)
        p = np.stack([card_view(print_sample(rng)) for _ in range(r.prints)])
        x, y = np.concatenate([x, p]), np.concatenate([y, np.full(len(p), none, np.int64)])
    if r.printed:
        from .printed import printed_views

        p = printed_views(r.printed, seed=r.seed, floors=real_floors())
        x, y = np.concatenate([x, p]), np.concatenate([y, np.full(len(p), none, np.int64)])
    t_data = time.time() - t0
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    net = build_net(len(BACK_CLASSES), r.width)
    g = torch.Generator().manual_seed(r.seed)

    def either_way_up(xb):  # a card lies either way up
        flip = torch.rand(len(xb), generator=g) < 0.5
        xb[flip] = torch.flip(xb[flip], dims=(2, 3))
        return xb

    history = _fit(net, xt, yt, r.epochs, r.batch, r.lr, g, either_way_up, smoothing=r.smoothing, progress=progress)
    out_dir.mkdir(parents=True, exist_ok=True)
    net.eval()
    torch.save(net.state_dict(), out_dir / "back_check.pt")
    _to_onnx(net, out_dir / "back_check.onnx", "card", VIEW_H, VIEW_W)
    meta = {"classes": BACK_CLASSES,
            "input": {"shape": [3, VIEW_H, VIEW_W], "scale": "1/255", "channels": "BGR", "view": "whole card"},
            "recipe": {"command": " ".join(sys.argv), "samples": int(len(xt)), "labels": np.bincount(y, minlength=3).tolist(),
                       "epochs": r.epochs, "seed": r.seed, "threads": r.threads, "generated_decks": r.generated,
                       "smoothing": r.smoothing, "decoys": r.decoys, "prints": r.prints, "loose": r.loose,
                       "printed": r.printed, "batch": r.batch, "lr": r.lr, "width": r.width, "train_decks": decks,
                       "data_seconds": round(t_data, 1), "wall_seconds": round(time.time() - t0, 1),
                       "torch": torch.__version__, "machine": platform.processor() or platform.machine()},
            "history": history}
    (out_dir / "back_check.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def _member_recipe(weights: Path) -> dict:
    """The recipe in the JSON beside a stage's ``.pt``, if there is one.

    Where that JSON is an average built from these weights (shipped
    ``models/card_classifier.pt`` is stage 6, and ``card_classifier.json``
    beside it describes the average of stages 6 and 14), the stage's own
    recipe is the one the average recorded for it, so rebuilding the
    average in place writes the same JSON again."""
    j = Path(weights).with_suffix(".json")
    recipe = json.loads(j.read_text()).get("recipe", {}) if j.exists() else {}
    names = [Path(m).name for m in recipe.get("average_of", [])]
    if Path(weights).name in names:
        return recipe["members"][names.index(Path(weights).name)]
    return recipe


def averaged_net(members: list[Path], recipes: list[dict] | None = None):
    """The corner classifiers of ``members`` (``.pt`` weights) as one torch
    module whose output is the log of their mean probability: a softmax
    of it gives back the mean, so it reads where one stage read.  Each
    member is built as wide as its recipe says."""
    import torch

    from ..vision.classify import CLASSES

    recipes = recipes or [_member_recipe(m) for m in members]
    nets = torch.nn.ModuleList()
    for m, r in zip(members, recipes):
        net = build_net(len(CLASSES), r.get("width", 16))
        net.load_state_dict(torch.load(m, map_location="cpu"))
        nets.append(net.eval())

    class Mean(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.nets = nets

        def forward(self, x):
            p = torch.stack([torch.softmax(n(x), 1) for n in self.nets]).mean(0)
            return torch.log(p.clamp_min(1e-12))

    return Mean().eval()


def average_classifiers(members: list[Path], out_dir: Path) -> dict:
    """One ONNX classifier averaging the probabilities of several stages
    (:func:`averaged_net`).  Two stages that err on different cards (stage
    6 on jokers, a joker stage on loose quads over piles) each pull the
    other's sure mistakes under the read floors; the cost is one more
    network per corner view.  The members' recipes are kept in the JSON."""
    import torch

    t0 = time.time()
    recipes = [_member_recipe(m) or {"weights": str(m)} for m in members]
    model_meta = _export_classifier(averaged_net(members, recipes), out_dir)
    meta = {**model_meta,
            "recipe": {"command": " ".join(sys.argv), "average_of": [str(m) for m in members],
                       "members": recipes, "wall_seconds": round(time.time() - t0, 1), "torch": torch.__version__}}
    (out_dir / "card_classifier.json").write_text(json.dumps(meta, indent=1))
    return meta


# ---------------------------------------------------------------- localiser


def _offline_ultralytics(config_dir: Path) -> None:
    """Ultralytics without the network: no hub weights, no auto-installs,
    and the font it would download is a local TTF (else training stalls)."""
    import os
    import shutil

    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "0")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir.resolve()))
    font_dir = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    if not (font_dir / "Arial.ttf").exists():
        font = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        if not font.exists():
            import matplotlib

            font = Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"
        shutil.copyfile(font, font_dir / "Arial.ttf")


def _pretrained(init: Path | None, transfer: Path | None) -> str | bool:
    """Ultralytics' ``pretrained`` for a stage: the weights to copy layers
    from (``transfer``), else True when the stage fine-tunes ``init`` -
    Ultralytics 8.4 drops the loaded checkpoint's weights when told
    ``pretrained=False`` - and False for a model built from its yaml.

    >>> _pretrained(None, None), _pretrained(Path("a.pt"), None), _pretrained(None, Path("b.pt"))
    (False, True, 'b.pt')
    """
    if transfer:
        return str(transfer)
    return bool(init)


def train_localiser(data_yaml: Path, out_dir: Path, recipe: LocaliserRecipe = LocaliserRecipe(),
                    workers: int = 2) -> dict:
    """One stage of the card localiser as ``recipe`` says
    (:class:`~tablecam.training.recipes.LocaliserRecipe`): Ultralytics from
    the model yaml (no pretrained weights) or from the previous stage's
    weights, on the CPU, deterministic seed, trained on ``data_yaml`` in the
    run directory ``out_dir``; exported by :func:`export_localiser`.  Needs
    the training venv."""
    r = recipe
    t0 = time.time()
    _offline_ultralytics(Path("data") / "yolo_config")
    from ultralytics import YOLO

    model = YOLO(str(r.init)) if r.init else YOLO(r.model)
    out_dir = out_dir.resolve()
    model.train(data=str(Path(data_yaml).resolve()), epochs=r.epochs, imgsz=r.imgsz, batch=r.batch, workers=workers,
                device="cpu", seed=r.seed, deterministic=True, amp=False, plots=False, project=str(out_dir.parent),
                name=out_dir.name, exist_ok=True, lr0=r.lr0, close_mosaic=r.close_mosaic, single_cls=True,
                degrees=0.0, flipud=0.5, fliplr=0.5, pretrained=_pretrained(r.init, r.transfer),
                verbose=True, patience=1000,
                **({"time": r.hours} if r.hours else {}))
    recipe_json = {"command": " ".join(sys.argv), "data": str(data_yaml), "epochs": r.epochs, "imgsz": r.imgsz,
                   "seed": r.seed, "batch": r.batch, "init": str(r.init) if r.init else None, "model": r.model,
                   "lr0": r.lr0, "hours": r.hours, "transfer": str(r.transfer) if r.transfer else None,
                   "wall_seconds": round(time.time() - t0, 1)}
    return export_localiser(out_dir / "weights" / "best.pt", out_dir, r.imgsz, recipe=recipe_json)


def export_localiser(weights: Path, out_dir: Path, imgsz: int, recipe: dict | None = None) -> dict:
    """best.pt -> card_localiser.onnx (dynamic height and width, raw head
    output (1, 5, N): cx, cy, w, h, card score; an OBB model adds the
    angle) and card_localiser.json beside it, holding ``recipe`` (a
    re-export without one keeps the recipe already there)."""
    import shutil

    _offline_ultralytics(Path("data") / "yolo_config")
    from ultralytics import YOLO

    import tempfile

    out_dir.mkdir(parents=True, exist_ok=True)
    dst = out_dir / "card_localiser.onnx"
    with tempfile.TemporaryDirectory() as td:
        # Ultralytics writes the .onnx beside the weights: export a copy, so exporting
        # models/card_localiser.pt never overwrites the shipped models/card_localiser.onnx
        tmp = Path(td) / Path(weights).name
        shutil.copyfile(weights, tmp)
        m = YOLO(str(tmp))
        f = m.export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=True, half=False, device="cpu")
        shutil.copyfile(f, dst)
    meta = {"onnx": str(dst), "imgsz": imgsz, "infer_imgsz": imgsz, "classes": ["card"], "weights": str(weights),
            "obb": m.task == "obb"}
    js = dst.with_suffix(".json")
    if recipe is None and js.exists():
        recipe = json.loads(js.read_text()).get("recipe")
    if recipe is not None:
        meta["recipe"] = recipe
    js.write_text(json.dumps(meta, indent=1))
    return meta
