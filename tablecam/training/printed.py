"""Printed matter that is no playing card, seen as the back check sees a
card: flyers, picture postcards, photo prints and other games' cards
(``none`` views for ``tablecam train-back-check``).

Why: a card-sized picture or a coloured card with a border is patterned
edge to edge as a back is, and a check that knew only tables, wrong quads
and newspaper columns as ``none`` called an oil-change flyer, a picture
postcard and a pile of "Apples to Apples" cards backs at 0.90-0.99 (edje
``IMG_2494``, ``IMG_2528``, ``IMG_2533``).  The real decoys
(:func:`~tablecam.training.backdata.real_decoys`) are a few hundred boxes
of a few dozen objects; these drawings give the check many more.  What
tells them from a back is not symmetry (many backs are one-way: a logo, a
picture) but that a back is a border around a fine all-over pattern, and
these are large shapes, big words and pictures.

Each item is drawn flat (:func:`printed_item`), laid on a real floor,
and read through its own outline or a card-shaped part of it, moved as a
localiser's quad is, at a camera's size, light, blur, noise and JPEG
(:func:`printed_views`).
"""

from __future__ import annotations

import math

import numpy as np

from ..vision.backs import VIEW_H, VIEW_W, card_view

KINDS = ("flyer", "postcard", "photo", "game card")
"""What :func:`printed_item` draws."""

_WORDS = ("SAVE", "FREE", "NEW", "SALE", "OFF", "FAST", "OIL", "CHANGE", "APPLES", "TO", "PARTY", "GAME", "CARDS",
          "QUIZ", "UNO", "TRIVIA", "WORDS", "PIZZA", "MENU", "HOTEL", "VISIT", "CITY", "PARK", "MUSEUM", "CLUB",
          "WIN", "$10", "50%", "NOW", "OPEN", "TIME", "BIG", "FUN", "PLAY", "KIDS", "FAMILY", "MAP", "TOUR")


def _colour(rng: np.random.Generator, lo: int = 0, hi: int = 256) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(lo, hi, 3))


def _saturated(rng: np.random.Generator) -> tuple[int, int, int]:
    """A strong printing colour (BGR): one or two channels high, the rest low."""
    c = np.array(rng.integers(0, 70, 3))
    c[rng.permutation(3)[:int(rng.integers(1, 3))]] = rng.integers(150, 256)
    return tuple(int(v) for v in c)


