"""Deck designs generated from a seed (``gen-0``, ``gen-1``, ...).

The corner classifier reads a pack it has never seen only as well as the
variety of packs it trained on allows.  The Debian SVG decks and the seven
hand-drawn styles of ``faces.py`` are 35 designs; the held-out ones showed
what the classifier had not learned from them (docs/vision-model.md): a
blue four-colour diamond read as a spade, a wide diamond as a heart, a
``Joker`` written down the corner as a jack, a plain one-colour back as
"not a card".  A generated design draws every choice a printer makes from
a seeded random generator: the index font (DejaVu, STIX and Computer
Modern faces), its size and place, the suit signs (font glyphs or shapes
drawn here with random proportions), the inks (two- or four-colour, in
several shades), the paper, the court-card frame, the joker and the back.

``gen-k`` is the same design on every machine with the same fonts; the
font files found are part of the recipe.  The held-out drawn design
(``drawn-serif-bold``) is kept honest: DejaVu Serif Bold faces are never
drawn here.

>>> d = design(3)
>>> d == design(3), d.name
(True, 'gen-3')
>>> generated_decks(2)
['gen-0', 'gen-1']
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .faces import FACE_H, FACE_W, SUIT_GLYPH, truetype

PREFIX = "gen-"
_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
# DejaVu Serif Bold (and its condensed cut) draws the held-out drawn deck.
_NEVER = {"DejaVuSerif-Bold.ttf", "DejaVuSerifCondensed-Bold.ttf", "DejaVuSerif-BoldItalic.ttf",
          "DejaVuSerifCondensed-BoldItalic.ttf"}
_MPL_RANK = ["STIXGeneral.ttf", "STIXGeneralBol.ttf", "cmr10.ttf", "cmss10.ttf", "cmb10.ttf", "cmtt10.ttf"]
_SUIT_FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSerif.ttf", "STIXGeneral.ttf"]


# gen-60 .. gen-99 are never trained on: rectified cards of them are the
# classifier's validation of its reach to unseen packs (bench/vision/tune.py
# --design-val), which leaves the held-out decks for the benchmark
VALIDATION_DESIGNS = range(60, 100)


def generated_decks(n: int) -> list[str]:
    """Names of the first ``n`` generated designs."""
    return [f"{PREFIX}{k}" for k in range(n)]


def training_designs(n: int) -> list[str]:
    """The ``n`` generated designs a model may train on: the first 60, then
    from ``gen-100`` on, past the validation designs.

    >>> training_designs(2), training_designs(62)[-2:]
    (['gen-0', 'gen-1'], ['gen-100', 'gen-101'])
    """
    first = VALIDATION_DESIGNS.start
    return generated_decks(min(n, first)) + [f"{PREFIX}{k}" for k in range(VALIDATION_DESIGNS.stop,
                                                                           VALIDATION_DESIGNS.stop + n - first)]


@functools.lru_cache(maxsize=1)
def font_files() -> dict[str, Path]:
    """Font file name -> path of every font a design may use (DejaVu from
    Debian, STIX and Computer Modern from matplotlib where installed)."""
    found: dict[str, Path] = {}
    if _DEJAVU.is_dir():
        for p in sorted(_DEJAVU.glob("*.ttf")):
            if p.name not in _NEVER and "ExtraLight" not in p.name and "MathTeX" not in p.name:
                found[p.name] = p
    spec = importlib.util.find_spec("matplotlib")
    if spec and spec.submodule_search_locations:
        mpl = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf"
        for name in _MPL_RANK:
            if (mpl / name).exists():
                found.setdefault(name, mpl / name)
    return found


def font(name: str, size: int):
    """The font file ``name`` (one of :func:`font_files`) at ``size``."""
    return truetype(font_files().get(name), size)


@dataclass(frozen=True)
class Design:
    """Every printing choice of one generated pack."""

    name: str
    rank_font: str
    rank_h: float          # index rank height, fraction of the card height
    index_x: float         # centre of the index column, fraction of the width
    index_top: float       # top of the index, fraction of the height
    stroke: int            # extra stroke width (a bolder cut of the font)
    side_by_side: bool     # suit to the right of the rank instead of below
    suit_font: str | None  # None: suit signs drawn as shapes
    suit_scale: float      # suit sign height / rank height
    diamond_w: float       # drawn diamond width / height
    lobe: float            # drawn heart/spade/club lobe radius / sign height
    inks: tuple            # RGB of S, H, D, C
    paper: tuple           # RGB
    frame: tuple | None    # court-card frame colour (None: no frame)
    joker: str             # "JOKER", "Joker" (down the corner), "star", "across" or "tall"
    back_plain: bool
    back_colour: tuple
    back_pattern: int      # 0 lines, 1 dots, 2 checks
    joker_ink: tuple | None = None  # the joker index's ink (None: the red ink, black for a star)
    joker_word: str = "JOKER"        # the word an "across" or "tall" joker writes


def design(k: int, version: int | None = None) -> Design:
    """The ``k``-th generated design (deterministic), as design version
    ``version`` draws it (None: the active one, :func:`use_version`)."""
    return _design(k, _active[0] if version is None else version)


@functools.lru_cache(maxsize=None)
def _design(k: int, version: int) -> Design:
    rng = np.random.default_rng(1_000_003 + k)
    fonts = font_files()
    rank_fonts = sorted(n for n in fonts if not n.startswith("DejaVuSansMono-") or "Bold" in n)
    suit_fonts = [n for n in _SUIT_FONTS if n in fonts]

    def pick(seq):
        return seq[int(rng.integers(len(seq)))]

    def shade(base, spread=30):
        return tuple(int(np.clip(b + rng.integers(-spread, spread + 1), 0, 255)) for b in base)

    red = shade((205, 20, 30), 35)
    black = shade((15, 15, 20), 15) if rng.random() < 0.8 else shade((20, 30, 70), 20)
    if rng.random() < 0.25:  # four-colour pack: diamonds blue or orange, clubs green
        diamond = shade((20, 70, 200), 30) if rng.random() < 0.7 else shade((230, 120, 0), 25)
        inks = (black, red, diamond, shade((10, 120, 30), 30))
    else:
        inks = (black, red, red, black)
    d = Design(
        name=f"{PREFIX}{k}",
        rank_font=pick(rank_fonts) if rank_fonts else "",
        rank_h=float(rng.uniform(0.07, 0.13)),
        index_x=float(rng.uniform(0.07, 0.13)),
        index_top=float(rng.uniform(0.02, 0.05)),
        stroke=int(rng.choice([0, 0, 0, 1, 2])),
        side_by_side=bool(rng.random() < 0.12),
        suit_font=pick(suit_fonts) if suit_fonts and rng.random() < 0.5 else None,
        suit_scale=float(rng.uniform(0.6, 1.05)),
        diamond_w=float(rng.uniform(0.55, 0.9)),
        lobe=float(rng.uniform(0.22, 0.29)),
        inks=inks,
        paper=shade((250, 249, 244), 8),
        frame=pick([None, black, red, shade((180, 150, 40), 30)]),
        joker=pick(["JOKER", "JOKER", "Joker", "star"]),
        back_plain=bool(rng.random() < 0.4),
        back_colour=tuple(int(v) for v in rng.integers(20, 200, 3)),
        back_pattern=int(rng.integers(3)),
    )
    return _joker_layout(d, k) if version >= 2 else d


# Versions of the generated designs.  1: classifier stages 4 and 5 trained
# on it.  2: jokers may also write their word across the corner or in
# letters as tall as a rank index (stage 6 on).  A cache of rendered
# training crops names the version, so crops of one are never reused for
# another, and ``tablecam train --design-version 1`` redraws version 1.
VERSION = 2
_active = [VERSION]


def use_version(version: int) -> None:
    """Draw version ``version`` of the designs from now on (this process)."""
    if version not in (1, 2):
        raise ValueError(f"unknown design version {version}")
    _active[0] = version


def active_version() -> int:
    return _active[0]


def _joker_layout(d: Design, k: int) -> Design:
    """Half the designs lay their joker out another common way: the word
    across the top of the corner, or down it in letters as tall as a rank
    index, in black, red or grey.  Drawn from a stream of its own, so every
    other card of every design stays what version 1 drew."""
    import dataclasses

    jr = np.random.default_rng(3_000_017 + k)
    if jr.random() >= 0.5:
        return d
    style = ["across", "tall"][int(jr.integers(2))]
    word = ["JOKER", "Joker"][int(jr.integers(2))]
    g = int(jr.integers(70, 140))
    ink = [d.inks[0], d.inks[1], (g, g, g)][int(jr.integers(3))]  # the spade's or heart's ink, or grey
    return dataclasses.replace(d, joker=style, joker_word=word, joker_ink=ink)


def _suit_sign(draw, suit: str, cx: float, top: float, h: float, ink, d: Design) -> None:
    """A suit sign ``h`` tall, centred on ``cx``, top at ``top``."""
    if d.suit_font:
        draw.text((cx, top), SUIT_GLYPH[suit], font=font(d.suit_font, max(6, int(h * 1.25))), fill=ink, anchor="mt")
        return
    w = h * d.diamond_w
    if suit == "D":
        draw.polygon([(cx, top), (cx + w / 2, top + h / 2), (cx, top + h), (cx - w / 2, top + h / 2)], fill=ink)
        return
    r = h * d.lobe
    if suit == "H":
        y = top + r
        draw.ellipse((cx - 2 * r, y - r, cx, y + r), fill=ink)
        draw.ellipse((cx, y - r, cx + 2 * r, y + r), fill=ink)
        draw.polygon([(cx - 2 * r + 0.5, y + r * 0.3), (cx + 2 * r - 0.5, y + r * 0.3), (cx, top + h)], fill=ink)
    elif suit == "S":  # a heart upside down on a stem: the point must stand clear of the lobes
        r *= 0.8
        y = top + h * 0.78 - r
        draw.polygon([(cx, top), (cx + 2 * r - 0.5, y - r * 0.2), (cx - 2 * r + 0.5, y - r * 0.2)], fill=ink)
        draw.ellipse((cx - 2 * r, y - r, cx, y + r), fill=ink)
        draw.ellipse((cx, y - r, cx + 2 * r, y + r), fill=ink)
        draw.polygon([(cx, y), (cx + r * 0.8, top + h), (cx - r * 0.8, top + h)], fill=ink)
    else:  # club: three lobes and a stem
        y = top + h * 0.62 - r
        for ox, oy in ((0, -r * 1.05), (-r * 1.05, 0.15 * r), (r * 1.05, 0.15 * r)):
            draw.ellipse((cx + ox - r, y + oy - r, cx + ox + r, y + oy + r), fill=ink)
        draw.polygon([(cx, y), (cx + r * 0.8, top + h), (cx - r * 0.8, top + h)], fill=ink)


_PIPS = {
    "A": [(0.5, 0.5)], "2": [(0.5, 0.2), (0.5, 0.8)], "3": [(0.5, 0.2), (0.5, 0.5), (0.5, 0.8)],
    "4": [(0.32, 0.2), (0.68, 0.2), (0.32, 0.8), (0.68, 0.8)],
}
_PIPS["5"] = _PIPS["4"] + [(0.5, 0.5)]
_PIPS["6"] = _PIPS["4"] + [(0.32, 0.5), (0.68, 0.5)]
_PIPS["7"] = _PIPS["6"] + [(0.5, 0.35)]
_PIPS["8"] = _PIPS["7"] + [(0.5, 0.65)]
_PIPS["9"] = [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.4, 0.6, 0.8)] + [(0.5, 0.5)]
_PIPS["T"] = [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.4, 0.6, 0.8)] + [(0.5, 0.3), (0.5, 0.7)]


def _back(d: Design) -> np.ndarray:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (FACE_W, FACE_H), d.paper)
    dr = ImageDraw.Draw(img)
    dr.rounded_rectangle((1, 1, FACE_W - 2, FACE_H - 2), radius=14, outline=(110, 110, 110), width=2)
    m = 10 if d.back_plain else 12
    dr.rounded_rectangle((m, m, FACE_W - m - 1, FACE_H - m - 1), radius=8, fill=d.back_colour)
    if not d.back_plain:
        light = tuple(min(255, c + 90) for c in d.back_colour)
        if d.back_pattern == 0:
            for k in range(-FACE_H, FACE_W + FACE_H, 14):
                dr.line((k, m, k + FACE_H, FACE_H + m), fill=light, width=2)
        elif d.back_pattern == 1:
            for y in range(m + 8, FACE_H - m - 4, 14):
                for x in range(m + 8 + (y // 14 % 2) * 7, FACE_W - m - 4, 14):
                    dr.ellipse((x - 3, y - 3, x + 3, y + 3), fill=light)
        else:
            for y in range(m, FACE_H - m, 20):
                for x in range(m + (y // 20 % 2) * 20, FACE_W - m, 40):
                    dr.rectangle((x, y, min(x + 19, FACE_W - m - 1), min(y + 19, FACE_H - m - 1)), fill=light)
        dr.rounded_rectangle((m, m, FACE_W - m - 1, FACE_H - m - 1), radius=8, outline=light, width=3)
    return np.array(img)[:, :, ::-1].copy()


def draw_generated(card: str, k: int) -> np.ndarray:
    """Face of ``card`` (``SA`` .. ``C2``, ``JK``, ``back``) in design ``k``,
    250x350 BGR, index in the top-left and (turned) bottom-right corners."""
    from PIL import Image, ImageDraw

    d = design(k)
    if card == "back":
        return _back(d)
    ih = int(FACE_H * d.rank_h)
    cx, top = FACE_W * d.index_x, FACE_H * d.index_top
    layer = Image.new("RGB", (FACE_W, FACE_H), (255, 255, 255))
    ld = ImageDraw.Draw(layer)
    fnt = font(d.rank_font, ih)
    if card == "JK":
        ink = d.joker_ink or (d.inks[1] if d.joker != "star" else d.inks[0])
        if d.joker == "star":
            ld.text((cx, top), "\u2605", font=font("DejaVuSans.ttf", ih), fill=ink, anchor="mt")
        elif d.joker == "across":  # the word along the top edge, as wide as a third of the card
            size = max(6, int(ih * 0.6))
            while size > 6 and ld.textlength(d.joker_word, font=font(d.rank_font, size)) > FACE_W * 0.32:
                size -= 1
            ld.text((max(3.0, cx - ih * 0.35), top), d.joker_word, font=font(d.rank_font, size), fill=ink,
                    anchor="lt", stroke_width=min(d.stroke, 1), stroke_fill=ink)
        elif d.joker == "tall":  # letters as tall as a rank index, down the corner
            for i, ch in enumerate(d.joker_word):
                ld.text((cx, top + i * ih * 1.05), ch, font=fnt, fill=ink, anchor="mt",
                        stroke_width=d.stroke, stroke_fill=ink)
        else:
            small = font(d.rank_font, max(6, int(ih * 0.7)))
            for i, ch in enumerate(d.joker):
                ld.text((cx, top + i * ih * 0.72), ch, font=small, fill=ink, anchor="mt",
                        stroke_width=d.stroke, stroke_fill=ink)
    else:
        suit, rank = card[0], card[1]
        ink = d.inks["SHDC".index(suit)]
        txt = "10" if rank == "T" else rank
        sh = ih * d.suit_scale
        if d.side_by_side:
            tw = ld.textlength(txt, font=fnt)
            x0 = max(2.0, cx - ih * 0.3)
            ld.text((x0, top), txt, font=fnt, fill=ink, anchor="lt", stroke_width=d.stroke, stroke_fill=ink)
            _suit_sign(ld, suit, x0 + tw + sh * 0.45, top + ih * 0.1, sh * 0.8, ink, d)
        else:
            ld.text((cx, top), txt, font=fnt, fill=ink, anchor="mt", stroke_width=d.stroke, stroke_fill=ink)
            _suit_sign(ld, suit, cx, top + ih * 1.12, sh, ink, d)
    corner = np.array(layer)
    mask = corner.astype(int).sum(axis=2) < 720
    img = Image.new("RGB", (FACE_W, FACE_H), d.paper)
    dr = ImageDraw.Draw(img)
    if card == "JK":
        dr.text((FACE_W / 2, FACE_H / 2), "\u2605", font=font("DejaVuSans.ttf", 110), fill=d.inks[1], anchor="mm")
    elif card[1] in _PIPS:
        ph = FACE_H * (0.25 if card[1] == "A" else 0.12)
        for x, y in _PIPS[card[1]]:
            _suit_sign(dr, card[0], FACE_W * x, FACE_H * y - ph / 2, ph, ink, d)
    else:  # court card: a frame and a figure drawn in blocks of the suit's ink
        x0, y0, x1, y1 = FACE_W * 0.24, FACE_H * 0.17, FACE_W * 0.76, FACE_H * 0.83
        if d.frame is not None:
            dr.rectangle((x0, y0, x1, y1), outline=d.frame, width=2)
        dr.text((FACE_W / 2, FACE_H * 0.4), card[1], font=font(d.rank_font, 80), fill=ink, anchor="mm")
        _suit_sign(dr, card[0], FACE_W / 2, FACE_H * 0.58, FACE_H * 0.12, ink, d)
    base = np.array(img)
    base[mask] = corner[mask]
    base[np.rot90(mask, 2)] = np.rot90(corner, 2)[np.rot90(mask, 2)]
    out = Image.fromarray(base)
    ImageDraw.Draw(out).rounded_rectangle((1, 1, FACE_W - 2, FACE_H - 2), radius=14, outline=(120, 120, 120), width=2)
    return np.array(out)[:, :, ::-1].copy()


def is_generated(deck: str) -> bool:
    return deck.startswith(PREFIX) and deck[len(PREFIX):].isdigit()


def generated_index(deck: str) -> int:
    return int(deck[len(PREFIX):])


