"""People at the table, as the camera sees them from above: arms, hands, held cards.

What a card finder must not mistake for a card at rest: a sleeve reaching
over the table, the back of a hand with its fingers on a card, a player's
hand of cards held in a fan at the table's edge, a dealer holding the pack.
Everything is drawn on the table plane (plane pixels, ``ppm`` per mm) with a
soft shadow cast away from the lamp, skin and sleeve colours varying by
player.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SKINS = ((120, 160, 215), (100, 140, 200), (80, 115, 170), (55, 80, 125), (140, 178, 228))
"""BGR skin tones, light to dark, one per player."""
SLEEVES = ((70, 45, 30), (215, 215, 210), (30, 30, 32), (40, 40, 150), (110, 110, 105), (60, 90, 50))
"""BGR sleeve colours: navy, white, black, red, grey, green."""
SKIN = (120, 160, 215)
"""BGR of the classic look's palm and fingers (one colour for every player)."""
SKIN_DARK = (95, 130, 185)
"""BGR of the classic look's arm."""


@dataclass(frozen=True)
class Look:
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    bare_mm: float        # forearm skin visible between sleeve and wrist


def looks(rng: np.random.Generator) -> list[Look]:
    """Four players' looks (skin, sleeve, how much forearm shows)."""
    out = []
    for _ in range(4):
        out.append(Look(SKINS[int(rng.integers(len(SKINS)))], SLEEVES[int(rng.integers(len(SLEEVES)))],
                        float(rng.uniform(0, 120))))
    return out


def _shade(c: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(v * f, 0, 255)) for v in c)  # type: ignore[return-value]


def _shadow(plane: np.ndarray, polys: list[np.ndarray], circles: list[tuple[float, float, float]],
            off: tuple[float, float], blur_px: float, depth: int = 95) -> None:
    """Darken the plane under an offset, blurred silhouette (computed at quarter size, in its box only)."""
    import cv2

    pts = [p for p in polys] + [np.array([[x - r, y - r], [x + r, y + r]]) for x, y, r in circles]
    allp = np.concatenate(pts, 0) + np.array(off)
    pad = int(blur_px * 3) + 4
    x0, y0 = (allp.min(0) - pad).astype(int)
    x1, y1 = (allp.max(0) + pad).astype(int)
    H, W = plane.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    s = 4
    sw, sh = (x1 - x0) // s + 1, (y1 - y0) // s + 1
    m = np.zeros((sh, sw), np.uint8)
    o = np.array([x0 - off[0], y0 - off[1]])
    for p in polys:
        cv2.fillPoly(m, [((p - o) / s).astype(np.int32)], depth)
    for x, y, r in circles:
        cv2.circle(m, (int((x - o[0]) / s), int((y - o[1]) / s)), max(1, int(r / s)), depth, -1)
    m = cv2.GaussianBlur(m, (0, 0), max(0.5, blur_px / s))
    m = cv2.resize(m, (sw * s, sh * s))[: y1 - y0, : x1 - x0]
    roi = plane[y0:y1, x0:x1]
    roi[:] = cv2.multiply(roi, cv2.merge([255 - m] * 3), scale=1 / 255.0)


