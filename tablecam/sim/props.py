"""Things on a card table besides the cards: chips, a glass, a phone, a score pad.

Objects make the "one table colour" assumption fail in other ways than the
cloth does: a round white-edged chip stack is bright and card-sized, a score
pad is a white rectangle, a phone is a dark glossy slab with a reflection.
They are painted once onto the static table plane (they do not move), away
from the places where cards come to rest, so they are distractors, never
covers.  (Bidding-box cards, which ``--auction`` lays and picks up, are
drawn by :mod:`tablecam.sim.bidding_box`.)
"""

from __future__ import annotations

import math

import numpy as np

CHIP_COLOURS = ((235, 235, 235), (40, 40, 190), (150, 70, 20), (40, 120, 30), (30, 30, 30), (160, 50, 130))


def _chip(img: np.ndarray, c: tuple[float, float], r: float, col: tuple[int, int, int], ang: float) -> None:
    import cv2

    x, y = int(c[0]), int(c[1])
    ri = max(2, int(r))
    cv2.circle(img, (x, y), ri, col, -1, cv2.LINE_AA)
    edge = (245, 245, 245) if sum(col) < 600 else (40, 40, 180)
    for k in range(8):   # the edge spots of a casino chip
        a = ang + k * math.pi / 4
        cv2.ellipse(img, (int(x + math.cos(a) * r * 0.85), int(y + math.sin(a) * r * 0.85)),
                    (max(1, int(r * 0.16)), max(1, int(r * 0.09))), math.degrees(a) + 90, 0, 360, edge, -1, cv2.LINE_AA)
    cv2.circle(img, (x, y), max(1, int(r * 0.62)), edge, max(1, int(r * 0.05)), cv2.LINE_AA)


def _shadow_disc(img: np.ndarray, c: tuple[float, float], r: float, off: float) -> None:
    import cv2

    x, y = c
    R = int(r * 1.6 + off) + 2
    x0, y0 = max(0, int(x) - R), max(0, int(y) - R)
    x1, y1 = min(img.shape[1], int(x) + R + int(off)), min(img.shape[0], int(y) + R + int(off))
    if x1 <= x0 or y1 <= y0:
        return
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.circle(m, (int(x - x0 + off), int(y - y0 + off)), max(1, int(r)), 0.45, -1)
    m = cv2.GaussianBlur(m, (0, 0), max(0.5, r * 0.15))
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1 - m[..., None])).astype(np.uint8)


def chips(img: np.ndarray, at: tuple[float, float], ppm: float, rng: np.random.Generator, n: int = 6) -> None:
    """A few chip stacks around ``at`` (plane px); seen from above a stack is its top chip."""
    r = 20 * ppm
    for _ in range(n):
        c = (at[0] + rng.uniform(-45, 45) * ppm, at[1] + rng.uniform(-45, 45) * ppm)
        _shadow_disc(img, c, r, 4 * ppm * rng.uniform(1, 3))
        _chip(img, c, r, CHIP_COLOURS[int(rng.integers(len(CHIP_COLOURS)))], rng.uniform(0, math.pi))


