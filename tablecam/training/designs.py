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
font files found are part of the recipe.  The drawn design kept out of
training (``drawn-serif-bold``, ``faces.NOT_TRAINED_DECKS``) stays out:
DejaVu Serif Bold faces are never drawn here.

>>> d = design(3)
>>> d == design(3), d.name
(True, 'gen-3')
>>> generated_decks(2)
['gen-0', 'gen-1']
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .faces import FACE_H, FACE_W, SUIT_GLYPH, truetype

PREFIX = "gen-"
_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
# DejaVu Serif Bold (and its condensed cut) draws the deck kept out of training.
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


def validation_designs(n: int | None = None) -> list[str]:
    """The first ``n`` (all, by default) of the generated designs no model
    trains on (:data:`VALIDATION_DESIGNS`): the tuning sets' unseen packs.

    >>> validation_designs(2), len(validation_designs())
    (['gen-60', 'gen-61'], 40)
    """
    count = len(VALIDATION_DESIGNS) if n is None else min(n, len(VALIDATION_DESIGNS))
    return generated_decks(VALIDATION_DESIGNS.start + count)[VALIDATION_DESIGNS.start:]


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
    joker_art: int = -1              # seed of the jester drawn on the joker (-1: a star)
    joker_fit: tuple | None = None   # an "across" word squeezed to (width, height), fractions of the card


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
    if version >= 2:
        d = _joker_layout(d, k)
    return _joker_art(d, k) if version >= 3 else d


# Versions of the generated designs.  1: classifier stages 4 and 5 trained
# on it.  2: jokers may also write their word across the corner or in
# letters as tall as a rank index (stage 6 on).  3: most jokers carry a
# jester figure that reaches up to the index, and a word across the corner
# may be squeezed or stretched (stage 12's joker views).  A cache of
# rendered training crops names the version, so crops of one are never
# reused for another, and ``tablecam train --design-version 1`` redraws
# version 1.
VERSION = 3
_active = [VERSION]


def use_version(version: int) -> None:
    """Draw version ``version`` of the designs from now on (this process)."""
    if version not in (1, 2, 3):
        raise ValueError(f"unknown design version {version}")
    _active[0] = version


def active_version() -> int:
    return _active[0]


@contextlib.contextmanager
def drawing(version: int):
    """Draw version ``version`` inside the block, then the version before:
    a stage that reuses crops of an older version can add views of the
    newest one."""
    before = _active[0]
    use_version(version)
    try:
        yield
    finally:
        _active[0] = before


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


def _joker_art(d: Design, k: int) -> Design:
    """Version 3: six jokers in ten carry a jester figure instead of the
    star, and an "across" word is squeezed or stretched to a box of its
    own.  A printed joker's artwork fills the card up to its index, so the
    corner window shows colour and lines under the word; version 2's star
    left paper there, and the classifier took a real joker's corner for a
    ten or for no card.  Drawn from a stream of its own, so every other
    card stays what version 2 drew."""
    import dataclasses

    jr = np.random.default_rng(5_000_011 + k)
    art = int(jr.integers(1 << 30)) if jr.random() < 0.6 else -1
    fit = (float(jr.uniform(0.22, 0.44)), float(jr.uniform(0.05, 0.10))) if jr.random() < 0.7 else None
    return dataclasses.replace(d, joker_art=art, joker_fit=fit)


