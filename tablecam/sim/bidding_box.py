"""Bidding-box cards drawn from scratch: designs, faces, and rows of calls.

Bidding boxes differ from club to club: the typeface, whether no-trump reads
``NT``, ``SA`` or ``N``, two- or four-colour suit signs, the pass card's
green, words or letters on the double cards, borders, wear and gloss. A
:class:`BidDesign` fixes one such box; :func:`design` makes the ``k``-th
from a seed, so the training set can hold many and the held-out check
designs of a typeface family the training never saw (:data:`HELD_OUT_FONTS`).
The suit signs are drawn as shapes, not taken from a font, so they too vary
with the design.

Used by the reader's training data (``tablecam.training.bidcards``) and by
``tablecam sim video --auction``.

>>> d = design(3)
>>> face = draw_card("4H", d)
>>> face.shape == (round(CARD_MM[1] * PX_PER_MM), round(CARD_MM[0] * PX_PER_MM), 3)
True
>>> design(0).font_family in TRAIN_FONTS, held_out_design(0).font_family in HELD_OUT_FONTS
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..vision.bidcards import CARD_MM, STRIP_MM

PX_PER_MM = 8.0
"""Resolution the faces are drawn at (a card is 360 x 720 px)."""

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation2"),
             Path("/usr/share/fonts/opentype/urw-base35"), Path("/usr/share/fonts/truetype/freefont"))
TRAIN_FONTS = {
    "dejavu-sans": ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "DejaVuSansCondensed-Bold.ttf"),
    "dejavu-serif": ("DejaVuSerif-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerifCondensed-Bold.ttf"),
    "dejavu-mono": ("DejaVuSansMono-Bold.ttf", "DejaVuSansMono.ttf"),
    "liberation-sans": ("LiberationSans-Bold.ttf", "LiberationSans-Regular.ttf"),
    "liberation-serif": ("LiberationSerif-Bold.ttf", "LiberationSerif-Regular.ttf"),
    "liberation-mono": ("LiberationMono-Bold.ttf",),
    "nimbus-sans": ("NimbusSans-Bold.otf", "NimbusSans-Regular.otf", "NimbusSansNarrow-Bold.otf"),
    "nimbus-roman": ("NimbusRoman-Bold.otf", "NimbusRoman-Regular.otf"),
    "urw-gothic": ("URWGothic-Demi.otf", "URWGothic-Book.otf"),
    "urw-bookman": ("URWBookman-Demi.otf", "URWBookman-Light.otf"),
    "c059": ("C059-Bold.otf", "C059-Roman.otf"),
    "p052": ("P052-Bold.otf", "P052-Roman.otf"),
}
HELD_OUT_FONTS = {
    "free-sans": ("FreeSansBold.ttf", "FreeSans.ttf"),
    "free-serif": ("FreeSerifBold.ttf", "FreeSerif.ttf"),
}
"""Typefaces only the held-out designs use (Debian ``fonts-freefont-ttf``)."""

PASS_GREENS = ((60, 150, 60), (40, 125, 70), (90, 170, 80), (30, 110, 50), (70, 160, 110))
DOUBLE_REDS = ((200, 40, 40), (180, 30, 50), (220, 60, 50), (160, 20, 30))
REDOUBLE_BLUES = ((40, 80, 190), (30, 60, 150), (60, 110, 210), (20, 90, 170))
PAPERS = ((250, 250, 246), (244, 240, 226), (236, 238, 240), (252, 248, 236))


@dataclass(frozen=True)
class BidDesign:
    """One bidding box's look (colours are RGB)."""

    font_family: str
    font_file: str
    nt_word: str            # "NT", "SA" or "N"
    pass_word: str          # "PASS", "Pass", "PAS"
    double_word: str        # "X" or "DBL"
    redouble_word: str      # "XX" or "RDBL"
    four_colour: bool       # clubs green, diamonds orange
    paper: tuple[int, int, int]
    pass_green: tuple[int, int, int]
    double_red: tuple[int, int, int]
    redouble_blue: tuple[int, int, int]
    layout: str             # "inline" (level then sign) or "stacked" (sign under level)
    text_mm: float          # height of the level digit
    border: bool            # a coloured frame round the card
    left: bool              # call at the left of the strip (else centred)
    seed: int


def _font_path(name: str) -> Path:
    for d in FONT_DIRS:
        if (d / name).exists():
            return d / name
    raise FileNotFoundError(f"font {name} (install fonts-dejavu-core, fonts-liberation2, fonts-urw-base35, "
                            "fonts-freefont-ttf)")


@lru_cache(maxsize=256)
def _font(name: str, px: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(_font_path(name)), px)