def draw_arm(plane: np.ndarray, base: tuple[float, float], tip: tuple[float, float], ppm: float, look: Look,
             spread: float = 0.0, shadow: bool = True) -> None:
    """An arm from ``base`` (off the table) to a hand whose fingertips are at ``tip`` (plane px).

    ``spread``: 0 fingers together (carrying a card), 1 open (a hand passing).
    """
    import cv2

    bx, by = base
    tx, ty = tip
    ang = math.atan2(ty - by, tx - bx)
    ux, uy = math.cos(ang), math.sin(ang)
    vx, vy = -uy, ux
    mm = ppm
    wrist = (tx - ux * 140 * mm, ty - uy * 140 * mm)
    palm_c = (tx - ux * 100 * mm, ty - uy * 100 * mm)
    length = math.hypot(wrist[0] - bx, wrist[1] - by)

    def quad(p0, p1, w0, w1):  # noqa: ANN001, ANN202
        return np.array([[p0[0] + vx * w0, p0[1] + vy * w0], [p1[0] + vx * w1, p1[1] + vy * w1],
                         [p1[0] - vx * w1, p1[1] - vy * w1], [p0[0] - vx * w0, p0[1] - vy * w0]])

    cuff_at = max(0.0, length - look.bare_mm * mm) / max(length, 1e-6)
    cuff = (bx + (wrist[0] - bx) * cuff_at, by + (wrist[1] - by) * cuff_at)
    sleeve = quad((bx, by), cuff, 48 * mm, 40 * mm)
    forearm = quad(cuff, wrist, 33 * mm, 27 * mm)
    fingers = []
    for off, ln in ((-1.5, 62), (-0.5, 72), (0.5, 70), (1.5, 56)):
        root = (palm_c[0] + ux * 35 * mm + vx * off * 16 * mm, palm_c[1] + uy * 35 * mm + vy * off * 16 * mm)
        fa = ang + off * spread * 0.18
        reach = ln * mm * (0.55 + 0.45 * (1 - spread * 0.2))
        end = (root[0] + math.cos(fa) * reach, root[1] + math.sin(fa) * reach)
        fingers.append((root, end))
    side = 1 if (hash((round(bx), round(by))) & 1) else -1
    thumb_root = (palm_c[0] + vx * side * 38 * mm - ux * 5 * mm, palm_c[1] + vy * side * 38 * mm - uy * 5 * mm)
    ta = ang + side * (0.9 - 0.4 * (1 - spread))
    thumb_end = (thumb_root[0] + math.cos(ta) * 48 * mm, thumb_root[1] + math.sin(ta) * 48 * mm)
    if shadow:
        off = (16 * mm, 12 * mm)
        polys = [sleeve, forearm, quad(wrist, (tx, ty), 40 * mm, 34 * mm)]
        _shadow(plane, polys, [(palm_c[0], palm_c[1], 45 * mm)], off, 9 * mm)
    fill = lambda poly, col: cv2.fillPoly(plane, [poly.astype(np.int32)], col, cv2.LINE_AA)  # noqa: E731
    fill(sleeve, _shade(look.sleeve, 0.8))
    fill(quad((bx, by), cuff, 40 * mm, 33 * mm), look.sleeve)
    skin, dark = look.skin, _shade(look.skin, 0.78)
    fill(forearm, dark)
    fill(quad(cuff, wrist, 26 * mm, 21 * mm), skin)
    fw = max(1, int(17 * mm))
    for root, end in fingers:
        cv2.line(plane, (int(root[0]), int(root[1])), (int(end[0]), int(end[1])), dark, fw + max(1, int(3 * mm)), cv2.LINE_AA)
    cv2.line(plane, (int(thumb_root[0]), int(thumb_root[1])), (int(thumb_end[0]), int(thumb_end[1])), dark,
             max(1, int(22 * mm)), cv2.LINE_AA)
    cv2.ellipse(plane, (int(palm_c[0]), int(palm_c[1])), (int(46 * mm), int(43 * mm)), math.degrees(ang), 0, 360,
                dark, -1, cv2.LINE_AA)
    cv2.ellipse(plane, (int(palm_c[0]), int(palm_c[1])), (int(42 * mm), int(39 * mm)), math.degrees(ang), 0, 360,
                skin, -1, cv2.LINE_AA)
    cv2.line(plane, (int(thumb_root[0]), int(thumb_root[1])), (int(thumb_end[0]), int(thumb_end[1])), skin,
             max(1, int(18 * mm)), cv2.LINE_AA)
    for root, end in fingers:
        cv2.line(plane, (int(root[0]), int(root[1])), (int(end[0]), int(end[1])), skin, fw, cv2.LINE_AA)
    # the back of the hand catches the lamp along its middle
    cv2.ellipse(plane, (int(palm_c[0] - vx * 8 * mm), int(palm_c[1] - vy * 8 * mm)), (int(26 * mm), int(18 * mm)),
                math.degrees(ang), 0, 360, _shade(skin, 1.06), -1, cv2.LINE_AA)


def draw_fan(plane: np.ndarray, centre: tuple[float, float], facing_deg: float, n: int, back: np.ndarray,
             mask: np.ndarray, ppm: float, look: Look, wobble: float = 0.0) -> None:
    """A player's hand of ``n`` cards held in a fan (backs up), two hands holding it, at ``centre``.

    ``facing_deg``: the direction the player looks (towards the table's
    centre); the fan opens across it.
    """
    import cv2

    if n <= 0:
        return
    ch, cw = back.shape[:2]
    spread = min(70.0, 6.0 * n)
    base_ang = facing_deg + wobble
    fx, fy = centre
    for k in range(n):
        a = base_ang - spread / 2 + (spread * k / max(1, n - 1) if n > 1 else 0)
        # the cards pivot around a point near their lower corner, held by the thumb;
        # cv2 turns counter-clockwise on screen, and the card's top (-y, -90 deg) must point along a
        blit(plane, back, mask, (fx, fy), (cw / 2, ch * 0.85), -(a + 90))
    # the hands holding it: thumbs over the pivot, the arms back to the player
    d = math.radians(facing_deg)
    bx, by = fx - math.cos(d) * 330 * ppm, fy - math.sin(d) * 330 * ppm
    for s in (-1, 1):
        px, py = -math.sin(d) * s * 45 * ppm, math.cos(d) * s * 45 * ppm
        draw_arm(plane, (bx + px * 2.2, by + py * 2.2), (fx + px * 0.3 + math.cos(d) * 10 * ppm,
                                                         fy + py * 0.3 + math.sin(d) * 10 * ppm), ppm, look,
                 spread=0.1, shadow=False)


