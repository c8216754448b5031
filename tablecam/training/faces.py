"""Upright card face images from many deck designs.

The recogniser is trained on renders, never on downloaded weights, so the
variety of deck designs it sees is what lets it read a pack it has never
met.  Faces come from two sources:

* the SVG decks Debian ships (``gnome-cards-data`` for aisleriot and
  ``kdegames-card-data-kf5``), rendered once with ``rsvg-convert`` and cached
  as PNG files (``$TABLECAM_CACHE/faces`` or ``~/.cache/tablecam/faces``);
* decks drawn here with OpenCV/PIL (``drawn-*``): several fonts, index sizes
  and pip layouts, so the classifier learns "a rank letter above a suit
  sign" rather than one artist's style.

Every face is returned as a 250x350 (width x height, or ``height`` tall)
BGR ``numpy`` image, portrait, index in the top-left corner.  Card codes are
the contract's canonical ones (``SA`` .. ``C2``), plus ``JK`` and ``back``.

>>> ALL_CODES[:3], ALL_CODES[-2:]
(['SA', 'SK', 'SQ'], ['JK', 'back'])
>>> svg_ids("HT")[:2]
['heart_10', '10_heart']
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ..vision.classify import CARD_CODES, RANKS, SUITS  # noqa: F401 - the runtime's class list, reexported
ALL_CODES: list[str] = CARD_CODES + ["JK", "back"]

FACE_W, FACE_H = 250, 350

_SUIT_WORD = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
_RANK_WORDS = {
    "A": ["1", "ace", "01"], "K": ["king", "13"], "Q": ["queen", "12"], "J": ["jack", "11"],
    "T": ["10"], "9": ["9", "09"], "8": ["8", "08"], "7": ["7", "07"], "6": ["6", "06"],
    "5": ["5", "05"], "4": ["4", "04"], "3": ["3", "03"], "2": ["2", "02"],
}

# SVG files: deck name -> path.  Decks whose suits are not the French ones
# (German, Swiss, Italian) or whose indices are not Latin are left out: the
# table games here are played with a French-suited pack.
_SVG_DIRS = [Path("/usr/share/aisleriot/cards"), Path("/usr/share/carddecks")]
_EXCLUDED = {
    "swiss-xvii", "tarocco", "tigullio", "svg-xskat-german", "anglo_bitmap", "gnomangelo_bitmap",
    "Атласные", "atlasnye", "atlasnye_skat", "svg-future", "svg-konqi-modern", "svg-xskat-french",
    # index in the top-right corner (mirrored layout): the corner reader looks top-left
    "svg-oxygen", "svg-oxygen-air", "svg-oxygen-white",
}

# Designs never used in training, by artists whose packs nothing here
# imitates: the generalisation test of the model card and the benchmarks.
HELD_OUT_DECKS: list[str] = ["tango", "bellot"]
# Also kept out of training, but not counted as unseen: the bold cut of the
# training deck ``drawn-serif`` (near-identical cards).  Out of training so
# the shipped models' recorded recipes still reproduce them; a bench's tuning
# videos may use it, since it is no test design.
NOT_TRAINED_DECKS: list[str] = HELD_OUT_DECKS + ["drawn-serif-bold"]


def cache_dir() -> Path:
    """Where rendered faces live (created on demand)."""
    base = os.environ.get("TABLECAM_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "tablecam"
    d = root / "faces"
    d.mkdir(parents=True, exist_ok=True)
    return d


def svg_ids(card: str) -> list[str]:
    """Candidate SVG element ids for a card code, across the naming schemes
    the Debian decks use (``club_king``, ``king_club``, ``king-of-clubs``,
    ``kingclubs``, ``back``, ``card_back``, ``black_joker`` ...)."""
    if card == "back":
        return ["back", "card_back", "back_c1", "back1", "red_back", "blue_back", "back-red"]
    if card == "JK":
        return ["black_joker", "joker_black", "red_joker", "joker_red", "joker", "black-joker"]
    s, r = _SUIT_WORD[card[0]], card[1]
    out = []
    for w in _RANK_WORDS[r]:
        out += [f"{s}_{w}", f"{w}_{s}", f"{w}-of-{s}s", f"{w}{s}s", f"{s}s_{w}"]
    return out


@functools.lru_cache(maxsize=None)
def _svg_files() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in _SVG_DIRS:
        if not root.is_dir():
            continue
        for f in sorted(root.rglob("*.svg*")):
            name = f.stem.replace(".svg", "") if root.name == "cards" else f.parent.name
            if name in _EXCLUDED or f.parent.name in _EXCLUDED:
                continue
            found.setdefault(name, f)
    return found


@functools.lru_cache(maxsize=None)
def _svg_text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace")


@functools.lru_cache(maxsize=None)
def _id_map(deck: str) -> dict[str, str]:
    """card code -> element id in the deck's SVG (only codes that exist)."""
    ids = set(re.findall(r'\bid="([^"]+)"', _svg_text(_svg_files()[deck])))
    m: dict[str, str] = {}
    for code in ALL_CODES:
        for cand in svg_ids(code):
            if cand in ids:
                m[code] = cand
                break
    return m