def _design(k: int, fonts: dict[str, tuple[str, ...]], salt: int) -> BidDesign:
    rng = np.random.default_rng(1000 * salt + k)
    family = sorted(fonts)[k % len(fonts)]
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    return BidDesign(
        font_family=family, font_file=pick(fonts[family]),
        nt_word=pick(("NT", "NT", "SA", "N")), pass_word=pick(("PASS", "Pass", "PASS", "PAS")),
        double_word=pick(("X", "X", "DBL")), redouble_word=pick(("XX", "XX", "RDBL")),
        four_colour=bool(rng.random() < 0.3), paper=pick(PAPERS), pass_green=pick(PASS_GREENS),
        double_red=pick(DOUBLE_REDS), redouble_blue=pick(REDOUBLE_BLUES),
        layout=pick(("inline", "inline", "stacked")), text_mm=float(rng.uniform(9.0, 14.0)),
        border=bool(rng.random() < 0.4), left=bool(rng.random() < 0.5), seed=int(k),
    )


def design(k: int) -> BidDesign:
    """The ``k``-th training design."""
    return _design(k, TRAIN_FONTS, 1)


def held_out_design(k: int) -> BidDesign:
    """The ``k``-th held-out design: a typeface family no training design uses."""
    return _design(k, HELD_OUT_FONTS, 2)


TRAINED_DESIGNS = 60
"""The bid-card reader trains on ``design(0)`` ... ``design(59)`` (``bidcards --designs``)."""


def tuning_design(k: int) -> BidDesign:
    """The ``k``-th tuning design: drawn as the training designs are, but one the reader never trained
    on (``design(60)`` and on), so that settings are chosen on designs it has not seen and the
    held-out family stays for judging.

    >>> tuning_design(0).seed, tuning_design(0).font_family in TRAIN_FONTS
    (60, True)
    """
    return design(TRAINED_DESIGNS + k % 1000)


SUIT_INK = {"S": (20, 20, 20), "H": (200, 20, 30), "D": (200, 20, 30), "C": (20, 20, 20)}
FOUR_INK = {"S": (20, 20, 20), "H": (200, 20, 30), "D": (230, 120, 10), "C": (20, 130, 40)}


def suit_sign(draw, suit: str, cx: float, cy: float, h: float, ink) -> None:
    """A suit sign ``h`` pixels high centred at (cx, cy), drawn as shapes."""
    r = h / 4.0
    if suit == "D":
        draw.polygon([(cx, cy - h / 2), (cx + h * 0.36, cy), (cx, cy + h / 2), (cx - h * 0.36, cy)], fill=ink)
        return
    if suit == "H":
        top = cy - h * 0.22
        draw.ellipse([cx - 2 * r, top - r, cx, top + r], fill=ink)
        draw.ellipse([cx, top - r, cx + 2 * r, top + r], fill=ink)
        draw.polygon([(cx - 1.95 * r, top + 0.25 * r), (cx + 1.95 * r, top + 0.25 * r), (cx, cy + h / 2)], fill=ink)
        return
    if suit == "S":
        base = cy + h * 0.12
        draw.ellipse([cx - 2 * r, base - r, cx, base + r], fill=ink)
        draw.ellipse([cx, base - r, cx + 2 * r, base + r], fill=ink)
        draw.polygon([(cx - 1.95 * r, base - 0.25 * r), (cx + 1.95 * r, base - 0.25 * r), (cx, cy - h / 2)], fill=ink)
    else:  # clubs: three balls
        rr = r * 0.95
        for dx, dy in ((0, -1.05), (-1.05, 0.35), (1.05, 0.35)):
            draw.ellipse([cx + dx * rr - rr, cy - h * 0.1 + dy * rr - rr, cx + dx * rr + rr,
                          cy - h * 0.1 + dy * rr + rr], fill=ink)
    draw.polygon([(cx, cy), (cx + r * 0.8, cy + h / 2), (cx - r * 0.8, cy + h / 2)], fill=ink)


