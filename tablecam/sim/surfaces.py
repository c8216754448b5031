"""Table surfaces for the video simulator: cloth, felt, wood, layouts, glossy tops.

A real camera pipeline fails on the tables the project never rendered (a
black cloth where no pixel is "bare mid-grey table", a taped layout whose
median colour is the tape), so the simulator paints the table plane from a
list of surfaces a card room really has.  Two kinds:

* **cut from real photos** in ``../shared/data/real-photos/`` (bare regions
  only, never a card): the green felt and the white table around it of
  ``blackjack-tracker/club3.jpg`` (MIT), oak table tops, a dark blue cloth and
  a carpet of ``edje/train/`` (Apache-2.0; the train split only, so the
  ``test/`` photos stay unseen), the cardboard of ``jackfurby/`` (MIT).  A
  small crop is scaled to the table's millimetres and grown to the whole
  plane by quilting random patches of it with feathered seams.
  ``blackjack-tracker`` and ``jackfurby`` are evaluation sets of card
  identities: the cut regions hold no card, but a training set built from
  these videos should leave those surfaces out (:data:`EVAL_SOURCES`).
* **generated**: black cloth, classic green felt, blue felt with tape lines,
  a dark table with a taped poker layout, a printed blackjack layout, white
  laminate, a glossy lacquered top with lamp and window reflections, and
  generated wood.

:func:`paint_surface` returns the BGR plane for a table of ``size_mm`` at
``ppm`` pixels per millimetre; ``origin_mm`` is where the calibrated area's NW
corner lies in that plane (layouts are drawn around the playing area).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

REAL_PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-photos"


@dataclass(frozen=True)
class PhotoCut:
    """A bare region of a real photo: file (under real-photos/), rect x, y, w, h in px, px per mm.

    ``patch_mm``: the quilting patch; large for textures with structure
    (folds, grain), small for fine ones (felt, carpet)."""

    file: str
    rect: tuple[int, int, int, int]
    px_per_mm: float
    patch_mm: float = 40.0


# Bare regions, chosen by eye on a grid drawn over each photo (no card, no card edge).
PHOTO_SURFACES: dict[str, list[PhotoCut]] = {
    "felt-real": [PhotoCut("blackjack-tracker/club3.jpg", (230, 700, 900, 60), 1.5)],
    "white-real": [PhotoCut("blackjack-tracker/club3.jpg", (210, 118, 560, 64), 1.5)],
    "wood-real": [PhotoCut("edje/train/IMG_2687.JPG", (0, 0, 378, 185), 1.6, 110)],
    "cloth-real": [PhotoCut("edje/train/IMG_2407.JPG", (0, 0, 378, 185), 1.8, 95),
                   PhotoCut("edje/train/IMG_2407.JPG", (0, 365, 378, 139), 1.8, 95)],
    "carpet-real": [PhotoCut("edje/train/IMG_2385.JPG", (235, 0, 143, 504), 1.9),
                    PhotoCut("edje/train/IMG_2385.JPG", (0, 0, 378, 160), 1.9)],
    "cardboard-real": [PhotoCut("jackfurby/PXL_20230407_145533419.jpg", (80, 20, 1400, 460), 4.8)],
}
EVAL_SOURCES = ("blackjack-tracker", "jackfurby")
"""Real-photo folders that are evaluation sets (their surfaces: ``felt-real``, ``white-real``, ``cardboard-real``)."""


def _photo(file: str) -> np.ndarray | None:
    import cv2

    p = REAL_PHOTOS / file
    return cv2.imread(str(p)) if p.exists() else None


def quilt(sources: list[np.ndarray], h: int, w: int, rng: np.random.Generator, patch: int = 64,
          flips: bool = True) -> np.ndarray:
    """Grow a texture of ``h`` x ``w`` from random patches of ``sources``, seams feathered.

    Stochastic textures (felt, cloth, carpet, grain) do not need an exact
    min-cut: overlapping patches blended with tent weights hide the seams well
    enough for a camera that sees them through a lens and a codec.
    """
    srcs = [s for s in sources if s.shape[0] >= 8 and s.shape[1] >= 8]
    p = max(8, min([patch] + [min(s.shape[:2]) for s in srcs]))
    step = max(4, (3 * p) // 4)
    acc = np.zeros((h + p, w + p, 3), np.float32)
    wsum = np.zeros((h + p, w + p, 1), np.float32)
    ramp = np.minimum(np.arange(p) + 1, p - np.arange(p)).astype(np.float32)
    tent = np.minimum(ramp[:, None], ramp[None, :])[..., None]
    for y in range(0, h, step):
        for x in range(0, w, step):
            s = srcs[int(rng.integers(len(srcs)))]
            sy = int(rng.integers(0, s.shape[0] - p + 1))
            sx = int(rng.integers(0, s.shape[1] - p + 1))
            piece = s[sy:sy + p, sx:sx + p].astype(np.float32)
            if flips and rng.random() < 0.5:
                piece = piece[:, ::-1]
            acc[y:y + p, x:x + p] += piece * tent
            wsum[y:y + p, x:x + p] += tent
    return np.clip(acc[:h, :w] / np.maximum(wsum[:h, :w], 1e-6), 0, 255).astype(np.uint8)


def _from_photos(name: str, h: int, w: int, ppm: float, rng: np.random.Generator) -> np.ndarray | None:
    import cv2

    srcs = []
    patch = 24
    for cut in PHOTO_SURFACES[name]:
        patch = max(patch, int(cut.patch_mm * ppm))
        img = _photo(cut.file)
        if img is None:
            continue
        x, y, cw, ch = cut.rect
        crop = img[y:y + ch, x:x + cw]
        f = ppm / cut.px_per_mm
        crop = cv2.resize(crop, (max(8, int(round(cw * f))), max(8, int(round(ch * f)))),
                          interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
        # take out the photo's own light fall-off: the simulator lights the table itself
        low = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), max(crop.shape[:2]) / 6)
        crop = np.clip(crop.astype(np.float32) - low + low.reshape(-1, 3).mean(0), 0, 255).astype(np.uint8)
        srcs.append(crop)
    if not srcs:
        return None
    return quilt(srcs, h, w, rng, patch=patch, flips=name != "wood-real")


def _fibres(h: int, w: int, rng: np.random.Generator, sigma: float, blur: float = 0.7) -> np.ndarray:
    import cv2

    n = rng.normal(0, sigma, (h, w)).astype(np.float32)
    if blur:
        n = cv2.GaussianBlur(n, (0, 0), blur)
        n *= sigma / max(float(n.std()), 1e-6)
    return n[..., None]


def _lowfreq(h: int, w: int, rng: np.random.Generator, amp: float, cells: int = 6) -> np.ndarray:
    import cv2

    return cv2.resize(rng.normal(0, amp, (cells, cells)).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_CUBIC)[..., None]


def _base(h: int, w: int, bgr: tuple[float, float, float], rng: np.random.Generator, fibre: float,
          blotch: float) -> np.ndarray:
    img = np.array(bgr, np.float32) + _fibres(h, w, rng, fibre) + _lowfreq(h, w, rng, blotch)
    return np.clip(img, 0, 255).astype(np.uint8)


def _felt_green(h, w, ppm, rng, o):  # noqa: ANN001 - one signature for all painters
    return _base(h, w, (58, 112, 40), rng, 6, 5)


def _cloth_black(h, w, ppm, rng, o):  # noqa: ANN001
    import cv2

    img = np.array((24, 23, 25), np.float32) + _fibres(h, w, rng, 3.5, 0.6) + _lowfreq(h, w, rng, 2.5, 5)
    # soft folds: long, slightly brighter ridges where the cloth creases
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    u = (xx * math.cos(ang) + yy * math.sin(ang)) / max(ppm, 1e-3)
    fold = np.sin(u / rng.uniform(70, 140) + 2 * np.sin(u / 410)) ** 8 * 7
    img += cv2.GaussianBlur(fold.astype(np.float32), (0, 0), 3)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _tape(img: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], width_px: float,
          colour: tuple[int, int, int], rng: np.random.Generator) -> None:
    """A strip of tape: slightly uneven width and shade, a faint sheen along its centre."""
    import cv2

    jitter = lambda: rng.uniform(-0.6, 0.6) * width_px * 0.15  # noqa: E731
    a = (int(p0[0] + jitter()), int(p0[1] + jitter()))
    b = (int(p1[0] + jitter()), int(p1[1] + jitter()))
    col = tuple(int(np.clip(c + rng.uniform(-8, 8), 0, 255)) for c in colour)
    cv2.line(img, a, b, col, max(1, int(round(width_px))), cv2.LINE_AA)
    sheen = tuple(int(min(255, c * 1.1 + 12)) for c in col)
    cv2.line(img, a, b, sheen, max(1, int(round(width_px * 0.25))), cv2.LINE_AA)


def _taped(img: np.ndarray, ppm: float, o: tuple[float, float, float, float], frame_mm: float,
           inner: list[tuple[tuple[float, float], tuple[float, float]]], width_mm: float,
           colour: tuple[int, int, int], rng: np.random.Generator) -> np.ndarray:
    """Tape a square ``frame_mm`` outside the playing area and the ``inner`` segments (area mm)."""
    ox, oy, W, H = o
    f = frame_mm
    square = [((-f, -f), (W + f, -f)), ((W + f, -f), (W + f, H + f)), ((W + f, H + f), (-f, H + f)), ((-f, H + f), (-f, -f))]
    for a, b in square + inner:
        _tape(img, ((ox + a[0]) * ppm, (oy + a[1]) * ppm), ((ox + b[0]) * ppm, (oy + b[1]) * ppm), width_mm * ppm,
              colour, rng)
    return img


def _felt_blue_tape(h, w, ppm, rng, o):  # noqa: ANN001
    """Blue felt, a square taped around the playing area and a cross through it: a home-made layout."""
    W, H = o[2], o[3]
    return _taped(_base(h, w, (150, 78, 28), rng, 6, 6), ppm, o, 40,
                  [((W / 2, 60), (W / 2, H - 60)), ((60, H / 2), (W - 60, H / 2))], 19, (225, 228, 226), rng)


def _taped_layout(h, w, ppm, rng, o):  # noqa: ANN001
    """A dark table with a poker layout in wide bright blue tape (the footage that broke the tracker)."""
    img = _base(h, w, (30, 32, 38), rng, 3, 4)
    W, H = o[2], o[3]
    segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    # boxes for each seat's cards and bets, a community-card row across the middle
    for k in range(5):
        x0 = 95 + k * 86
        segs += [((x0, 245), (x0 + 70, 245)), ((x0, 355), (x0 + 70, 355)), ((x0, 245), (x0, 355)),
                 ((x0 + 70, 245), (x0 + 70, 355))]
    segs += [((40, 110), (W - 40, 110)), ((40, H - 110), (W - 40, H - 110)), ((110, 40), (110, H - 40)),
             ((W - 110, 40), (W - 110, H - 40))]
    return _taped(img, ppm, o, 60, segs, 24, (205, 130, 25), rng)


def _printed_layout(h, w, ppm, rng, o):  # noqa: ANN001
    """A printed blackjack layout on red or green felt: arcs, betting circles and lettering."""
    import cv2

    base = (40, 40, 150) if rng.random() < 0.5 else (50, 105, 35)
    img = _base(h, w, base, rng, 5, 5)
    ox, oy, W, H = o
    gold = (70, 190, 225)
    c = (int((ox + W / 2) * ppm), int((oy - 380) * ppm))
    for r, th in ((700, 5), (760, 3)):
        cv2.ellipse(img, c, (int(r * ppm), int(r * ppm)), 0, 35, 145, gold, max(1, int(th * ppm)), cv2.LINE_AA)
    for k in range(7):
        a = math.radians(45 + k * 15)
        x, y = c[0] + math.cos(a) * 820 * ppm, c[1] + math.sin(a) * 820 * ppm
        cv2.circle(img, (int(x), int(y)), int(38 * ppm), gold, max(1, int(3 * ppm)), cv2.LINE_AA)
    font = cv2.FONT_HERSHEY_TRIPLEX
    for text, y_mm, size in (("BLACKJACK PAYS 3 TO 2", 230, 1.0), ("Dealer must draw to 16, and stand on all 17s", 300, 0.55),
                             ("INSURANCE PAYS 2 TO 1", 365, 0.8)):
        scale = size * ppm * 1.1
        (tw_, th_), _ = cv2.getTextSize(text, font, scale, max(1, int(2 * ppm)))
        org = (int((ox + W / 2) * ppm - tw_ / 2), int((oy + y_mm) * ppm + th_ / 2))
        cv2.putText(img, text, org, font, scale, gold if size > 0.6 else (230, 235, 235), max(1, int(2 * ppm)),
                    cv2.LINE_AA)
    return img


def _white_top(h, w, ppm, rng, o):  # noqa: ANN001
    img = _base(h, w, (222, 226, 228), rng, 2.5, 3).astype(np.float32)
    img += _soft_reflections(h, w, ppm, rng, strength=14, n=2)
    return np.clip(img, 0, 255).astype(np.uint8)


def _soft_reflections(h: int, w: int, ppm: float, rng: np.random.Generator, strength: float, n: int,
                      sharp: bool = False) -> np.ndarray:
    """Lamp and window reflections as a brightness field (mirror images are sharper on gloss)."""
    import cv2

    s = 4
    field = np.zeros((h // s + 1, w // s + 1), np.float32)
    for _ in range(n):
        cx, cy = rng.uniform(0.15, 0.85) * field.shape[1], rng.uniform(0.15, 0.85) * field.shape[0]
        if rng.random() < 0.5:   # a window: a bright rectangle with bars
            ww, hh = rng.uniform(120, 260) * ppm / s, rng.uniform(80, 160) * ppm / s
            cv2.rectangle(field, (int(cx - ww / 2), int(cy - hh / 2)), (int(cx + ww / 2), int(cy + hh / 2)), 1.0, -1)
            cv2.line(field, (int(cx), int(cy - hh / 2)), (int(cx), int(cy + hh / 2)), 0.3, max(1, int(8 * ppm / s)))
        else:                    # a ceiling lamp
            r = rng.uniform(30, 70) * ppm / s
            cv2.ellipse(field, (int(cx), int(cy)), (int(r * 1.4), int(r)), rng.uniform(0, 180), 0, 360, 1.0, -1)
    field = cv2.GaussianBlur(field, (0, 0), (2 if sharp else 14) * ppm)
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    return (field * strength)[..., None]


def _glossy_top(h, w, ppm, rng, o):  # noqa: ANN001
    base = (38, 34, 32) if rng.random() < 0.5 else (30, 45, 75)
    img = _base(h, w, base, rng, 2, 3).astype(np.float32)
    img += _soft_reflections(h, w, ppm, rng, strength=190, n=3, sharp=True)
    img += _soft_reflections(h, w, ppm, rng, strength=25, n=2)
    return np.clip(img, 0, 255).astype(np.uint8)


def _wood(h, w, ppm, rng, o):  # noqa: ANN001
    """Generated wood: long grain lines along the planks, warped gently, streaks of fibre."""
    import cv2

    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = _lowfreq(h, w, rng, 9 * ppm, 5)[..., 0] + np.sin(xx / (rng.uniform(150, 260) * ppm)) * 4 * ppm
    plank = rng.uniform(110, 160) * ppm
    k = np.floor(yy / plank)
    period = rng.uniform(5, 9) * ppm
    ring = (np.sin((yy + warp + k * 91.0) / period * 2 * math.pi / 4) + 1) / 2
    light = np.array((70, 115, 160), np.float32) if rng.random() < 0.6 else np.array((100, 150, 190), np.float32)
    img = light * (0.78 + 0.22 * ring[..., None] ** 3)
    streak = cv2.resize(rng.normal(0, 1, (h, max(2, w // 60))).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_LINEAR)
    img += (streak * 6)[..., None] + _fibres(h, w, rng, 2.5, 0.5) + _lowfreq(h, w, rng, 6, 4)
    img *= 1 + 0.08 * np.sin(k * 2.3)[..., None]          # planks differ in shade
    gap = (np.mod(yy, plank) < max(1.0, 1.0 * ppm))[..., None]
    img = np.where(gap, img * 0.55, img)
    return np.clip(img, 0, 255).astype(np.uint8)


Painter = Callable[[int, int, float, np.random.Generator, tuple[float, float, float, float]], np.ndarray]

GENERATED: dict[str, Painter] = {
    "felt": _felt_green,
    "black-cloth": _cloth_black,
    "blue-felt-tape": _felt_blue_tape,
    "taped-layout": _taped_layout,
    "printed-layout": _printed_layout,
    "white-top": _white_top,
    "glossy-top": _glossy_top,
    "wood": _wood,
}

SURFACES: tuple[str, ...] = tuple(GENERATED) + tuple(PHOTO_SURFACES)
"""Every surface name ``tablecam sim video --surface`` takes."""


def paint_surface(name: str, size_px: tuple[int, int], ppm: float, origin_mm: tuple[float, float],
                  area_mm: tuple[float, float], seed: int = 1) -> np.ndarray:
    """The table plane (BGR, ``size_px`` = (w, h)) of surface ``name``.

    Raises ``ValueError`` for an unknown name.  A photo surface whose photo is
    missing (a checkout without ``shared/``) falls back to the generated
    surface of the same family, so a video still renders.

    >>> paint_surface("black-cloth", (40, 30), 1.0, (5, 5), (30, 20)).shape
    (30, 40, 3)
    """
    w, h = size_px
    rng = np.random.default_rng(seed)
    o = (origin_mm[0], origin_mm[1], area_mm[0], area_mm[1])
    if name in PHOTO_SURFACES:
        img = _cached_photo_surface(name, h, w, round(ppm, 3), seed)
        if img is not None:
            return img.copy()
        name = {"felt-real": "felt", "white-real": "white-top", "wood-real": "wood",
                "cloth-real": "black-cloth", "carpet-real": "wood", "cardboard-real": "wood"}[name]
    if name not in GENERATED:
        raise ValueError(f"unknown surface {name!r} (known: {', '.join(SURFACES)})")
    return GENERATED[name](h, w, ppm, rng, o)


@lru_cache(maxsize=4)
def _cached_photo_surface(name: str, h: int, w: int, ppm: float, seed: int) -> np.ndarray | None:
    return _from_photos(name, h, w, ppm, np.random.default_rng(seed))
