"""Synthetic training and test images: card faces on tables, photographed.

Two products, both deterministic for a seed:

* **corner samples** for the classifier (:func:`corner_dataset`): the index
  corner of a card as it looks after the localiser has rectified it from a
  photograph - a slightly wrong quadrilateral (so table shows at the edge),
  low resolution, blur, lighting, colour temperature, glare, JPEG noise, a
  finger or a neighbouring card over part of the corner.  The ``none`` class
  gets table textures, clutter and paper so localiser false alarms are
  rejected.
* **table scenes** (:func:`render_scene`): several cards at any angle on
  felt, wood, cloth or noise, with camera perspective, overlaps, fanned
  hands, fingers and face-down cards, labelled with each card's quad and
  whether an index corner is still visible.  Used for the held-out and
  overlap evaluations and written in YOLO OBB format by ``tablecam synth``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .faces import ALL_CODES, FACE_H, FACE_W, render_face

# ---------------------------------------------------------------- tables


def table_texture(rng: np.random.Generator, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A table surface: felt (green/blue/red), wood, cloth, noise or clutter."""
    import cv2

    kind = kind or rng.choice(["felt", "felt", "wood", "cloth", "noise", "clutter", "dark"])
    if kind == "felt":
        base = rng.choice([[40, 110, 30], [120, 70, 20], [40, 40, 130], [60, 90, 40], [90, 60, 50]])
        base = np.array(base, np.float32) * rng.uniform(0.6, 1.3)
        img = np.ones((h, w, 3), np.float32) * base[::-1][None, None] * 0 + base[None, None]
        n = rng.normal(0, rng.uniform(4, 14), (h, w, 1)).astype(np.float32)
        img = img + n
    elif kind == "wood":
        col = np.array([rng.uniform(30, 90), rng.uniform(70, 140), rng.uniform(110, 200)], np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        f = rng.uniform(0.02, 0.08)
        grain = np.sin(t * f + 3 * np.sin(t * f * 0.13 + yy * 0.01)) * 0.5 + 0.5
        img = col[None, None] * (0.7 + 0.35 * grain[..., None])
        img += rng.normal(0, 5, (h, w, 1)).astype(np.float32)
    elif kind == "cloth":
        col = rng.uniform(20, 200, 3).astype(np.float32)
        col2 = rng.uniform(20, 200, 3).astype(np.float32)
        yy, xx = np.mgrid[0:h, 0:w]
        p = int(rng.integers(6, 40))
        chk = (((xx // p) + (yy // p)) % 2).astype(np.float32)[..., None]
        img = col * chk + col2 * (1 - chk)
        img += rng.normal(0, 8, (h, w, 1)).astype(np.float32)
    elif kind == "noise":
        small = rng.uniform(0, 200, (max(2, h // 40), max(2, w // 40), 3)).astype(np.float32)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
        img += rng.normal(0, 10, (h, w, 3)).astype(np.float32)
    elif kind == "dark":
        img = np.ones((h, w, 3), np.float32) * rng.uniform(10, 70, 3).astype(np.float32)
        img += rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    else:  # clutter: boxes, books, carpet-like stripes (the real photos' backgrounds)
        img = table_texture(rng, h, w, "noise")
        for _ in range(int(rng.integers(4, 14))):
            c = tuple(float(v) for v in rng.uniform(0, 255, 3))
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            if rng.random() < 0.5:
                cv2.rectangle(img, (x, y), (x + int(rng.integers(10, w // 2 + 11)), y + int(rng.integers(10, h // 2 + 11))), c, -1)
            else:
                cv2.line(img, (x, y), (int(rng.integers(0, w)), int(rng.integers(0, h))), c, int(rng.integers(1, 12)))
        if rng.random() < 0.5:
            txt_col = tuple(float(v) for v in rng.uniform(0, 255, 3))
            for _ in range(3):
                cv2.putText(img, "".join(rng.choice(list("ABCDEFGHKMNPRSTWXYZ0123456789"), 5)),
                            (int(rng.integers(0, w)), int(rng.integers(0, h))), cv2.FONT_HERSHEY_SIMPLEX,
                            float(rng.uniform(0.5, 3)), txt_col, int(rng.integers(1, 5)))
    return np.clip(img, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- photometry


def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Lighting, colour temperature, shadow gradient, glare, blur, noise, JPEG."""
    import cv2

    h, w = img.shape[:2]
    f = img.astype(np.float32)
    # colour temperature: warm tungsten to cold daylight
    t = rng.uniform(-0.25, 0.25) * strength
    f *= np.array([1 - t, 1.0, 1 + t], np.float32)[None, None]
    # exposure and contrast
    f = (f - 128) * rng.uniform(0.6, 1.25) + 128 + rng.uniform(-60, 35) * strength
    # shadow / light gradient across the image
    if rng.random() < 0.6:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * math.pi)
        g = (xx * math.cos(a) + yy * math.sin(a)) / max(h, w)
        g = (g - g.min()) / max(1e-6, g.max() - g.min())
        f *= (1 - rng.uniform(0, 0.5) * strength * g)[..., None]
    # glare: a soft bright ellipse
    if rng.random() < 0.25 * strength:
        m = np.zeros((h, w), np.float32)
        cv2.ellipse(m, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                    (int(rng.integers(w // 10 + 1, w // 2 + 2)), int(rng.integers(h // 10 + 1, h // 2 + 2))),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), max(h, w) / 15)
        f += m[..., None] * rng.uniform(40, 140)
    f = np.clip(f, 0, 255).astype(np.uint8)
    # blur: focus or motion
    r = rng.random()
    if r < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.6) * strength + 0.01)
    elif r < 0.45:
        k = int(rng.integers(3, 8))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        ker = cv2.warpAffine(ker, rot, (k, k))
        ker /= max(ker.sum(), 1e-6)
        f = cv2.filter2D(f, -1, ker)
    if rng.random() < 0.5:
        n = rng.normal(0, rng.uniform(1, 8) * strength, f.shape).astype(np.float32)
        f = np.clip(f.astype(np.float32) + n, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        q = int(rng.integers(35, 95))
        ok, enc = cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            f = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return f


def _skin(rng: np.random.Generator) -> tuple[float, float, float]:
    base = np.array(rng.choice([[90, 130, 200], [70, 110, 170], [50, 80, 130], [110, 150, 220], [40, 60, 90]]),
                    np.float32)
    return tuple(float(v) for v in np.clip(base * rng.uniform(0.8, 1.15), 0, 255))


def draw_finger(img: np.ndarray, rng: np.random.Generator, center: tuple[float, float], length: float,
                mask: np.ndarray | None = None) -> None:
    """A finger (or hand edge): a skin-coloured rounded bar, drawn in place
    (and into ``mask`` as 1, when given)."""
    import cv2

    a = rng.uniform(0, 2 * math.pi)
    wid = max(3, int(length * rng.uniform(0.18, 0.3)))
    x0, y0 = center
    x1, y1 = x0 + math.cos(a) * length * 2.5, y0 + math.sin(a) * length * 2.5
    col = _skin(rng)
    cv2.line(img, (int(x0), int(y0)), (int(x1), int(y1)), col, wid, cv2.LINE_AA)
    cv2.circle(img, (int(x0), int(y0)), wid // 2, col, -1, cv2.LINE_AA)
    if mask is not None:
        cv2.line(mask, (int(x0), int(y0)), (int(x1), int(y1)), 1, wid)
        cv2.circle(mask, (int(x0), int(y0)), wid // 2, 1, -1)


def draw_cable(img: np.ndarray, rng: np.random.Generator, through: tuple[float, float], scale: float = 1.0) -> None:
    """A thin thing lying across the card, drawn in place through the point
    ``through``: a cable (a dark, grey or white cord, gently curved, with a
    highlight along it), a pen or a knife blade (a straight bar, metallic or
    coloured), each with its soft shadow.  ``scale`` is the card's width
    over 250 px.  Real tables have them: chargers, pens, scoring pencils,
    the cable of a bidding box's light."""
    import cv2

    h, w = img.shape[:2]
    a = rng.uniform(0, math.pi)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-d[1], d[0]])
    x0 = np.array(through, np.float64)
    kind = rng.random()
    if kind < 0.6:  # a cable
        wid = rng.uniform(4, 11) * scale
        col = [float(v) for v in (rng.uniform(10, 60, 3) if rng.random() < 0.6 else rng.uniform(150, 245, 3))]
        bend = rng.uniform(-0.15, 0.15)
        ts = np.linspace(-1.5, 1.5, 25) * max(h, w)
        pts = np.array([x0 + t * d + bend * (t * t / max(h, w)) * n for t in ts])
    else:  # a pen or a blade
        wid = rng.uniform(7, 16) * scale
        col = [float(v) for v in (rng.uniform(150, 220, 3) if rng.random() < 0.5 else rng.uniform(0, 255, 3))]
        end = rng.uniform(0.2, 1.0) * max(h, w)  # a pen ends somewhere; a knife's tip too
        pts = np.array([x0 + t * d for t in np.linspace(-end, 1.5 * max(h, w), 12)])
    off = (n * rng.uniform(2, 6) * scale).astype(np.float64)
    shadow = img.copy()
    cv2.polylines(shadow, [(pts + off).astype(np.int32)], False, (0, 0, 0), max(1, int(wid * 1.3)), cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, wid / 3))
    img[:] = cv2.addWeighted(img, 0.65, shadow, 0.35, 0)
    cv2.polylines(img, [pts.astype(np.int32)], False, col, max(1, int(wid)), cv2.LINE_AA)
    if rng.random() < 0.7:  # the highlight along its top
        hi = [min(255.0, c + 70) for c in col]
        cv2.polylines(img, [(pts - n * wid * 0.2).astype(np.int32)], False, hi, max(1, int(wid * 0.25)), cv2.LINE_AA)


# ---------------------------------------------------------------- corner samples


def progress_bar(total: int, desc: str, unit: str, on: bool = True):
    """A tqdm bar when ``on`` and tqdm is installed, else None (callers skip their updates)."""
    if not on:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit=unit)


class TexturePool:
    """A few hundred table textures, cut into random windows: rendering a
    fresh texture per training sample costs more than everything else."""

    def __init__(self, rng: np.random.Generator, n: int = 96, h: int = 560, w: int = 480):
        self.tex = [table_texture(rng, h, w) for _ in range(n)]

    def get(self, rng: np.random.Generator, h: int, w: int) -> np.ndarray:
        t = self.tex[int(rng.integers(len(self.tex)))]
        y = int(rng.integers(0, t.shape[0] - h + 1))
        x = int(rng.integers(0, t.shape[1] - w + 1))
        out = t[y:y + h, x:x + w]
        if rng.random() < 0.5:
            out = out[:, ::-1]
        return np.ascontiguousarray(out)


def corner_sample(face: np.ndarray, rng: np.random.Generator, occlude: float = 0.25,
                  pool: TexturePool | None = None, cable: bool = False,
                  scale: tuple[float, float] = (0.18, 1.0)) -> np.ndarray:
    """One rectified-card view of ``face`` as the pipeline would produce it
    from a photograph, returned as a 250x350 BGR image.

    The card is pasted on a table, the true corners are perturbed by up to
    ~5% (the localiser's error), and that quad is warped back to 250x350.
    With ``cable`` a cable, pen or blade crosses both index corners
    (:func:`draw_cable`; without it the random draws are those of before,
    so the cached crop sets stay reproducible).  ``scale`` is the range of
    the apparent resolution, a share of the 250x350 face (:func:`_rectified_view`).
    """
    canvas, true = _card_on_table(face, rng, occlude, pool, cable)
    jit = rng.normal(0, 1, (4, 2)).astype(np.float32) * np.array([FACE_W, FACE_H], np.float32) * rng.uniform(0.005, 0.03)
    return _rectified_view(canvas, true + jit, rng, scale)


def paste_card(canvas: np.ndarray, face: np.ndarray, x: int, y: int, rng: np.random.Generator) -> np.ndarray:
    """A 250x350 ``face`` pasted into ``canvas`` (in place) with its
    top-left at (``x``, ``y``), through a mask with the rounded corners of
    a card (radius 6-22 px); its quad, clockwise from the top-left."""
    import cv2

    mask = np.zeros((FACE_H, FACE_W), np.uint8)
    r = int(rng.integers(6, 22))
    cv2.rectangle(mask, (r, 0), (FACE_W - 1 - r, FACE_H - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (FACE_W - 1, FACE_H - 1 - r), 255, -1)
    for cx, cy in ((r, r), (FACE_W - 1 - r, r), (r, FACE_H - 1 - r), (FACE_W - 1 - r, FACE_H - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    roi = canvas[y:y + FACE_H, x:x + FACE_W]
    roi[mask > 0] = face[mask > 0]
    return np.array([[x, y], [x + FACE_W, y], [x + FACE_W, y + FACE_H], [x, y + FACE_H]], np.float32)


def _card_on_table(face: np.ndarray, rng: np.random.Generator, occlude: float, pool: TexturePool | None,
                   cable: bool) -> tuple[np.ndarray, np.ndarray]:
    """``face`` pasted upright (or turned 180 degrees) through a rounded
    mask on a table window 60 px wider all round, at times a finger or
    another card's edge over its corner (``occlude``) or a cable across
    both indices: the canvas and the card's true quad in it."""
    import cv2

    pad = 60
    bg = pool.get(rng, FACE_H + 2 * pad, FACE_W + 2 * pad) if pool else table_texture(rng, FACE_H + 2 * pad, FACE_W + 2 * pad)
    if rng.random() < 0.5:
        face = np.rot90(face, 2).copy()
    canvas = bg.copy()
    true = paste_card(canvas, face, pad, pad, rng)
    if rng.random() < occlude:
        # something over part of the corner region: a finger or another card's edge
        if rng.random() < 0.5:
            draw_finger(canvas, rng, (pad + rng.uniform(30, 90), pad + rng.uniform(60, 140)), rng.uniform(20, 40))
        else:
            other = table_texture(rng, 20, 20, "dark")[0, 0].tolist() if rng.random() < 0.3 else [245, 245, 240]
            x = pad + rng.uniform(45, 80)
            ang = rng.uniform(-0.5, 0.5)
            p1 = (x, pad - 10)
            pts = np.array([p1, (x + 400 * math.sin(ang), pad + 400 * math.cos(ang)),
                            (x + 400, pad + 400), (x + 400, pad - 10)], np.int32)
            cv2.fillPoly(canvas, [pts], [float(v) for v in other])
            cv2.polylines(canvas, [pts], True, (60, 60, 60), 1, cv2.LINE_AA)
    if cable:
        for cx, cy in ((40, 72), (FACE_W - 40, FACE_H - 72)):  # the middle of each index window
            draw_cable(canvas, rng, (pad + cx + rng.uniform(-25, 25), pad + cy + rng.uniform(-45, 45)))
    return canvas, true


def oblique_sample(face: np.ndarray, rng: np.random.Generator, px_per_mm: tuple[float, float],
                   occlude: float = 0.25, pool: TexturePool | None = None) -> np.ndarray:
    """One rectified-card view of ``face`` as the pipeline gets it from a
    low-resolution camera looking down at an angle: the card on a table
    (:func:`_card_on_table`), seen through
    :func:`~tablecam.training.camera_look.camera_view` at
    ``px_per_mm`` (the range across the card), then warped back to 250x350
    through its true quad a little off, as the localiser's outline gives it.

    Why: a card seen by a 480p-720p webcam at 30-45 degrees from vertical
    is squashed along one direction down to about half, its index a few
    pixels, blurred, sharpened, its colour at half resolution and block
    compressed; the ``small`` views are only small.  The real oblique
    webcam stills' court cards and far row read unsurely through their
    own outlines (models/README.md)."""
    from .camera_look import camera_view

    canvas, true = _card_on_table(face, rng, occlude, pool, False)
    return camera_view(canvas, true, rng, px_per_mm)


def _rectified_view(canvas: np.ndarray, quad: np.ndarray, rng: np.random.Generator,
                    scale: tuple[float, float] = (0.18, 1.0)) -> np.ndarray:
    """``canvas`` shrunk to the apparent resolution of a card in a photo
    (``scale``: 18-100% by default), lit and blurred (:func:`photometric`),
    then warped from ``quad`` to an upright 250x350 view, as the localiser
    hands it over."""
    import cv2

    s = rng.uniform(*scale)
    small = photometric(cv2.resize(canvas, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), rng)
    dst = np.array([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad * s, dst)
    return cv2.warpPerspective(small, m, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


OFFCORNER_PAD = 200
"""Pixels of table round the face that :func:`offcorner_sample` lays it on (its wrong quads reach off the card)."""


def offcorner_pool(rng: np.random.Generator) -> TexturePool:
    """Table textures big enough for :func:`offcorner_sample`'s canvas (a face and ``OFFCORNER_PAD`` round it)."""
    return TexturePool(rng, n=32, h=FACE_H + 2 * OFFCORNER_PAD, w=FACE_W + 2 * OFFCORNER_PAD)


def offcorner_sample(face: np.ndarray, rng: np.random.Generator, pool: TexturePool | None = None) -> np.ndarray:
    """A 250x350 view of a card through a *wrong* quad: shifted by a third
    of the card's width or half its height (the corner window reaches 41%
    down the card), or turned 25-65 degrees, so its corners show pips,
    a court figure, the card's edge and the table, not the index.  These are
    the quads a loose localiser box also produces; the classifier learns to
    call them ``none`` rather than read a card that is not there."""
    pad = OFFCORNER_PAD
    bg = pool.get(rng, FACE_H + 2 * pad, FACE_W + 2 * pad) if pool else table_texture(rng, FACE_H + 2 * pad, FACE_W + 2 * pad)
    canvas = bg.copy()
    if rng.random() < 0.5:
        face = np.rot90(face, 2).copy()
    canvas[pad:pad + FACE_H, pad:pad + FACE_W] = face
    quad = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
    quad -= quad.mean(axis=0)
    if rng.random() < 0.5:  # shifted along one or both axes
        d = np.array([rng.uniform(0.3, 0.7) * FACE_W * rng.choice([-1, 1]),
                      rng.uniform(0.45, 0.65) * FACE_H * rng.choice([-1, 1])], np.float32)
        d[int(rng.integers(3)) % 2] *= float(rng.random() < 0.5)
        quad = quad * rng.uniform(0.8, 1.1) + d
    else:  # turned: corners in the card's body or off it
        a = math.radians(rng.uniform(25, 65)) * rng.choice([-1, 1])
        quad = (quad * rng.uniform(0.6, 1.0)) @ turn_matrix(a).T + rng.normal(0, 15, 2).astype(np.float32)
    quad += np.array([pad + FACE_W / 2, pad + FACE_H / 2], np.float32)
    return _rectified_view(canvas, quad, rng)


def cable_dataset(n: int, decks: list[str], seed: int = 0):
    """``n`` corner crops of cards with a cable, pen or blade across the
    index (:func:`draw_cable`), labelled with the card: (N, 3, H, W) uint8
    and labels.  The real train split has cards under chargers' cables and
    beside knives, read unsurely because no training view had a thin dark
    line through its index."""
    from ..vision.classify import CLASSES, corner_crops

    rng = np.random.default_rng(seed)
    pool = TexturePool(rng)
    codes = [c for c in CLASSES if c not in ("none", "back")]
    xs, ys = [], []
    faces: dict[tuple[str, str], np.ndarray] = {}
    for i in range(n):
        code = codes[i % len(codes)]
        key = (code, decks[int(rng.integers(len(decks)))])
        if key not in faces:
            faces[key] = render_face(*key)
        img = corner_sample(faces[key], rng, occlude=0.0, pool=pool, cable=True)
        xs.append((corner_crops(img)[int(rng.integers(2))] * 255).astype(np.uint8))
        ys.append(CLASSES.index(code))
    return np.stack(xs), np.array(ys, np.int64)


def joker_dataset(n: int, decks: list[str], seed: int = 0):
    """``n`` corner crops of jokers, labelled ``JK``: four in five of the
    generated designs (whose version 3 jokers carry a jester up to the
    index and words squeezed or stretched), the rest of any training deck.
    Danish whist is played with three jokers, and a balanced crop set shows
    only one view in 54 of a joker, laid out as few ways as the decks."""
    from ..vision.classify import CLASSES, corner_crops
    from .designs import is_generated

    rng = np.random.default_rng(seed)
    pool = TexturePool(rng)
    gen = [d for d in decks if is_generated(d)] or decks
    xs, ys = [], []
    faces: dict[str, np.ndarray] = {}
    for _ in range(n):
        pick = gen if rng.random() < 0.8 else decks
        deck = pick[int(rng.integers(len(pick)))]
        if deck not in faces:
            faces[deck] = render_face("JK", deck)
        img = corner_sample(faces[deck], rng, pool=pool)
        xs.append((corner_crops(img)[int(rng.integers(2))] * 255).astype(np.uint8))
        ys.append(CLASSES.index("JK"))
    return np.stack(xs), np.array(ys, np.int64)


def offcorner_dataset(n: int, decks: list[str], seed: int = 0):
    """``n`` corner crops of wrong quads (:func:`offcorner_sample`), all
    labelled ``none``: (N, 3, 64, 48) uint8 and labels."""
    from ..vision.classify import CLASSES, corner_crops

    rng = np.random.default_rng(seed)
    pool = offcorner_pool(rng)
    codes = [c for c in CLASSES if c not in ("none", "back")]
    xs = []
    faces: dict[tuple[str, str], np.ndarray] = {}
    for _ in range(n):
        key = (codes[int(rng.integers(len(codes)))], decks[int(rng.integers(len(decks)))])
        if key not in faces:
            faces[key] = render_face(*key)
        face = faces[key]
        crop = corner_crops(offcorner_sample(face, rng, pool))[int(rng.integers(2))]
        xs.append((crop * 255).astype(np.uint8))
    return np.stack(xs), np.full(n, CLASSES.index("none"), np.int64)


_PRINT_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz$%.,-"


def print_sample(rng: np.random.Generator) -> np.ndarray:
    """A 250x350 'rectified' patch of printed matter, labelled ``none``:
    a newspaper column, a book page, a recipe, a flyer with a headline and
    coloured blocks, or a grille.  On the real train split most false cards
    were read on such things - a capital K or Q in a headline, a digit in a
    column of text - since the synthetic ``none`` views had only tables,
    blank paper and hands."""
    import cv2
    from PIL import Image, ImageDraw

    from .designs import font, font_files

    fonts = sorted(font_files())
    kind = rng.random()
    paper = tuple(int(v) for v in (rng.uniform(200, 250, 3) if kind < 0.8 else rng.uniform(30, 250, 3)))
    img = Image.new("RGB", (FACE_W * 2, FACE_H * 2), paper)
    d = ImageDraw.Draw(img)
    if kind < 0.85:
        y = float(rng.uniform(-20, 20))
        while y < FACE_H * 2:
            if rng.random() < 0.15:  # a headline: large capitals
                size = int(rng.integers(28, 90))
                n = int(rng.integers(2, 10))
                txt = "".join(rng.choice(list(_PRINT_CHARS[:36]), n))
                ink = (0, 0, 0) if rng.random() < 0.7 else tuple(int(v) for v in rng.integers(0, 200, 3))
            elif rng.random() < 0.1:  # a picture block
                size = int(rng.integers(60, 200))
                x0 = int(rng.integers(0, FACE_W))
                col = tuple(int(v) for v in rng.integers(0, 255, 3))
                d.rectangle((x0, y, x0 + int(rng.integers(60, 400)), y + size), fill=col)
                y += size + 8
                continue
            else:
                size = int(rng.integers(9, 26))
                words = ["".join(rng.choice(list(_PRINT_CHARS), int(rng.integers(1, 9)))) for _ in range(12)]
                txt = " ".join(words)
                ink = (int(rng.integers(0, 60)),) * 3
            face = font(fonts[int(rng.integers(len(fonts)))], size)  # drawn before the line's offset
            d.text((float(rng.uniform(-30, 30)), y), txt, font=face, fill=ink)
            y += size * float(rng.uniform(1.1, 1.6))
            if rng.random() < 0.05:  # a rule between columns or stories
                d.line((0, y, FACE_W * 2, y), fill=(0, 0, 0), width=int(rng.integers(1, 4)))
    else:  # a grille or a striped package
        step = int(rng.integers(8, 30))
        ink = tuple(int(v) for v in rng.integers(0, 120, 3))
        for k in range(0, FACE_W * 2, step):
            d.rectangle((k, 0, k + step // 2, FACE_H * 2), fill=ink)
    arr = np.array(img)[:, :, ::-1]
    m = cv2.getRotationMatrix2D((FACE_W, FACE_H), float(rng.uniform(0, 360)), float(rng.uniform(0.5, 1.3)))
    arr = cv2.warpAffine(arr, m, (FACE_W * 2, FACE_H * 2), borderMode=cv2.BORDER_REFLECT)
    x0, y0 = int(rng.integers(0, FACE_W)), int(rng.integers(0, FACE_H))
    crop = np.ascontiguousarray(arr[y0:y0 + FACE_H, x0:x0 + FACE_W])
    s = rng.uniform(0.18, 1.0)
    small = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return cv2.resize(photometric(small, rng), (FACE_W, FACE_H), interpolation=cv2.INTER_LINEAR)


def print_dataset(n: int, seed: int = 0):
    """``n`` corner crops of printed matter (:func:`print_sample`), all
    labelled ``none``."""
    from ..vision.classify import CLASSES, corner_crops

    rng = np.random.default_rng(seed)
    xs = [(corner_crops(print_sample(rng))[int(rng.integers(2))] * 255).astype(np.uint8) for _ in range(n)]
    return np.stack(xs), np.full(n, CLASSES.index("none"), np.int64)


def jittered_quad(quad: np.ndarray, rng: np.random.Generator, most: float = 0.03,
                  least: float = 0.005) -> np.ndarray:
    """A card's quad with each corner moved by ``least`` (0.5%) to ``most``
    of the card's sides, as a localiser finds it."""
    q = quad.astype(np.float32)
    side = np.array([np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])], np.float32)
    return q + rng.normal(0, 1, (4, 2)).astype(np.float32) * side * rng.uniform(least, most)


def turn_matrix(angle: float) -> np.ndarray:
    """The 2x2 float32 matrix turning points by ``angle`` radians (apply
    as ``points @ turn_matrix(a).T``).

    >>> turn_matrix(math.pi / 2).round(6).tolist()
    [[0.0, -1.0], [1.0, 0.0]]
    """
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)


def pile_dataset(n: int, decks: list[str], seed: int = 0, seen: float = 0.8, covered: float = 0.3):
    """``n`` corner crops of cards in rendered piles and fanned hands
    (:func:`render_scene`), each read through the card's own quad moved by
    0.5-3% as a localiser would find it: (N, 3, H, W) uint8 and labels.

    Why: the corner samples show one card with at most a finger or an edge
    over its corner, but on a table the card under a trick pile or inside a
    hand shows its index beside another card's face, and its other corner
    lies under that card.  A corner whose index area is at least ``seen``
    uncovered is labelled with the card; one at most ``covered`` uncovered
    is ``none`` (what lies there is another card's face, which
    :func:`~tablecam.vision.classify.combine_corners` then leaves to the free
    corner); corners between the two are not used."""
    from ..vision.classify import CLASSES, corner_crops
    from ..vision.localise import warp_card

    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    none = CLASSES.index("none")
    while len(xs) < n:
        size = [(1280, 720), (960, 540), (1024, 768)][int(rng.integers(3))]
        sc = render_scene(rng, decks, size=size, n_cards=int(rng.integers(3, 8)), card_px=(70, 200))
        for card in sc.cards:
            q = jittered_quad(card.quad, rng)
            # in the face's own corner order: the first crop is quad[0]'s corner, the second quad[2]'s
            crops = corner_crops(warp_card(sc.image, q, (FACE_W, FACE_H), ordered=True))
            for crop, vis in zip(crops, card.corner_visible):
                if vis >= seen:
                    label = CLASSES.index(card.card)
                elif vis <= covered:
                    label = none
                else:
                    continue
                xs.append((crop * 255).astype(np.uint8))
                ys.append(label)
    return np.stack(xs[:n]), np.array(ys[:n], np.int64)


def none_sample(rng: np.random.Generator, pool: TexturePool | None = None) -> np.ndarray:
    """A 250x350 'rectified' patch that is not a card: table, clutter, paper."""
    import cv2

    r = rng.random()
    if r < 0.6:
        img = pool.get(rng, FACE_H, FACE_W) if pool else table_texture(rng, FACE_H, FACE_W)
    elif r < 0.8:  # paper / a white box with print on it
        img = np.full((FACE_H, FACE_W, 3), rng.uniform(180, 255), np.uint8)
        for _ in range(int(rng.integers(0, 6))):
            cv2.putText(img, "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 6)),
                        (int(rng.integers(0, 200)), int(rng.integers(20, 340))), cv2.FONT_HERSHEY_SIMPLEX,
                        float(rng.uniform(0.4, 1.2)), tuple(float(v) for v in rng.uniform(0, 120, 3)), 1)
    else:  # a hand
        img = table_texture(rng, FACE_H, FACE_W)
        for _ in range(3):
            draw_finger(img, rng, (rng.uniform(0, 250), rng.uniform(0, 350)), rng.uniform(40, 120))
    return photometric(img, rng)


def corner_dataset(n: int, decks: list[str], seed: int = 0, none_frac: float = 0.04,
                   classes: list[str] | None = None, progress: bool = False,
                   scale: tuple[float, float] = (0.18, 1.0), camera: tuple[float, float] | None = None):
    """``n`` corner crops (N, 3, 64, 48) uint8 and labels, from ``decks``.

    Classes are balanced (each card code equally often, decks drawn at
    random); both corners' views are used because the corner crop of a
    rectified card comes from either end.  ``scale`` is the range of the
    cards' apparent resolution (:func:`corner_sample`); with ``camera``
    (pixels a millimetre across the card) the cards are seen small and
    oblique through a webcam instead (:func:`oblique_sample`).
    """
    from ..vision.classify import CLASSES, corner_crops

    classes = classes or CLASSES
    rng = np.random.default_rng(seed)
    faces: dict[tuple[str, str], np.ndarray] = {}
    xs, ys = [], []
    codes = [c for c in classes if c != "none"]
    it = range(n)
    if progress:
        try:
            from tqdm import tqdm

            it = tqdm(it, desc="render corners", unit="img")
        except ImportError:
            pass
    pool = TexturePool(rng)
    for i in it:
        if rng.random() < none_frac:
            img, lab = none_sample(rng, pool), classes.index("none")
        else:
            code = codes[i % len(codes)]
            deck = decks[int(rng.integers(len(decks)))]
            key = (deck, code)
            if key not in faces:
                faces[key] = render_face(code, deck)
            if camera:
                img = oblique_sample(faces[key], rng, camera, pool=pool)
            else:
                img = corner_sample(faces[key], rng, pool=pool, scale=scale)
            lab = classes.index(code)
        crop = corner_crops(img)[int(rng.integers(2))]
        xs.append((crop * 255).astype(np.uint8))
        ys.append(lab)
    return np.stack(xs), np.array(ys, np.int64)


# ---------------------------------------------------------------- scenes


@dataclass
class SceneCard:
    card: str
    quad: np.ndarray  # 4x2, clockwise from the top-left corner of the upright face
    visible: bool = True  # an index corner is uncovered
    visible_frac: float = 1.0
    # uncovered share of each index corner: the top-left of the upright
    # face (quad[0]) and the bottom-right (quad[2])
    corner_visible: tuple[float, float] = (1.0, 1.0)


@dataclass
class Scene:
    image: np.ndarray
    cards: list[SceneCard] = field(default_factory=list)


def _card_mask(shape, quad) -> np.ndarray:
    import cv2

    m = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(m, quad.astype(np.int32), 1)
    return m


def render_scene(rng: np.random.Generator, decks: list[str], size: tuple[int, int] = (1280, 720),
                 n_cards: int | None = None, overlap: bool = True, fingers: bool = True,
                 backs: bool = True, card_px: tuple[int, int] = (110, 200),
                 background: np.ndarray | None = None, back_share: float = 0.1) -> Scene:
    """A table seen from above with cards on it, and the ground truth.

    With ``overlap`` some cards are laid as a fanned hand or a trick pile:
    the later card covers part of the earlier one, but the earlier one's
    index corner stays visible most of the time (as on a real table); a
    card whose two index corners are both covered is labelled not visible.
    With ``backs`` each card lies face down with probability ``back_share``.
    """
    import cv2

    w, h = size
    # ``background`` (h x w BGR) replaces the drawn table: the localiser's
    # training scenes put cards on real carpet and wood cut from photographs
    img = background.copy() if background is not None else table_texture(rng, h, w).astype(np.uint8)
    n = n_cards if n_cards is not None else int(rng.integers(1, 9))
    deck = decks[int(rng.integers(len(decks)))]
    codes = list(rng.choice([c for c in ALL_CODES if c not in ("back", "JK")], size=n, replace=False))
    cards: list[SceneCard] = []
    occupancy = np.zeros((h, w), np.int32)  # index of the top card at each pixel (+1)
    placed = 0
    layouts = []
    i = 0
    while i < n:
        if overlap and n - i >= 3 and rng.random() < 0.4:
            k = int(rng.integers(3, min(6, n - i) + 1))
            layouts.append(("fan", k))
            i += k
        elif overlap and n - i >= 2 and rng.random() < 0.3:
            layouts.append(("pile", 2))
            i += 2
        else:
            layouts.append(("single", 1))
            i += 1
    idx = 0
    groups: list[tuple[float, float, float]] = []
    for kind, k in layouts:
        ch = rng.uniform(*card_px)
        cw = ch * FACE_W / FACE_H
        rad = ch * 0.62 + (k - 1) * cw * 0.32
        for _try in range(40):  # groups do not touch each other (only cards within a group overlap)
            cx, cy = rng.uniform(cw, w - cw), rng.uniform(ch * 0.7, h - ch * 0.7)
            if all(math.hypot(cx - gx, cy - gy) > rad + gr for gx, gy, gr in groups):
                break
        groups.append((cx, cy, rad))
        base_ang = rng.uniform(0, 2 * math.pi)
        for j in range(k):
            code = codes[idx]
            idx += 1
            if backs and rng.random() < back_share:
                code = "back"
            if kind == "fan":
                ang = base_ang + (j - k / 2) * rng.uniform(0.12, 0.2)
                off = (j - k / 2) * cw * rng.uniform(0.22, 0.32)
                px = cx + off * math.cos(base_ang)
                py = cy + off * math.sin(base_ang)
            elif kind == "pile":
                ang = base_ang + rng.uniform(-0.8, 0.8) * j
                px = cx + j * rng.uniform(-0.35, 0.35) * cw
                py = cy + j * rng.uniform(-0.35, 0.35) * ch
            else:
                ang, px, py = rng.uniform(0, 2 * math.pi), cx, cy
            c, s = math.cos(ang), math.sin(ang)
            corners = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]], np.float32)
            quad = corners @ np.array([[c, s], [-s, c]], np.float32) + np.array([px, py], np.float32)
            face = render_face(code, deck)
            src = np.array([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]], np.float32)
            m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
            warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA)
            fm = cv2.warpPerspective(np.full((FACE_H, FACE_W), 255, np.uint8), m, (w, h)) > 127
            # drop shadow
            sh = cv2.GaussianBlur(fm.astype(np.float32), (0, 0), 3)
            sh = np.roll(sh, (3, 3), axis=(0, 1))
            img = (img.astype(np.float32) * (1 - 0.35 * sh[..., None] * (~fm)[..., None])).astype(np.uint8)
            img[fm] = warped[fm]
            occupancy[fm] = placed + 1
            cards.append(SceneCard(code, quad))
            placed += 1
    if fingers and rng.random() < 0.3 and cards:
        t = cards[int(rng.integers(len(cards)))]
        c = t.quad.mean(axis=0)
        fmask = np.zeros((h, w), np.uint8)
        draw_finger(img, rng, (float(c[0]), float(c[1])), float(np.linalg.norm(t.quad[1] - t.quad[0]) * 0.4), fmask)
        occupancy[fmask > 0] = -1
    # visibility: each card's index corners (10% x 15% boxes at both ends)
    for ci, sc in enumerate(cards):
        vis = []
        for corner in (0, 2):
            q = sc.quad
            o = q[corner]
            u = (q[(corner + 1) % 4] - o) * 0.25
            v = (q[(corner + 3) % 4] - o) * 0.28
            region = np.array([o, o + u, o + u + v, o + v], np.float32)
            m = _card_mask((h, w), region).astype(bool)
            if m.sum() == 0:
                vis.append(0.0)
                continue
            vis.append(float((occupancy[m] == ci + 1).mean()))
        sc.corner_visible = (vis[0], vis[1])
        sc.visible_frac = max(vis)
        sc.visible = sc.visible_frac > 0.7
    # camera perspective: tilt the whole table
    if rng.random() < 0.7:
        d = rng.uniform(0, 0.08)
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        dst = src + rng.uniform(-d, d, (4, 2)).astype(np.float32) * np.array([w, h], np.float32)
        pm = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, pm, (w, h), borderMode=cv2.BORDER_REFLECT)
        for sc in cards:
            sc.quad = cv2.perspectiveTransform(sc.quad.reshape(-1, 1, 2), pm).reshape(4, 2)
    img = photometric(img, rng, strength=0.8)
    return Scene(img, cards)


def write_yolo_obb(scene: Scene, img_path: Path, label_path: Path, classes=("card", "back")) -> None:
    """Write a scene as an image and a YOLO OBB label file (class x1 y1 ... x4 y4, normalised)."""
    import cv2

    h, w = scene.image.shape[:2]
    cv2.imwrite(str(img_path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    lines = []
    for c in scene.cards:
        cls = 1 if c.card == "back" else 0
        q = c.quad / np.array([w, h], np.float32)
        lines.append(f"{cls} " + " ".join(f"{v:.5f}" for v in np.clip(q, 0, 1).reshape(-1)))
    label_path.write_text("\n".join(lines) + ("\n" if lines else ""))