def _colours(call: str, d: BidDesign) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Background and ink of a card."""
    white = (250, 250, 250)
    return {"P": (d.pass_green, white), "X": (d.double_red, white), "XX": (d.redouble_blue, white),
            "STOP": (d.double_red, white), "ALERT": (d.redouble_blue, white)}.get(call, (d.paper, (20, 20, 20)))


def _word(call: str, d: BidDesign) -> str:
    return {"P": d.pass_word, "X": d.double_word, "XX": d.redouble_word, "STOP": "STOP", "ALERT": "ALERT"}[call]


def draw_card(call: str, d: BidDesign, px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """The whole face of the bidding card for ``call`` (``1C`` ... ``7N``, ``P``, ``X``, ``XX``,
    ``STOP``, ``ALERT``) as an RGB array, the call in the top strip and again larger below."""
    from PIL import Image, ImageDraw

    w, h = round(CARD_MM[0] * px_per_mm), round(CARD_MM[1] * px_per_mm)
    bg, ink = _colours(call, d)
    img = Image.new("RGB", (w, h), bg)
    dr = ImageDraw.Draw(img)
    if d.border:
        m = int(1.5 * px_per_mm)
        frame = ink if call in ("1C",) or len(call) != 2 else SUIT_INK.get(call[1], ink)
        dr.rectangle([m, m, w - m, h - m], outline=frame, width=max(2, int(0.6 * px_per_mm)))
    strip_h = STRIP_MM * px_per_mm
    _draw_call(dr, call, d, (0, 0, w, strip_h), d.text_mm * px_per_mm, ink, left=d.left)
    # the same call large in the lower part, as most boxes print it
    _draw_call(dr, call, d, (0, strip_h, w, h - strip_h * 0.3), min(d.text_mm * 2.2, 26) * px_per_mm, ink,
               left=False)
    return np.asarray(img)


def _draw_call(dr, call: str, d: BidDesign, box: tuple[float, float, float, float], size: float, ink,
               left: bool) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    pad = (x1 - x0) * 0.12
    if call in ("P", "X", "XX", "STOP", "ALERT"):
        word = _word(call, d)
        f = _font(d.font_file, int(size if len(word) <= 2 else size * min(1.0, 3.2 / len(word))))
        tw = dr.textlength(word, font=f)
        if tw > (x1 - x0) * 0.9:   # a long word shrinks to fit the card
            f = _font(d.font_file, int(f.size * (x1 - x0) * 0.9 / tw))
            tw = dr.textlength(word, font=f)
        tx = x0 + pad if left and tw < (x1 - x0) * 0.7 else cx - tw / 2
        dr.text((tx, cy), word, font=f, fill=ink, anchor="lm")
        return
    level, strain = call[0], call[1]
    f = _font(d.font_file, int(size))
    suit_ink = (FOUR_INK if d.four_colour else SUIT_INK).get(strain, ink)
    strain_text = d.nt_word if strain == "N" else None
    sign_w = size * 0.8 if strain_text is None else dr.textlength(strain_text, font=_font(d.font_file, int(size * 0.8)))
    lw = dr.textlength(level, font=f)
    if d.layout == "stacked":   # level over the sign, both inside the box's height
        hh = min(size, (y1 - y0) * 0.5)
        f = _font(d.font_file, int(hh))
        tx = x0 + pad + max(lw, sign_w) * hh / size / 2 if left else cx
        dr.text((tx, cy), level, font=f, fill=ink, anchor="md")
        _strain(dr, strain, strain_text, tx, cy + hh * 0.5, hh * 0.8, suit_ink, d)
        return
    gap = size * 0.12
    total = lw + gap + sign_w
    tx = x0 + pad if left else cx - total / 2
    dr.text((tx, cy), level, font=f, fill=ink, anchor="lm")
    _strain(dr, strain, strain_text, tx + lw + gap + sign_w / 2, cy, size * 0.8, suit_ink, d)


def _strain(dr, strain: str, text: str | None, cx: float, cy: float, h: float, ink, d: BidDesign) -> None:
    if text is None:
        suit_sign(dr, strain, cx, cy, h, ink)
    else:
        dr.text((cx, cy), text, font=_font(d.font_file, int(h)), fill=(20, 20, 20), anchor="mm")


def card_strip(face: np.ndarray, px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """The top strip of a drawn face: what stays in view in a row of calls."""
    return face[: round(STRIP_MM * px_per_mm)]


def wear(face: np.ndarray, rng: np.random.Generator, amount: float = 1.0) -> np.ndarray:
    """Scuffs, dirt and a glossy highlight, as an often-used box shows them."""
    import cv2

    out = face.astype(np.float32)
    h, w = out.shape[:2]
    for _ in range(int(rng.integers(0, 12) * amount)):      # scratches
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        a, length = rng.uniform(0, math.pi), rng.uniform(10, 0.5 * w)
        p2 = (int(x + length * math.cos(a)), int(y + length * math.sin(a)))
        shade = float(rng.uniform(-60, 60))
        cv2.line(out, (int(x), int(y)), p2, (shade + 180,) * 3, 1, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 6) * amount)):       # dirt
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        cv2.circle(out, c, int(rng.uniform(2, 12)), (float(rng.uniform(60, 140)),) * 3, -1, cv2.LINE_AA)
    if rng.random() < 0.5 * amount:                          # gloss: a bright band
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, math.pi)
        d = (xx * math.cos(a) + yy * math.sin(a)) - rng.uniform(0, w + h)
        band = np.exp(-(d / rng.uniform(8, 40)) ** 2) * rng.uniform(40, 120)
        out += band[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)