def _drawn_decks() -> list[str]:
    return ["drawn-" + s for s in DRAWN_STYLES]


def list_decks() -> list[str]:
    """All deck designs with a full set of 52 faces (SVG decks and drawn ones)."""
    out = []
    for name in _svg_files():
        try:
            if all(c in _id_map(name) for c in CARD_CODES):
                out.append(name)
        except OSError:
            continue
    return sorted(out) + _drawn_decks()


def training_decks(generated: int = 0) -> list[str]:
    """The designs a model may train on: every listed deck but those kept
    out of training (``NOT_TRAINED_DECKS``), plus ``generated`` seeded designs (``designs.training_designs``:
    never the validation designs gen-60 .. gen-99)."""
    from .designs import training_designs

    return [d for d in list_decks() if d not in NOT_TRAINED_DECKS] + training_designs(generated)


def _rsvg(svg: Path, out: Path, zoom: float, elem: str | None = None) -> np.ndarray | None:
    import cv2

    cmd = ["rsvg-convert", "-z", f"{zoom:.4f}", "-o", str(out)]
    if elem:
        cmd += ["-i", elem]
    r = subprocess.run(cmd + [str(svg)], capture_output=True, timeout=120)
    if r.returncode != 0 or not out.exists():
        return None
    return cv2.imread(str(out), cv2.IMREAD_UNCHANGED)


def _flatten(rgba: np.ndarray) -> np.ndarray:
    """Composite an RGBA render on white (card corners are transparent)."""
    if rgba.ndim == 2:
        import cv2

        return cv2.cvtColor(rgba, cv2.COLOR_GRAY2BGR)
    if rgba.shape[2] == 3:
        return rgba
    a = rgba[..., 3:4].astype(np.float32) / 255.0
    return (rgba[..., :3] * a + 255 * (1 - a)).astype(np.uint8)


def _card_blob(rgba: np.ndarray) -> np.ndarray | None:
    """The card inside an element render: the largest opaque blob's box.

    ``rsvg-convert -i`` crops to the element's extent, which for a few decks
    includes stray ink far from the card; the card is the biggest blob.
    """
    import cv2

    if rgba is None:
        return None
    if rgba.ndim == 2 or rgba.shape[2] == 3:
        return rgba
    m = (rgba[..., 3] > 8).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = stats[i, :4]
    if w < 8 or h < 8:
        return None
    return rgba[y:y + h, x:x + w]


def _render_svg_cards(deck: str, ddir: Path, codes: list[str]) -> None:
    """Render faces of one SVG deck into ``ddir`` (250x350 PNG files).

    ``rsvg-convert -i`` draws one element cropped to its extent; the zoom is
    chosen from one probe render (the ace of spades) so a card comes out
    ~420 px tall, then downscaled (area interpolation keeps thin strokes).
    A code the deck lacks (many have no joker) is simply not written.
    """
    import cv2

    svg = _svg_files()[deck]
    idm = _id_map(deck)
    with tempfile.TemporaryDirectory() as td:
        plain = Path(td) / "deck.svg"
        plain.write_text(_svg_text(svg), encoding="utf-8")
        zf = ddir / ".zoom"
        if zf.exists():
            zoom = float(zf.read_text())
        else:
            probe = _card_blob(_rsvg(plain, Path(td) / "probe.png", 1.0, idm.get("SA")))
            if probe is None:
                raise RuntimeError(f"deck {deck}: its cards could not be rendered")
            zoom = 420.0 / max(probe.shape[:2])
            zf.write_text(f"{zoom:.6f}")
        for code in codes:
            eid = idm.get(code)
            if eid is None:
                continue
            crop = _card_blob(_rsvg(plain, Path(td) / f"{code}.png", zoom, eid))
            if crop is None:
                continue
            face = _flatten(crop)
            if face.shape[1] > face.shape[0] * 1.1:  # landscape element: turn upright
                face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
            face = cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(ddir / f"{code}.png"), face)
            (ddir / f"{code}.ok").write_text("")
        for code in codes:
            (ddir / f"{code}.ok").write_text("")  # tried: a missing PNG means the deck lacks it