def _jester(draw, seed: int, d: Design) -> None:
    """A jester of random shapes: a two- or three-pointed cap with bells,
    a face, a zigzag collar, a body and arms in two to four inks, outlined,
    filling a box that starts just under the corner index."""
    r = np.random.default_rng(seed)
    pal = [d.inks[1], d.inks[0], tuple(int(v) for v in r.integers(0, 256, 3)),
           tuple(int(v) for v in r.integers(0, 256, 3)), (230, 180, 60), (120, 60, 160), (40, 140, 60)]
    cols = [pal[int(i)] for i in r.choice(len(pal), size=4, replace=False)]
    line = d.inks[0]
    x0, y0 = FACE_W * r.uniform(0.05, 0.28), FACE_H * r.uniform(0.08, 0.22)
    x1, y1 = FACE_W * r.uniform(0.68, 0.92), FACE_H * r.uniform(0.76, 0.92)
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2 + w * r.uniform(-0.1, 0.1)
    fy, fr = y0 + h * r.uniform(0.22, 0.3), w * r.uniform(0.1, 0.15)   # the face
    points = int(r.integers(2, 4))
    for i in range(points):  # the cap's points, each with a bell
        tx = x0 + w * (i + 0.5) / points + w * r.uniform(-0.12, 0.12)
        ty = y0 + h * r.uniform(0.0, 0.08)
        draw.polygon([(cx - fr * 1.2, fy - fr * 0.6), (tx, ty), (cx + fr * 1.2, fy - fr * 0.6)],
                     fill=cols[i % 2], outline=line)
        b = w * 0.04
        draw.ellipse((tx - b, ty - b, tx + b, ty + b), fill=cols[2], outline=line)
    draw.ellipse((cx - fr, fy - fr, cx + fr, fy + fr), fill=(240, 205, 170), outline=line, width=2)
    cy = fy + fr * 1.1  # the collar: a zigzag ring
    teeth = int(r.integers(5, 9))
    pts = []
    for i in range(teeth * 2 + 1):
        t = i / (teeth * 2)
        pts.append((cx - w * 0.35 + t * w * 0.7, cy + (h * 0.08 if i % 2 else 0)))
    draw.polygon([(cx - w * 0.35, cy)] + pts + [(cx + w * 0.35, cy)], fill=cols[3], outline=line)
    by = cy + h * 0.06  # the body, split in two inks like a harlequin's
    draw.polygon([(cx - w * 0.28, by), (cx, by), (cx, y1), (cx - w * 0.4, y1)], fill=cols[0], outline=line)
    draw.polygon([(cx, by), (cx + w * 0.28, by), (cx + w * 0.4, y1), (cx, y1)], fill=cols[1], outline=line)
    for s in (-1, 1):  # arms; the left one often raised, a stick and bauble up into the corner
        ax, ay = cx + s * w * 0.28, by + h * 0.05
        ex, ey = cx + s * w * r.uniform(0.35, 0.5), by + h * r.uniform(-0.2, 0.3)
        draw.line((ax, ay, ex, ey), fill=cols[2 + (s > 0)], width=max(3, int(w * 0.06)))
        if s < 0 and r.random() < 0.6:
            tx, ty = FACE_W * r.uniform(0.1, 0.3), FACE_H * r.uniform(0.16, 0.36)
            draw.line((ex, ey, tx, ty), fill=line, width=int(r.integers(2, 5)))
            b = int(r.integers(5, 11))
            draw.ellipse((tx - b, ty - b, tx + b, ty + b), fill=cols[int(r.integers(4))], outline=line)
        elif r.random() < 0.5:
            draw.line((ex, ey, ex + s * w * 0.05, ey - h * 0.2), fill=line, width=2)
            draw.ellipse((ex + s * w * 0.05 - 5, ey - h * 0.2 - 5, ex + s * w * 0.05 + 5, ey - h * 0.2 + 5),
                         fill=cols[int(r.integers(4))], outline=line)


def _squeezed_word(d: Design, ink) -> "Image.Image":
    """The joker's word drawn large, then resized to ``d.joker_fit``: the
    condensed and extended cuts packs print it in."""
    from PIL import Image, ImageDraw

    f = font(d.rank_font, 60)
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    l, t, r_, b = probe.textbbox((0, 0), d.joker_word, font=f, stroke_width=min(d.stroke, 1) * 2)
    img = Image.new("RGBA", (r_ - l + 4, b - t + 4), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((2 - l, 2 - t), d.joker_word, font=f, fill=ink + (255,),
                             stroke_width=min(d.stroke, 1) * 2, stroke_fill=ink + (255,))
    fw, fh = d.joker_fit
    return img.resize((max(8, int(FACE_W * fw)), max(6, int(FACE_H * fh))), Image.LANCZOS)


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
        elif d.joker == "across" and d.joker_fit:  # squeezed or stretched to a box of its own
            word = _squeezed_word(d, tuple(int(v) for v in ink))
            layer.paste(word, (int(max(3.0, cx - ih * 0.35)), int(top)), word)
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
    if card == "JK" and d.joker_art >= 0:
        _jester(dr, d.joker_art, d)
    elif card == "JK":
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


