"""The whole-card reader's training views and recipe: a card seen small, read by its whole face.

Why a reader of the whole face: at 480p a card lies on the table at 0.4 to
0.9 frame pixels a millimetre, its index 3 to 6 pixels tall, and the corner
classifier mixes up ranks and suits there.  The whole card still shows what
a player across the room sees: how many pips and where, their colour, a
court card's picture.  The runtime reader
(:mod:`tablecam.vision.whole_card`) looks at the rectified card at 40x56 -
about what such a camera gives it - and its read is multiplied into the
corner read of a card seen that small.

The views are those of :func:`~tablecam.training.synth.oblique_sample`
(the card on a rendered table, seen through a webcam at a tilt, rectified
back through its outline a little off) at 0.35 to 1.0 px/mm, some with a
glossy table's reflection across the card, shrunk to the reader's size.
Classes: the 52 cards and the joker; the training decks only (never the
held-out designs or ``drawn-serif-bold``).
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ..vision.whole_card import CLASSES, VIEW_H, VIEW_W, view
from .recipes import WholeCardRecipe


def glare(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A glossy table's light reflected across part of the card: a soft bright
    band or blob of 30-90 % strength, tinted by the lamp."""
    import cv2

    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    c = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
    axes = (float(rng.uniform(0.15, 0.8)) * w, float(rng.uniform(0.05, 0.4)) * h)
    cv2.ellipse(mask, (int(c[0]), int(c[1])), (int(axes[0]), int(axes[1])), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(6, 30)))
    tint = rng.uniform(225, 255, 3).astype(np.float32)
    a = float(rng.uniform(0.3, 0.9)) * mask[..., None]
    return np.clip(img.astype(np.float32) * (1 - a) + tint * a, 0, 255).astype(np.uint8)


def seen_small(face: np.ndarray, rng: np.random.Generator, px_per_mm: tuple[float, float], glare_share: float,
               pool) -> np.ndarray:
    """``face`` as the pipeline's 250x350 rectified card of a card seen at ``px_per_mm``: on a
    rendered table through the webcam look, now and then a finger over a corner, a reflection
    across ``glare_share`` of them (the training views, and the bench's)."""
    from .synth import oblique_sample

    card = oblique_sample(face, rng, px_per_mm, occlude=0.1, pool=pool)
    if rng.random() < glare_share:
        card = glare(card, rng)
    return card