def _deck_dir(deck: str) -> Path:
    key = hashlib.sha1(str(_svg_files().get(deck, deck)).encode()).hexdigest()[:8]
    d = cache_dir() / f"{deck}-{key}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def render_face(card: str, deck: str, height: int = FACE_H) -> np.ndarray:
    """Upright face of ``card`` in ``deck`` as a BGR image ``height`` tall.

    ``card`` is a canonical code (``SA``, ``HT``, ``JK``) or ``back``.  A deck
    without a joker or back falls back to a drawn one, so every code renders.
    """
    import cv2

    from .designs import draw_generated, generated_index, is_generated

    if card not in ALL_CODES:
        raise ValueError(f"unknown card code {card!r}")
    if deck.startswith("drawn-"):
        face = draw_face(card, deck[len("drawn-"):])
    elif is_generated(deck):
        face = draw_generated(card, generated_index(deck))
    else:
        if deck not in _svg_files():
            raise ValueError(f"unknown deck {deck!r}; see list_decks()")
        ddir = _deck_dir(deck)
        if not (ddir / f"{card}.ok").exists():
            _render_svg_cards(deck, ddir, [card])
        p = ddir / f"{card}.png"
        face = cv2.imread(str(p), cv2.IMREAD_COLOR) if p.exists() else None
        if face is None and p.exists():  # cut short (another process writing it): render again
            _render_svg_cards(deck, ddir, [card])
            face = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if face is None:
            face = draw_face(card, "sans")
    if height != FACE_H:
        w = int(round(height * FACE_W / FACE_H))
        face = cv2.resize(face, (w, height), interpolation=cv2.INTER_AREA)
    return face


def deck_faces(deck: str, codes: list[str] | None = None) -> dict[str, np.ndarray]:
    """All faces of one deck (cached), code -> 250x350 BGR image."""
    from .designs import is_generated

    codes = codes or ALL_CODES
    if not deck.startswith("drawn-") and not is_generated(deck):
        ddir = _deck_dir(deck)
        todo = [c for c in codes if not (ddir / f"{c}.ok").exists()]
        if todo:
            _render_svg_cards(deck, ddir, todo)
    return {c: render_face(c, deck) for c in codes}


# --------------------------------------------------------------------------
# Decks drawn here: fonts x index sizes x pip layouts.

_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
# style -> (font file, index height as a fraction of the card, bold suit, four-colour)
DRAWN_STYLES: dict[str, tuple[str, float, bool, bool]] = {
    "sans": ("DejaVuSans.ttf", 0.085, False, False),
    "sans-bold": ("DejaVuSans-Bold.ttf", 0.10, True, False),
    "serif": ("DejaVuSerif.ttf", 0.09, False, False),
    "serif-bold": ("DejaVuSerif-Bold.ttf", 0.095, True, True),
    "mono": ("DejaVuSansMono-Bold.ttf", 0.08, False, False),
    "condensed": ("DejaVuSansCondensed-Bold.ttf", 0.11, True, False),
    "hershey": ("", 0.09, False, True),
}
SUIT_GLYPH = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_RANK_TEXT = {"T": "10"}
# Pip positions (x, y) in card fractions for the number cards.
_PIPS: dict[str, list[tuple[float, float]]] = {
    "A": [(0.5, 0.5)],
    "2": [(0.5, 0.22), (0.5, 0.78)],
    "3": [(0.5, 0.22), (0.5, 0.5), (0.5, 0.78)],
    "4": [(0.33, 0.22), (0.67, 0.22), (0.33, 0.78), (0.67, 0.78)],
    "5": [(0.33, 0.22), (0.67, 0.22), (0.5, 0.5), (0.33, 0.78), (0.67, 0.78)],
    "6": [(0.33, 0.22), (0.67, 0.22), (0.33, 0.5), (0.67, 0.5), (0.33, 0.78), (0.67, 0.78)],
}
_PIPS["7"] = _PIPS["6"] + [(0.5, 0.36)]
_PIPS["8"] = _PIPS["7"] + [(0.5, 0.64)]
_PIPS["9"] = [(x, y) for x in (0.33, 0.67) for y in (0.22, 0.41, 0.59, 0.78)] + [(0.5, 0.5)]
_PIPS["T"] = [(x, y) for x in (0.33, 0.67) for y in (0.22, 0.41, 0.59, 0.78)] + [(0.5, 0.31), (0.5, 0.69)]


@functools.lru_cache(maxsize=256)
def truetype(path: Path | None, size: int):
    """A PIL font from ``path`` at ``size`` (cached), or PIL's default font
    when the file is missing or unreadable."""
    from PIL import ImageFont

    try:
        return ImageFont.truetype(str(path), size) if path else ImageFont.load_default()
    except OSError:
        return ImageFont.load_default()


def _font(name: str, size: int):
    return truetype(_FONT_DIR / (name or "DejaVuSans.ttf"), size)


def _suit_colour(suit: str, four: bool) -> tuple[int, int, int]:
    """RGB ink of a suit; four-colour packs print diamonds blue-ish and clubs green."""
    if four:
        return {"S": (0, 0, 0), "H": (200, 0, 0), "D": (0, 70, 200), "C": (0, 120, 0)}[suit]
    return (200, 10, 20) if suit in "HD" else (10, 10, 10)