def glass(img: np.ndarray, at: tuple[float, float], ppm: float) -> None:
    """A drinking glass from above: a dark ring of rim, the table seen through, a highlight."""
    import cv2

    x, y = int(at[0]), int(at[1])
    r = int(38 * ppm)
    _shadow_disc(img, at, r, 10 * ppm)
    inner = img[max(0, y - r):y + r, max(0, x - r):x + r]
    inner[:] = cv2.GaussianBlur(inner, (0, 0), 2 * ppm).astype(np.uint8)
    cv2.circle(img, (x, y), r, (200, 205, 205), max(1, int(3 * ppm)), cv2.LINE_AA)
    cv2.circle(img, (x, y), int(r * 0.8), (150, 160, 160), max(1, int(1.5 * ppm)), cv2.LINE_AA)
    cv2.ellipse(img, (x - r // 3, y - r // 3), (max(1, r // 3), max(1, r // 9)), -45, 0, 360, (250, 250, 250), -1,
                cv2.LINE_AA)


def phone(img: np.ndarray, at: tuple[float, float], ppm: float, ang: float) -> None:
    """A phone lying face up: a black glossy slab with a reflection streak."""
    import cv2

    w, h = 72 * ppm, 150 * ppm
    box = cv2.boxPoints(((at[0], at[1]), (w, h), ang))
    sh = box + np.array([6, 6]) * ppm
    cv2.fillPoly(img, [sh.astype(np.int32)], (15, 15, 15), cv2.LINE_AA)
    cv2.fillPoly(img, [box.astype(np.int32)], (28, 26, 30), cv2.LINE_AA)
    inner = cv2.boxPoints(((at[0], at[1]), (w * 0.9, h * 0.93), ang))
    cv2.fillPoly(img, [inner.astype(np.int32)], (12, 12, 14), cv2.LINE_AA)
    a = math.radians(ang)
    cv2.line(img, (int(at[0] - 25 * ppm * math.cos(a)), int(at[1] - 40 * ppm)),
             (int(at[0] + 20 * ppm), int(at[1] + 30 * ppm)), (70, 70, 75), max(1, int(8 * ppm)), cv2.LINE_AA)


def score_pad(img: np.ndarray, at: tuple[float, float], ppm: float) -> None:
    """A bridge score card: white paper with printed rules and a pen beside it."""
    import cv2

    w, h = 105 * ppm, 148 * ppm
    pad = np.full((int(h), int(w), 3), 238, np.uint8)
    for k in range(1, 14):
        cv2.line(pad, (int(6 * ppm), int(k * h / 14)), (int(w - 6 * ppm), int(k * h / 14)), (150, 120, 110), 1)
    cv2.line(pad, (int(w / 2), int(h / 14)), (int(w / 2), int(h - 4)), (150, 120, 110), 1)
    cv2.putText(pad, "WE   THEY", (int(8 * ppm), int(h / 14 - 2 * ppm)), cv2.FONT_HERSHEY_SIMPLEX, 0.22 * ppm,
                (60, 60, 60), 1, cv2.LINE_AA)
    x0, y0 = int(at[0] - w / 2), int(at[1] - h / 2)
    x0c, y0c = max(0, x0), max(0, y0)
    x1c, y1c = min(img.shape[1], x0 + pad.shape[1]), min(img.shape[0], y0 + pad.shape[0])
    if x1c > x0c and y1c > y0c:
        img[y0c:y1c, x0c:x1c] = pad[y0c - y0:y1c - y0, x0c - x0:x1c - x0]
    p0 = (int(at[0] + w * 0.65), int(at[1] - h * 0.3))
    p1 = (int(p0[0] + 20 * ppm), int(p0[1] + 130 * ppm))
    cv2.line(img, (p0[0] + 3, p0[1] + 3), (p1[0] + 3, p1[1] + 3), (20, 20, 20), max(1, int(8 * ppm)), cv2.LINE_AA)
    cv2.line(img, p0, p1, (150, 60, 20), max(1, int(8 * ppm)), cv2.LINE_AA)


def place_props(img: np.ndarray, kind: str, ppm: float, origin_mm: tuple[float, float],
                area_mm: tuple[float, float], rng: np.random.Generator) -> list[str]:
    """Paint the props of ``kind`` (``none``, ``chips``, ``mixed``) where no card comes to rest.

    Chips go in the corners of the playing area between the play zones and
    outside it; the glass, phone and score pad on the table's rim, outside
    the area.  Returns what was painted (for the meta file).
    """
    if kind == "none":
        return []
    ox, oy = origin_mm
    W, H = area_mm
    P = lambda x, y: ((ox + x) * ppm, (oy + y) * ppm)  # noqa: E731
    done = []
    corners = [(118, 118), (W - 118, 118), (W - 118, H - 118), (118, H - 118)]
    rng.shuffle(corners)
    for c in corners[: 2 if kind == "mixed" else 4]:
        chips(img, P(*c), ppm, rng, n=int(rng.integers(2, 5)))
        done.append(f"chips@{c[0]:.0f},{c[1]:.0f}")
    if kind == "mixed":
        glass(img, P(W + 95, rng.uniform(80, 200)), ppm)
        phone(img, P(-95, rng.uniform(380, 520)), ppm, rng.uniform(-20, 20))
        score_pad(img, P(rng.uniform(420, 520), H + 95), ppm)
        done += ["glass", "phone", "score pad"]
    return done