def dataset(n: int, decks: list[str], seed: int, px_per_mm: tuple[float, float], glare_share: float,
            progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``n`` views, each class equally often, decks drawn at random: (N, 3, 56, 40) uint8 and labels."""
    from .faces import render_face
    from .synth import TexturePool

    rng = np.random.default_rng(seed)
    pool = TexturePool(rng)
    faces: dict[tuple[str, str], np.ndarray] = {}
    x = np.zeros((n, 3, VIEW_H, VIEW_W), np.uint8)
    y = np.zeros(n, np.int64)
    t0 = time.time()
    for i in range(n):
        k = i % len(CLASSES)
        deck = decks[int(rng.integers(len(decks)))]
        if (deck, CLASSES[k]) not in faces:
            faces[deck, CLASSES[k]] = render_face(CLASSES[k], deck)
        x[i] = view(seen_small(faces[deck, CLASSES[k]], rng, px_per_mm, glare_share, pool))
        y[i] = k
        if progress and i and i % 5000 == 0:
            print(f"  {i} views in {time.time() - t0:.0f} s", file=sys.stderr)
    return x, y


def _parallel(n: int, decks: list[str], seed: int, r: WholeCardRecipe) -> tuple[np.ndarray, np.ndarray]:
    """:func:`dataset` in ``r.threads`` processes, each its own seed (the same views every run)."""
    from concurrent.futures import ProcessPoolExecutor

    parts = max(1, r.threads)
    sizes = [n // parts + (i < n % parts) for i in range(parts)]
    with ProcessPoolExecutor(parts) as ex:
        out = list(ex.map(dataset, sizes, [decks] * parts, [seed * 100 + i for i in range(parts)],
                          [r.px_per_mm] * parts, [r.glare] * parts, [True] + [False] * (parts - 1)))
    return np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out])


def network(width: int, classes: int):
    """A small convolutional network for a 56x40 card: four blocks, then one linear layer."""
    import torch.nn as nn

    def block(i: int, o: int, pool: bool) -> list:
        layers = [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]
        return layers + ([nn.MaxPool2d(2)] if pool else [])

    w = width
    return nn.Sequential(*block(3, w, False), *block(w, w, True), *block(w, 2 * w, True), *block(2 * w, 2 * w, True),
                         *block(2 * w, 4 * w, True), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(4 * w, classes))


def train(r: WholeCardRecipe, out: Path) -> dict:
    """Render, train and export ``whole_card.onnx`` and its JSON to ``out``; the report it writes."""
    import torch
    import torch.nn.functional as F

    from .designs import validation_designs
    from .faces import HELD_OUT_DECKS, training_decks

    torch.manual_seed(r.seed)
    torch.set_num_threads(r.threads)
    out.mkdir(parents=True, exist_ok=True)
    decks = training_decks(r.generated)
    t0 = time.time()
    x, y = _views(out / f"views-n{r.samples}-s{r.seed}-d{len(decks)}.npz", r.samples, decks, r.seed, r)
    # the tuning check after each epoch: generated designs no model trains on; the held-out designs
    # are read once, at the end
    xv, yv = _views(out / f"val-n{r.held_out}-s{r.seed}.npz", r.held_out, validation_designs(8), r.seed + 2, r)
    xh, yh = _views(out / f"held-n{r.held_out}-s{r.seed}.npz", r.held_out, list(HELD_OUT_DECKS), r.seed + 1, r)
    print(f"{len(x)} training views of {len(decks)} decks, {len(xv)} validation and {len(xh)} held-out views "
          f"in {time.time() - t0:.0f} s", file=sys.stderr)
    net = network(r.width, len(CLASSES))
    opt = torch.optim.AdamW(net.parameters(), lr=r.lr, weight_decay=1e-4)
    steps = r.epochs * math.ceil(len(x) / r.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=r.lr, total_steps=steps)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    g = torch.Generator().manual_seed(r.seed)
    for epoch in range(r.epochs):
        net.train()
        order = torch.randperm(len(xt), generator=g)
        loss_sum, t1 = 0.0, time.time()
        for s in range(0, len(order), r.batch):
            idx = order[s:s + r.batch]
            xb = xt[idx].float() / 255.0
            if torch.rand(1, generator=g).item() < 0.5:
                xb = xb.flip(2).flip(3)              # the card turned end over end
            gray = torch.rand(len(xb), generator=g) < 0.1
            xb[gray] = xb[gray].mean(1, keepdim=True).expand(-1, 3, -1, -1)
            loss = F.cross_entropy(net(xb), yt[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += float(loss.detach()) * len(idx)
        acc = _accuracy(net, xv, yv)
        print(f"epoch {epoch + 1}/{r.epochs}: loss {loss_sum / len(xt):.3f}, validation top-1 {acc:.3f} "
              f"({time.time() - t1:.0f} s)", file=sys.stderr)
    net.eval()
    onnx = out / "whole_card.onnx"
    torch.onnx.export(net, torch.zeros(1, 3, VIEW_H, VIEW_W), str(onnx), input_names=["card"], output_names=["logits"],
                      dynamic_axes={"card": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    report = {"classes": CLASSES, "input": [3, VIEW_H, VIEW_W], "recipe": asdict(r), "decks": len(decks),
              "held_out": {"decks": list(HELD_OUT_DECKS), "views": len(xh), "top1": round(_accuracy(net, xh, yh), 4)},
              "seconds": round(time.time() - t0)}
    (out / "whole_card.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def _views(path: Path, n: int, decks: list[str], seed: int, r: WholeCardRecipe) -> tuple[np.ndarray, np.ndarray]:
    """``n`` views of ``decks`` (:func:`_parallel`), cached at ``path``."""
    from .train import _cached

    return _cached(path, lambda: _parallel(n, decks, seed, r))


def _accuracy(net, x: np.ndarray, y: np.ndarray) -> float:
    import torch

    net.eval()
    with torch.no_grad():
        hits = 0
        for s in range(0, len(x), 512):
            p = net(torch.from_numpy(x[s:s + 512]).float() / 255.0).argmax(1).numpy()
            hits += int((p == y[s:s + 512]).sum())
    return hits / max(1, len(x))


def main(argv: list[str] | None = None) -> int:
    import argparse

    d = WholeCardRecipe()
    ap = argparse.ArgumentParser(prog="python -m tablecam.training.whole_card", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("-n", "--samples", type=int, default=d.samples)
    ap.add_argument("--generated-decks", type=int, default=d.generated)
    ap.add_argument("--epochs", type=int, default=d.epochs)
    ap.add_argument("--width", type=int, default=d.width)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--held-out", type=int, default=d.held_out)
    ap.add_argument("--threads", type=int, default=d.threads)
    a = ap.parse_args(argv)
    r = WholeCardRecipe(samples=a.samples, generated=a.generated_decks, epochs=a.epochs, width=a.width, seed=a.seed,
                        held_out=a.held_out, threads=a.threads)
    print(json.dumps(train(r, a.out)["held_out"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