def draw_face(card: str, style: str = "sans") -> np.ndarray:
    """Draw a 250x350 face in one of ``DRAWN_STYLES`` (BGR)."""
    import cv2
    from PIL import Image, ImageDraw

    font_file, idx_frac, bold, four = DRAWN_STYLES.get(style, DRAWN_STYLES["sans"])
    seed = int(hashlib.sha1(style.encode()).hexdigest()[:6], 16)
    img = Image.new("RGB", (FACE_W, FACE_H), (252, 252, 248))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((1, 1, FACE_W - 2, FACE_H - 2), radius=14, outline=(90, 90, 90), width=2)
    if card == "back":
        rng = np.random.default_rng(seed)
        col = tuple(int(c) for c in rng.integers(20, 180, 3))
        d.rounded_rectangle((12, 12, FACE_W - 13, FACE_H - 13), radius=8, fill=col)
        step = 12 + seed % 8
        for k in range(-FACE_H, FACE_W + FACE_H, step):
            d.line((k, 12, k + FACE_H, FACE_H), fill=(240, 240, 240), width=2)
            d.line((k + FACE_H, 12, k, FACE_H), fill=(240, 240, 240), width=1)
        a = np.array(img)[:, :, ::-1].copy()
        cv2.rectangle(a, (0, 0), (FACE_W - 1, 11), (252, 252, 248), -1)
        return a
    if card == "JK":
        rank_txt, suit, ink = "J", "S", (10, 10, 10)
    else:
        suit, r = card[0], card[1]
        rank_txt, ink = _RANK_TEXT.get(r, r), _suit_colour(card[0], four)
    ih = int(FACE_H * idx_frac)
    fnt = _font(font_file, ih)
    sfnt = _font("DejaVuSans.ttf", int(ih * (0.95 if bold else 0.8)))
    half = Image.new("RGB", (FACE_W, FACE_H), (252, 252, 248))
    hd = ImageDraw.Draw(half)
    # corner index: rank above suit, both centred on one column
    cx = int(FACE_W * 0.1)
    if card == "JK":
        for i, ch in enumerate("JOKER"):
            hd.text((cx, 10 + i * ih * 0.8), ch, font=_font(font_file, int(ih * 0.75)), fill=ink, anchor="mt")
    else:
        if style == "hershey":
            arr = np.array(half)
            scale = ih / 30.0
            (tw, th), _ = cv2.getTextSize(rank_txt, cv2.FONT_HERSHEY_TRIPLEX, scale, 2)
            cv2.putText(arr, rank_txt, (max(2, cx - tw // 2), 10 + th), cv2.FONT_HERSHEY_TRIPLEX, scale,
                        ink, 2, cv2.LINE_AA)
            half = Image.fromarray(arr)
            hd = ImageDraw.Draw(half)
        else:
            hd.text((cx, 10), rank_txt, font=fnt, fill=ink, anchor="mt")
        hd.text((cx, 12 + ih * 1.05), SUIT_GLYPH[suit], font=sfnt, fill=ink, anchor="mt")
    top = np.array(half)
    # the index is printed twice, rotated 180 degrees in the opposite corner
    mask = (top.astype(int).sum(axis=2) < 700)
    base = np.array(img)
    base[mask] = top[mask]
    rot = np.rot90(top, 2)
    rmask = np.rot90(mask, 2)
    base[rmask] = rot[rmask]
    img = Image.fromarray(base)
    d = ImageDraw.Draw(img)
    if card == "JK":
        d.text((FACE_W // 2, FACE_H // 2), "\u2605", font=_font("DejaVuSans.ttf", 120), fill=(200, 30, 30), anchor="mm")
    elif card[1] in _PIPS:
        ps = int(FACE_H * (0.28 if card[1] == "A" else 0.14))
        pf = _font("DejaVuSans.ttf", ps)
        for x, y in _PIPS[card[1]]:
            d.text((FACE_W * (0.5 + (x - 0.5) * 1.05), FACE_H * y), SUIT_GLYPH[suit], font=pf, fill=ink, anchor="mm")
    else:  # court card: a framed picture area with a large letter
        d.rectangle((FACE_W * 0.22, FACE_H * 0.16, FACE_W * 0.78, FACE_H * 0.84), outline=ink, width=2)
        d.text((FACE_W // 2, FACE_H * 0.42), rank_txt, font=_font(font_file or "DejaVuSans.ttf", 90), fill=ink, anchor="mm")
        d.text((FACE_W // 2, FACE_H * 0.66), SUIT_GLYPH[suit], font=_font("DejaVuSans.ttf", 60), fill=ink, anchor="mm")
    return np.array(img)[:, :, ::-1].copy()