def picture(rng: np.random.Generator, w: int, h: int, floors: list[np.ndarray] | None = None) -> np.ndarray:
    """A ``w`` x ``h`` BGR picture with large shapes, as a photo or painting
    has: a sky graded to a horizon over ground (a real floor's texture where
    given), smooth colour clouds, and a few dark or bright bodies."""
    import cv2

    kind = rng.random()
    if kind < 0.55:  # landscape: sky over ground
        top, bottom = np.array(_colour(rng, 60, 256), np.float32), np.array(_colour(rng, 120, 256), np.float32)
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        img = np.broadcast_to(top * (1 - t) + bottom * t, (h, w, 3)).copy()
        horizon = int(h * rng.uniform(0.3, 0.8))
        if floors and rng.random() < 0.5:
            f = floors[int(rng.integers(len(floors)))]
            img[horizon:] = cv2.resize(f, (w, h - horizon), interpolation=cv2.INTER_AREA) if h > horizon else img[horizon:]
        else:
            img[horizon:] = np.array(_colour(rng, 20, 200), np.float32) * rng.uniform(0.7, 1.0)
    else:  # smooth colour clouds: a few random values blown up
        k = int(rng.integers(2, 6))
        img = cv2.resize(rng.uniform(0, 255, (k, k, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    for _ in range(int(rng.integers(1, 5))):  # bodies: an animal, a person, a building, a product
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        axes = (int(rng.integers(w // 12 + 1, w // 3 + 2)), int(rng.integers(h // 12 + 1, h // 3 + 2)))
        col = _colour(rng, 0, 90) if rng.random() < 0.6 else _colour(rng)
        if rng.random() < 0.7:
            cv2.ellipse(img, c, axes, float(rng.uniform(0, 180)), 0, 360, col, -1)
        else:
            cv2.rectangle(img, (c[0] - axes[0], c[1] - axes[1]), (c[0] + axes[0], c[1] + axes[1]), col, -1)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), rng.uniform(0.5, 2.0))
    noise = rng.normal(0, rng.uniform(2, 10), img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _words(rng: np.random.Generator, n: int) -> str:
    return " ".join(str(rng.choice(_WORDS)) for _ in range(n))


def _text(img: np.ndarray, txt: str, xy: tuple[float, float], size: int, ink, rng: np.random.Generator,
          angle: float = 0.0, outline=None) -> np.ndarray:
    """``img`` with ``txt`` written at ``xy`` in one of the machine's fonts,
    turned by ``angle`` degrees about its start (big words on a game card
    or a flyer are often set at a slant)."""
    from PIL import Image, ImageDraw

    from .designs import font, font_files

    fonts = sorted(font_files())
    face = font(fonts[int(rng.integers(len(fonts)))], max(6, size))
    h, w = img.shape[:2]
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    rgb = tuple(int(v) for v in ink[::-1])
    kw = {"stroke_width": max(1, size // 12), "stroke_fill": tuple(int(v) for v in outline[::-1])} if outline else {}
    d.text(xy, txt, font=face, fill=rgb + (255,), **kw)
    if angle:
        layer = layer.rotate(angle, center=xy, resample=Image.BILINEAR)
    base = Image.fromarray(img[:, :, ::-1].copy()).convert("RGBA")
    return np.array(Image.alpha_composite(base, layer).convert("RGB"))[:, :, ::-1].copy()


def printed_item(rng: np.random.Generator, kind: str, floors: list[np.ndarray] | None = None) -> np.ndarray:
    """One flat printed item of ``kind`` (:data:`KINDS`), BGR uint8, its
    long side 300-520 px: a flyer (coloured bands, a logo, a picture
    block, a headline and a price), a picture postcard (a picture in a
    white border, a caption), a photo print (a picture edge to edge) or
    another game's card (a strong colour, often a white border, big
    words on a slant, a logo behind them)."""
    import cv2

    long = int(rng.integers(300, 521))
    if kind == "game card":
        aspect = rng.uniform(1.35, 1.6)
    elif kind == "postcard":
        aspect = rng.uniform(1.4, 1.6)
    else:
        aspect = rng.uniform(1.0, 1.6)
    short = int(long / aspect)
    w, h = (short, long) if (kind == "game card" or rng.random() < 0.5) else (long, short)
    if kind == "photo":
        return picture(rng, w, h, floors)
    if kind == "postcard":
        img = np.full((h, w, 3), _colour(rng, 215, 256), np.uint8)
        m = int(min(w, h) * rng.uniform(0.03, 0.09))
        cap = int(min(w, h) * rng.uniform(0, 0.12)) if rng.random() < 0.5 else 0
        img[m + cap:h - m, m:w - m] = picture(rng, w - 2 * m, h - 2 * m - cap, floors)
        if cap:
            img = _text(img, _words(rng, int(rng.integers(2, 6))).title(), (m, m), max(8, cap - 2), (40, 40, 40), rng)
        return img
    if kind == "game card":
        img = np.full((h, w, 3), _colour(rng, 225, 256), np.uint8)
        m = int(min(w, h) * rng.uniform(0.04, 0.1)) if rng.random() < 0.7 else 0
        fill = _saturated(rng)
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), fill, -1)
        if rng.random() < 0.6:  # a logo behind the words: a disc, a burst or a second colour's band
            c = (int(w * rng.uniform(0.3, 0.7)), int(h * rng.uniform(0.3, 0.7)))
            r = int(min(w, h) * rng.uniform(0.2, 0.45))
            if rng.random() < 0.5:
                cv2.ellipse(img, c, (r, int(r * rng.uniform(0.6, 1.3))), float(rng.uniform(0, 180)), 0, 360,
                            _saturated(rng), -1)
            else:
                pts = [(c[0] + r * (1 if k % 2 == 0 else 0.55) * math.cos(k * math.pi / 8),
                        c[1] + r * (1 if k % 2 == 0 else 0.55) * math.sin(k * math.pi / 8)) for k in range(16)]
                cv2.fillPoly(img, [np.array(pts, np.int32)], _saturated(rng))
        ink = _colour(rng, 0, 60) if rng.random() < 0.4 else (_colour(rng, 220, 256) if rng.random() < 0.5 else _saturated(rng))
        outline = _colour(rng, 0, 256) if rng.random() < 0.5 else None
        for k in range(int(rng.integers(1, 4))):
            size = int(min(w, h) * rng.uniform(0.12, 0.3))
            img = _text(img, _words(rng, 1), (w * rng.uniform(0.05, 0.4), h * (0.2 + 0.22 * k + rng.uniform(-0.05, 0.05))),
                        size, ink, rng, angle=float(rng.uniform(-40, 40)), outline=outline)
        return img
    # a flyer
    img = np.full((h, w, 3), _colour(rng, 200, 256) if rng.random() < 0.7 else _saturated(rng), np.uint8)
    y = 0
    while y < h:
        band = int(h * rng.uniform(0.1, 0.35))
        r = rng.random()
        if r < 0.3:
            img[y:y + band] = picture(rng, w, min(band, h - y), floors)
        elif r < 0.55:
            cv2.rectangle(img, (0, y), (w, y + band), _saturated(rng), -1)
            img = _text(img, _words(rng, int(rng.integers(1, 4))), (w * rng.uniform(0, 0.2), y + band * 0.15),
                        int(band * rng.uniform(0.3, 0.6)), _colour(rng, 230, 256), rng)
        elif r < 0.8:
            for k in range(int(rng.integers(1, 3))):
                img = _text(img, _words(rng, int(rng.integers(1, 4))), (w * rng.uniform(0, 0.15), y + k * band * 0.45),
                            int(band * rng.uniform(0.25, 0.45)), _colour(rng, 0, 120), rng, angle=float(rng.uniform(-8, 8)))
        else:  # small print and a logo
            cv2.circle(img, (int(w * rng.uniform(0.1, 0.9)), y + band // 2), max(4, band // 3), _saturated(rng), -1)
            for k in range(4):
                img = _text(img, _words(rng, 6).lower(), (w * 0.05, y + k * band / 4), max(6, band // 6), (50, 50, 50), rng)
        y += band
    return img


def _on_floor(item: np.ndarray, rng: np.random.Generator, floors: list[np.ndarray] | None) -> tuple[np.ndarray, int]:
    """``item`` laid in the middle of a floor (a real floor's texture, or a
    plain one) with a margin of half its short side; the margin in pixels."""
    import cv2

    h, w = item.shape[:2]
    m = min(h, w) // 2
    if floors:
        f = floors[int(rng.integers(len(floors)))]
        canvas = cv2.resize(f, (w + 2 * m, h + 2 * m), interpolation=cv2.INTER_LINEAR)
    else:
        canvas = np.full((h + 2 * m, w + 2 * m, 3), _colour(rng, 30, 200), np.uint8)
    canvas[m:m + h, m:m + w] = item
    return canvas, m


def item_quad(w: int, h: int, rng: np.random.Generator, whole: float = 0.5) -> np.ndarray:
    """A quad (4x2 float32, clockwise from top-left) on a ``w`` x ``h``
    item: its own outline (share ``whole``), or a card-shaped rectangle
    inside it, as a localiser boxes part of a large flyer.

    >>> q = item_quad(300, 420, np.random.default_rng(0), whole=1.0)
    >>> q.tolist()
    [[0.0, 0.0], [300.0, 0.0], [300.0, 420.0], [0.0, 420.0]]
    """
    from ..vision.proposals import CARD_ASPECT

    if rng.random() < whole:
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    if h >= w:
        cw = min(w, h / CARD_ASPECT) * rng.uniform(0.6, 1.0)
        ch = cw * CARD_ASPECT
    else:
        ch = min(h, w / CARD_ASPECT) * rng.uniform(0.6, 1.0)
        cw = ch * CARD_ASPECT
    x0, y0 = rng.uniform(0, w - cw), rng.uniform(0, h - ch)
    return np.array([[x0, y0], [x0 + cw, y0], [x0 + cw, y0 + ch], [x0, y0 + ch]], np.float32)


def printed_views(n: int, seed: int = 0, floors: list[np.ndarray] | None = None) -> np.ndarray:
    """``n`` back-check views (N, 3, 88, 64) uint8 of printed matter, all
    ``none``: items of each kind in turn (:func:`printed_item`) on a
    floor, read through their outline or a card-shaped part of it (moved
    0.5-3%, or as loose as a box's rectangle, :func:`loose_quad`), at
    70-220 px tall, with the camera's light, blur, noise and JPEG
    (:func:`~tablecam.training.synth.photometric`).  Deterministic per
    ``seed``."""
    import cv2

    from ..vision.localise import warp_card
    from .backdata import loose_quad
    from .synth import jittered_quad, photometric

    rng = np.random.default_rng(seed)
    out = np.zeros((n, 3, VIEW_H, VIEW_W), np.uint8)
    for i in range(n):
        item = printed_item(rng, KINDS[i % len(KINDS)], floors)
        canvas, m = _on_floor(item, rng, floors)
        q = item_quad(item.shape[1], item.shape[0], rng) + np.float32(m)
        q = loose_quad(q, rng) if rng.random() < 0.4 else jittered_quad(q, rng)
        card = warp_card(canvas, q)
        tall = int(rng.integers(70, 221))
        small = cv2.resize(card, (max(8, round(tall * card.shape[1] / card.shape[0])), tall), interpolation=cv2.INTER_AREA)
        out[i] = card_view(photometric(small, rng, strength=0.6))
    return out