def draw_pack(plane: np.ndarray, centre: tuple[float, float], ang_deg: float, back: np.ndarray, mask: np.ndarray,
              cards: int) -> None:
    """A squared pack of ``cards`` backs (its side edges drawn as a thin pale band)."""
    import cv2

    ch, cw = back.shape[:2]
    depth = max(1, int(cards * 0.3 * cw / 63))
    fx, fy = centre
    for k in range(depth, -1, -max(1, depth // 3)):
        blit(plane, back if k == 0 else np.full_like(back, 215), mask, (fx + k * 0.6, fy + k), (cw / 2, ch / 2),
             ang_deg)


def blit(plane: np.ndarray, img: np.ndarray, mask: np.ndarray, at: tuple[float, float], pivot: tuple[float, float],
         ang_deg: float) -> None:
    """Draw ``img`` (alpha ``mask``) turned ``ang_deg`` about ``pivot`` (image px), the pivot landing at ``at``."""
    import cv2

    ch, cw = img.shape[:2]
    fx, fy = at
    M = cv2.getRotationMatrix2D(pivot, ang_deg, 1.0)
    R = int(math.hypot(cw, ch)) + 4
    x0, y0 = max(0, int(fx) - R), max(0, int(fy) - R)
    x1, y1 = min(plane.shape[1], int(fx) + R), min(plane.shape[0], int(fy) + R)
    if x1 <= x0 or y1 <= y0:
        return
    M[0, 2] += fx - pivot[0] - x0
    M[1, 2] += fy - pivot[1] - y0
    roi = plane[y0:y1, x0:x1]
    al = cv2.warpAffine(mask, M, (x1 - x0, y1 - y0)).astype(np.float32)[..., None] / 255.0
    im = cv2.warpAffine(img, M, (x1 - x0, y1 - y0))
    roi[:] = (roi * (1 - al) + im * al).astype(np.uint8)


def draw_classic_hand(plane: np.ndarray, base: tuple[float, float], tip: tuple[float, float], ppm: float) -> None:
    """The classic look's hand: an arm from ``base`` to the fingertips at ``tip`` (plane px), a palm and
    four fingers in one skin colour over a soft shadow - what the camera pipeline's own tests were tuned on."""
    import cv2

    p = ppm
    bx, by = base
    hx, hy = tip
    ang = math.atan2(hy - by, hx - bx)
    ux, uy = math.cos(ang), math.sin(ang)
    # shadow first, offset, then arm, palm, fingers
    for off, col in ((int(9 * p), None), (0, SKIN)):
        layer_col = (0, 0, 0) if col is None else col
        pts_arm = (int(bx + off), int(by + off)), (int(hx - ux * 40 * p + off), int(hy - uy * 40 * p + off))
        if col is None:
            # a soft shadow, computed at quarter resolution over the arm's bounding box only
            xs = [pts_arm[0][0], pts_arm[1][0], int(hx + off)]
            ys = [pts_arm[0][1], pts_arm[1][1], int(hy + off)]
            pad = int(90 * p)
            x0, x1 = max(0, min(xs) - pad), min(plane.shape[1], max(xs) + pad)
            y0, y1 = max(0, min(ys) - pad), min(plane.shape[0], max(ys) + pad)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            sw, sh_ = (x1 - x0) // 4 + 1, (y1 - y0) // 4 + 1
            shadow = np.zeros((sh_, sw), np.uint8)
            q = lambda pt: ((pt[0] - x0) // 4, (pt[1] - y0) // 4)  # noqa: E731
            cv2.line(shadow, q(pts_arm[0]), q(pts_arm[1]), 90, max(1, int(70 * p) // 4))
            cv2.ellipse(shadow, q((int(hx - ux * 20 * p + off), int(hy - uy * 20 * p + off))),
                        (int(48 * p) // 4, int(40 * p) // 4), math.degrees(ang), 0, 360, 90, -1)
            shadow = cv2.GaussianBlur(shadow, (0, 0), 2)
            shadow = cv2.resize(shadow, (sw * 4, sh_ * 4))[: y1 - y0, : x1 - x0]
            roi = plane[y0:y1, x0:x1]
            inv = cv2.merge([255 - shadow] * 3)
            roi[:] = cv2.multiply(roi, inv, scale=1 / 255.0)
            continue
        cv2.line(plane, *pts_arm, SKIN_DARK, int(70 * p), cv2.LINE_AA)
        cv2.ellipse(plane, (int(hx - ux * 20 * p), int(hy - uy * 20 * p)), (int(48 * p), int(40 * p)),
                    math.degrees(ang), 0, 360, layer_col, -1, cv2.LINE_AA)
        for k in (-1.5, -0.5, 0.5, 1.5):
            fx = hx + ux * 8 * p - uy * k * 17 * p
            fy = hy + uy * 8 * p + ux * k * 17 * p
            cv2.line(plane, (int(hx - ux * 10 * p - uy * k * 15 * p), int(hy - uy * 10 * p + ux * k * 15 * p)),
                     (int(fx), int(fy)), layer_col, int(13 * p), cv2.LINE_AA)
