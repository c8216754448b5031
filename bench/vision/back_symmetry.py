"""Would "a card's back is the same turned end over end" tell backs from
other pictures?  The measurement behind docs/benchmarks.md's answer (no).

A still's ``back`` is told by the whole-card back check alone, and on the
edje tuning photos it calls three pictures backs: an oil-change flyer
(``IMG_2494``), a picture postcard (``IMG_2528``) and another game's card
(``IMG_2533``).  Printers make most backs two-way, so that a card's
orientation tells nothing, and none of those three pictures is.  This
bench measures the half-turn likeness (:func:`half_turn_likeness`: the
normalised correlation of a card's greyscale picture with itself turned
180 degrees, the best over a few pixels of shift, the light's linear
gradient taken out) of

* the three false backs, as ``detect()`` rectifies them;
* every back of the 46 Debian SVG decks (``gnome-cards-data``,
  ``kdegames-card-data-kf5``; 60 backs, some decks draw several), each on
  rendered tables beside a face card, seen by a camera (1.5-5 px a mm,
  turned any way, tilted up to 53 degrees, blur, sharpening, light and
  white balance, noise, 4:2:0 colour, JPEG; now and then a finger over
  it), as ``detect()`` reports it - through its own quad, not the true one.

It prints, for thresholds at the false backs' likenesses, how many of the
two-way backs' reads and of the one-way backs' reads a rule "drop a back
whose likeness is under the threshold" would drop, per deck, as JSON.

    .venv/bin/python bench/vision/back_symmetry.py [--frames 8] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

SVG_DIRS = (Path("/usr/share/aisleriot/cards"), Path("/usr/share/carddecks"))
BACK_IDS = ("back", "card_back", "back_c1", "back_c2", "back_c3", "back_c4", "back_c5", "back_alternative",
            "cardback", "blue_back", "red_back", "green_back")
# backs that are not the same turned 180 degrees, by eye from their renders (a logo, a photo,
# a picture, a one-sided gradient): the rule could only keep these by chance
ONE_WAY = {
    "dondorf/back", "gnomangelo/back", "ornamental/back", "ornamental/back_alternative",
    "svg-ancient-egyptians/back", "svg-dondorf/back", "svg-future/back", "svg-jolly-royal/back",
    "svg-nicu-ornamental/back", "svg-nicu-ornamental/back_c1", "svg-nicu-white/back", "svg-nicu-white/back_c1",
    "svg-nicu-white/back_c4", "svg-nicu-white/back_c5", "svg-oxygen-white/back", "svg-oxygen/back",
    "svg-penguins/back", "svg-tigullio-international/back", "svg-tigullio-international/blue_back",
    "svg-tigullio-international/green_back", "svg-tigullio-international/red_back", "svg-xskat-german/back",
    "tango/back", "tango/back_alternative", "tango_nuevo/back",
}
FALSE_BACKS = ("IMG_2494", "IMG_2528", "IMG_2533")


def half_turn_likeness(card_bgr: np.ndarray, width: int = 32, shift: int = 3) -> float:
    """How alike a rectified card is to itself turned 180 degrees: the
    normalised correlation of its greyscale picture (``width`` wide, a
    little blurred, the best-fitting plane - a light gradient, which a
    half turn reverses - taken out) with its half turn, the best over
    shifts of up to ``shift`` pixels (a quad a little off the card); 1.0
    for a picture with no structure.

    >>> import cv2
    >>> def letter(c):
    ...     img = np.zeros((140, 100, 3), np.uint8)
    ...     return cv2.putText(img, c, (15, 110), 0, 4, (255, 255, 255), 12)
    >>> half_turn_likeness(letter("S")) > 0.9, half_turn_likeness(letter("F")) < 0.5
    (True, True)
    """
    import cv2

    g = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY) if card_bgr.ndim == 3 else card_bgr
    h = int(round(width * 1.4))
    s = cv2.GaussianBlur(cv2.resize(g, (width, h), interpolation=cv2.INTER_AREA).astype(np.float32), (0, 0), 0.8)
    yy, xx = np.mgrid[0:h, 0:width].astype(np.float32)
    a = np.stack([xx.ravel(), yy.ravel(), np.ones(h * width, np.float32)], 1)
    coef, *_ = np.linalg.lstsq(a, s.ravel(), rcond=None)
    s = s - (a @ coef).reshape(h, width)
    t = np.ascontiguousarray(s[::-1, ::-1][shift:h - shift, shift:width - shift])
    if t.std() < 1.5:
        return 1.0
    return float(cv2.matchTemplate(s, t, cv2.TM_CCOEFF_NORMED).max())


def debian_backs() -> dict[str, np.ndarray]:
    """Every back element of every Debian SVG deck (``deck/id``), 250x350 BGR."""
    import cv2

    from tablecam.training.faces import FACE_H, FACE_W, _card_blob, _flatten, _rsvg, _svg_text

    out = {}
    files = sorted(SVG_DIRS[0].glob("*.svg*")) + sorted(SVG_DIRS[1].rglob("*.svg*"))
    for f in files:
        deck = f.name.split(".")[0] if f.parent == SVG_DIRS[0] else f.parent.name
        text = _svg_text(f)
        ids = set(re.findall(r'\bid="([^"]+)"', text))
        with tempfile.TemporaryDirectory() as td:
            plain = Path(td) / "deck.svg"
            plain.write_text(text, encoding="utf-8")
            for eid in BACK_IDS:
                if eid not in ids:
                    continue
                crop = _card_blob(_rsvg(plain, Path(td) / "back.png", 2.0, eid))
                if crop is None or min(crop.shape[:2]) < 50:  # not drawn, or a colour swatch
                    continue
                face = _flatten(crop)
                if face.shape[1] > face.shape[0] * 1.1:
                    face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
                out[f"{deck}/{eid}"] = cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    return out


def camera_frame(back: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``back`` on a rendered table beside a face card, through a camera:
    the frame and the back's true quad in it."""
    import cv2

    from tablecam.training.camera_look import FACE_PX_PER_MM, camera_faults
    from tablecam.training.faces import render_face
    from tablecam.training.synth import draw_finger, paste_card, table_texture, turn_matrix

    canvas = table_texture(rng, 700, 900).copy()
    face = back if rng.random() < 0.5 else np.rot90(back, 2).copy()
    q = paste_card(canvas, face, 80 + int(rng.integers(0, 60)), 170 + int(rng.integers(0, 100)), rng)
    paste_card(canvas, render_face(["SA", "HK", "D7", "C3"][int(rng.integers(4))], "drawn-sans"),
               520 + int(rng.integers(0, 80)), 100 + int(rng.integers(0, 150)), rng)
    if rng.random() < 0.15:
        draw_finger(canvas, rng, (float(q[0, 0] + rng.uniform(20, 200)), float(q[0, 1] + rng.uniform(20, 300))),
                    rng.uniform(20, 40))
    s = float(np.exp(rng.uniform(np.log(1.5), np.log(5.0)))) / FACE_PX_PER_MM
    small = cv2.resize(canvas, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = (src - np.float32([w / 2, h / 2])) @ turn_matrix(float(rng.uniform(0, 2 * math.pi))).T
    dst = dst * np.float32([1.0, rng.uniform(0.6, 1.0)])
    dst -= dst.min(axis=0) - 1
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    size = (int(math.ceil(dst[:, 0].max())) + 2, int(math.ceil(dst[:, 1].max())) + 2)
    frame = cv2.warpPerspective(small, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return camera_faults(frame, rng, sharpen=rng.random() < 0.5), cv2.perspectiveTransform((q * s)[None], m)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=8, help="camera frames per back")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import cv2

    from tablecam.training.evaluate import REAL_PHOTOS
    from tablecam.vision.detector import load_detector
    from tablecam.vision.localise import quad_iou, warp_card

    det = load_detector()
    false = {}
    for name in FALSE_BACKS:
        img = cv2.imread(str(REAL_PHOTOS / "train" / f"{name}.JPG"))
        backs = [d for d in det.detect(img) if d.card == "back"]
        false[name] = [round(half_turn_likeness(warp_card(img, d.quad)), 3) for d in backs]
    rng = np.random.default_rng(args.seed)
    reads: dict[str, list[float]] = {}
    for key, back in debian_backs().items():
        reads[key] = []
        for _ in range(args.frames):
            frame, true = camera_frame(back, rng)
            for d in det.detect(frame):
                if d.card == "back" and quad_iou(d.quad, true) > 0.5:
                    reads[key].append(half_turn_likeness(warp_card(frame, d.quad)))
        print(f"{key}: {len(reads[key])} back reads", file=sys.stderr, flush=True)
    two = {k: np.array(v) for k, v in reads.items() if k not in ONE_WAY}
    one = {k: np.array(v) for k, v in reads.items() if k in ONE_WAY}
    rows = []
    for t in sorted({v for vs in false.values() for v in vs}):
        t_hi = t + 1e-6  # the rule drops the false back itself
        rows.append({
            "threshold": round(t_hi, 3),
            "false_backs_dropped": sum(v < t_hi for vs in false.values() for v in vs),
            "two_way_reads_dropped": int(sum((v < t_hi).sum() for v in two.values())),
            "two_way_reads": int(sum(len(v) for v in two.values())),
            "one_way_reads_dropped": int(sum((v < t_hi).sum() for v in one.values())),
            "one_way_reads": int(sum(len(v) for v in one.values())),
            "two_way_decks_hit": {k: int((v < t_hi).sum()) for k, v in sorted(two.items()) if (v < t_hi).any()},
        })
    print(json.dumps({"false_backs": false, "backs": len(reads), "one_way_backs": sorted(ONE_WAY & set(reads)),
                      "backs_never_read": sorted(k for k, v in reads.items() if not v), "rules": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
