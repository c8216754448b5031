"""The auction as the camera sees it: bidding-box cards laid in rows, read into ``call`` events.

Each player lays his calls in a row in front of him, in a ``bidding`` zone of
the camera config: every new card nearer the caller, covering all of the card
before it but its top strip (:mod:`tablecam.vision.bidcards`). The card
localiser knows playing cards, not green pass cards, so the watcher finds a
new bid card by what changed in the zone since it was last still: the changed
patch's end nearest the caller is the new card's lower edge (nothing lies
under it but the table), its top strip lies one card length inwards, and the
strip is cut from the full-resolution frame and read.

A read is never forced into the log: unsure reads and calls that could not
follow the calls before them carry ``uncertain: true`` and their candidates,
an unsure read's calls ranked with how likely each is after the calls read
so far (:mod:`tablecam.vision.call_prior`: an opening seven is rare).
The auction is over at the first card played; the watcher then rests until
the board's last trick has been turned.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from ..cards import Seat
from .bidcards import (CALLS, CARD_MM, MIDDLE_FROM_TOP_MM, MIDDLE_CORE_MM, MIDDLE_SCALE, STRIP_MM, STRIP_PX,
                       BidCardReader, BidRead, as_strip, middle_px)
from .call_prior import shipped as call_prior
from .zones import CameraConfig, Zone, most_corners

UP = {Seat.N: (0.0, 1.0), Seat.S: (0.0, -1.0), Seat.E: (-1.0, 0.0), Seat.W: (1.0, 0.0)}
"""For each caller, the direction (table mm) from his seat towards the centre: the top of his bid cards."""

NUDGES_MM = (0.0, -3.0, 3.0)
"""The strip is read where the row model puts it and a little either side; the surest read counts."""

Cut = Callable[[np.ndarray, np.ndarray, tuple[int, int]], np.ndarray]
"""Frame, table quad (mm, TL TR BR BL), output size -> the quad cut upright from the frame."""


def strip_quad(bottom_mid: np.ndarray, up: tuple[float, float]) -> np.ndarray:
    """The top strip (TL, TR, BR, BL in table mm) of a bid card whose lower edge's middle is ``bottom_mid``.

    >>> strip_quad(np.array([300.0, 550.0]), UP[Seat.S]).round(1).tolist()
    [[277.5, 460.0], [322.5, 460.0], [322.5, 482.0], [277.5, 482.0]]
    """
    u = np.asarray(up, np.float64)
    right = np.array([-u[1], u[0]])          # the caller's right, with y pointing away from North
    top_mid = bottom_mid + u * CARD_MM[1]
    half = right * CARD_MM[0] / 2
    tl, tr = top_mid - half, top_mid + half
    return np.array([tl, tr, tr - u * STRIP_MM, tl - u * STRIP_MM])


def middle_quad(strip: np.ndarray) -> np.ndarray:
    """The large print (TL, TR, BR, BL in table mm) of the card whose top strip is ``strip``
    (:func:`strip_quad`): :data:`~tablecam.vision.bidcards.MIDDLE_CORE_MM` of its width, as tall as
    a strip :data:`~tablecam.vision.bidcards.MIDDLE_SCALE` times as large.

    >>> middle_quad(strip_quad(np.array([300.0, 550.0]), UP[Seat.S])).round(1).tolist()
    [[280.0, 488.5], [320.0, 488.5], [320.0, 536.9], [280.0, 536.9]]
    """
    tl, tr, _, bl = np.asarray(strip, np.float64)
    u = (tl - bl) / np.hypot(*(tl - bl))              # towards the card's top
    right = (tr - tl) / np.hypot(*(tr - tl))
    centre = (tl + tr) / 2 - u * MIDDLE_FROM_TOP_MM
    half_up, half = u * STRIP_MM * MIDDLE_SCALE / 2, right * MIDDLE_CORE_MM / 2
    return np.array([centre + half_up - half, centre + half_up + half, centre - half_up + half,
                     centre - half_up - half])


BODY_WIDE = 0.5
"""Share of a bid card's width that a slice of what changed, across the row, must fill to be the
card's body: a tape line or a shadow that changed beside the card is a narrow tail."""

BODY_APART_MM = 2.0
"""Where the body's lower edge lies this much (mm) further in than the lowest change, it is tried too."""


def body_bottom(along: np.ndarray, px_per_mm: float) -> float | None:
    """The lower edge (mm along the row) of the card in a change whose pixels lie ``along`` the
    caller's row (table mm): the lowest one-pixel slice holding at least :data:`BODY_WIDE` of a bid
    card's width. The lowest change may be a thin tail (a tape line under the card whose
    compression changed with it) that puts the card's edge several mm too near the caller. None
    where no slice is that full (a card seen only by its print).

    >>> along = np.concatenate([np.repeat(np.arange(10.0, 40.0), 45), np.repeat(np.arange(2.0, 10.0), 3)])
    >>> body_bottom(along, 1.0)
    10.0
    """
    bins = np.floor(along * px_per_mm).astype(int)
    lo = int(bins.min())
    full = np.nonzero(np.bincount(bins - lo) >= BODY_WIDE * CARD_MM[0] * px_per_mm)[0]
    return float((lo + full[0]) / px_per_mm) if len(full) else None


def auction_over(calls: list[str]) -> bool:
    """Three passes after a bid, or four passes (Law 17E, Law 22).

    >>> auction_over(["1H", "P", "P", "P"]), auction_over(["P", "P", "P"]), auction_over(["P"] * 4)
    (True, False, True)
    """
    if len(calls) >= 4 and all(c == "P" for c in calls[:4]):
        return True
    return any(c not in ("P",) for c in calls) and len(calls) >= 4 and calls[-3:] == ["P", "P", "P"]


def light_gain(a: np.ndarray, b: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """The median ratio of ``a`` to ``b``, channel by channel (over the pixels ``where`` is true, when
    given): the gain that brings ``b`` to the light ``a`` was seen in.

    >>> light_gain(np.full((2, 2, 3), 99, np.int16), np.full((2, 2, 3), 49, np.int16)).tolist()
    [2.0, 2.0, 2.0]
    """
    ratio = (a.astype(np.float32) + 1) / (b.astype(np.float32) + 1)
    if where is not None:
        return np.median(ratio[where], axis=0)
    return np.median(ratio, axis=(0, 1) if ratio.ndim == 3 else None)


def match_light(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b`` scaled, channel by channel, by the median ratio of ``a`` to it: the same place under
    the light ``a`` was seen in. The median ignores what really changed while it covers less than
    half the zone (one new bid card covers about a third of a bidding zone).

    >>> a = np.full((4, 4, 3), 120, np.int16); a[0, 0] = 250
    >>> match_light(a, (a * 0.8).astype(np.int16))[1, 1].tolist(), match_light(a, a)[0, 0].tolist()
    ([120, 120, 120], [250, 250, 250])
    """
    return np.rint(b * light_gain(a, b)).astype(a.dtype)


def change_levels(now: np.ndarray, still: np.ndarray) -> np.ndarray:
    """How far each pixel's colour moved (0-255, its most-changed channel) since ``still``, brought
    first to ``now``'s exposure and white balance (:func:`match_light`)."""
    d = np.abs(now - match_light(now, still))
    return d.max(axis=2) if d.ndim == 3 else d


def faint_threshold(now: np.ndarray, still: np.ndarray) -> float:
    """A change threshold just above a zone's own noise (:data:`FAINT_OVER_NOISE`): for a white card
    on a white table seen dark, its body a few grey levels above the cloth, its print too small to be
    a card. The noise is the lower quartile of the change: a new card covers a third of the zone.

    >>> still, rng = np.full((40, 80, 3), 96, np.int16), np.random.default_rng(0)
    >>> quiet, grainy = (still + rng.normal(0, s, still.shape).round().astype(np.int16) for s in (1, 3))
    >>> quiet[10:30, 40:75] += 8; grainy[10:30, 40:75] += 8
    >>> faint_threshold(quiet, still), faint_threshold(grainy, still)
    (4.0, 7.5)
    """
    return float(max(FAINT_FLOOR, FAINT_OVER_NOISE * np.percentile(change_levels(now, still), 25)))


LIGHT_MOVED = 0.05
"""A zone's light has moved since the auction began when a colour channel of its cloth is this much
(a share) brighter or darker than it was then."""


def light_since(bare: np.ndarray | None, now: np.ndarray) -> np.ndarray | None:
    """The gain, channel by channel, that brings ``now`` back to the light of ``bare`` (the zone when
    the auction began): the median ratio over the pixels that did not change (the cloth). None where
    no channel moved by :data:`LIGHT_MOVED`, or nothing is left to measure it on.

    Why: a camera's auto exposure and white balance move as bright cards come into a dark picture.
    On black cloth a green pass card turns cyan as the blue channel rises and the green one clips,
    and the reader, which knows a pass by its green, takes it for a redouble or an ALERT card.

    >>> bare = np.full((20, 40, 3), 40, np.int16)
    >>> now = (bare * np.array([1.25, 1.0, 1.0])).astype(np.int16); now[5:15, 10:30] = 250
    >>> [round(float(g), 2) for g in light_since(bare, now)], light_since(bare, bare)
    ([0.8, 1.0, 1.0], None)
    """
    if bare is None or bare.shape != now.shape or now.ndim != 3:
        return None
    still = change_levels(now, bare) <= NEW_CARD_CHANGE
    if still.sum() < 0.25 * still.size:
        return None
    gain = light_gain(bare, now, still)
    return gain if float(np.max(np.abs(gain - 1))) >= LIGHT_MOVED else None


def under_light(image: np.ndarray, gain: np.ndarray | None) -> np.ndarray:
    """``image`` with each colour channel scaled by ``gain`` (:func:`light_since`); as it is for None."""
    if gain is None:
        return image
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(image.dtype)


@dataclass
class ZoneWatch:
    """One bidding zone: its still picture, whether something moves in it, the strips read there."""

    zone: Zone
    ref: np.ndarray | None = None
    last: np.ndarray | None = None
    quiet: int = 0
    moved: bool = False
    strips: list[np.ndarray] = field(default_factory=list)   # centres (mm) of the strips read, in order
    width: float | None = None     # how wide (mm) the last new thing laid here was, when it could be told
    row: np.ndarray | None = None  # the zone as it was after its last call (or when first seen)
    bare: np.ndarray | None = None  # the zone when first seen this auction, before any call


NEW_CARD_CHANGE = 10.0
"""Colour change (0-255) against the still row that marks a new bid card's print, edges and body."""

CARD_SIZED = 0.3
"""A change covering at least this share of a bid card's area may be a card laid (less: a chip, a finger)."""

TAKEN_AWAY = 0.8
"""A change at least this much of which is the row as it was after its last call again is something
taken off the row, not a card laid on it."""

ROW_LEAST = 0.15
"""A card laid almost over the one before it changes only the part of it over the cloth: this share
of a bid card's area is enough to tell where it lies (:meth:`BiddingWatcher._on_row`)."""

ROW_SLACK_MM = 4.0
"""How far (mm) past a bid card's half width either side of the row's line a new thing may reach and
still lie on the row of calls (a card laid a little askew)."""

FAINT_OVER_NOISE = 2.5
FAINT_FLOOR = 4.0
"""Where nothing changed by :data:`NEW_CARD_CHANGE`, a new card is looked for at this many times the
zone's noise (its lower quartile of change), and never below the floor (0-255): a white card on a
white table in a dark picture is 5-10 grey levels above the cloth, the cloth's noise 2-3."""

WIDE_NUDGES_MM = [(d, s) for d in (0.0, -4.0, 4.0, -8.0, 8.0, -12.0, 12.0) for s in (0.0, -8.0, 8.0)]
"""Where :meth:`BiddingWatcher.bid_card_at` looks for the strip when asked to look wide ((along the
card, across it) from where the outline puts it, mm): on the first call of an auction the caller's
hand may still lie over the card, and the outline found then can be off by a third of a card."""

EDGE_SHARP = 12.0
"""How sharp (0-255 per pixel across the row) a new card's long edge must be along at least half of
what changed, for the card to be measured from its edges (:meth:`BiddingWatcher._edge_width`): a bid
card's edge against cloth or tape is 25-100; the print on it does not run along the row that far."""

EDGE_STEP_MM = 3.0
"""An edge's two sides are told this far (mm) from it: a printed line is thinner, a blurred edge narrower."""

EDGE_BEYOND_BARE = 0.2
"""At least this share of the table two edge steps beyond each of the two edges must be as it was
before (unchanged): a card's edge has the table beyond it. On the bidding bench's tuning renders a
bid card's edges had 0.34-1.0 of it (tape lines the light moved cover the rest); the two playing
cards of the video benchmark's judged set that were measured from an edge to a line printed on
them (the rule was missing) had 0.0-0.1 on the printed side."""

MIN_EDGE_MM = 20.0
"""Edges shorter than this (mm along the row) measure no card: a finger, a chip."""

SKEW_DEG = np.arange(-6.0, 6.1, 1.5)
"""How askew to the row (degrees) a card may lie and still be measured from its long edges."""

SAME_STRIP_MM = 10.0
"""A strip read again within this distance of one already read is that card seen again."""

SAME_CARD_S = 2.0
"""The caller's own last call read again within this many seconds of it, with no call between, is
that card seen again a little further on (straightened, or first read while the hand still held
it): nobody calls twice in a row, and a round of four calls takes longer than this."""


@dataclass
class BiddingWatcher:
    """Finds new bid cards in the bidding zones and reads them (see the module doc)."""

    cfg: CameraConfig
    game: str
    reader: BidCardReader | None = None
    calls: list[str] = field(default_factory=list)   # every call read this auction, in order
    sure: list[str] = field(default_factory=list)    # those read surely
    unsure_at: set[int] = field(default_factory=set)   # where in ``calls`` a call was read unsurely
    last_call: tuple[Seat | None, float | None] | None = None  # who made the last call read, and when (video s)
    now: float | None = None                          # the time of the frame being watched
    active: bool = True
    watches: list[ZoneWatch] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.watches = [ZoneWatch(z) for z in self.cfg.zones_for(self.game) if z.kind == "bidding"]

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The bidding zone at (x, y) mm while the auction is open (a card there is a bid card)."""
        if not self.active:
            return None
        return next((w.zone for w in self.watches if w.zone.contains(x, y)), None)

    def _patch(self, view: np.ndarray, z: Zone) -> tuple[np.ndarray, tuple[int, int]]:
        p = self.cfg.px_per_mm
        x0, y0, w, h = z.rect
        a, b = max(0, int(x0 * p)), max(0, int(y0 * p))
        return view[b:int((y0 + h) * p), a:int((x0 + w) * p)].astype(np.int16), (a, b)

    def _changed(self, a: np.ndarray, b: np.ndarray, threshold: float | None = None) -> np.ndarray:
        """Pixels whose colour moved by more than ``threshold`` (default: the motion threshold; a
        green pass card on green felt differs in colour more than in grey).

        ``b`` is first brought to ``a``'s exposure and white balance (:func:`match_light`): a camera
        that adjusts itself, or a cloud passing, changes the whole zone, a new card only its place."""
        return change_levels(a, b) > (threshold or self.cfg.stability.motion)

    def update(self, view: np.ndarray, frame_img: np.ndarray, cut: Cut, ts: float | None = None
               ) -> list[dict[str, Any]]:
        """One frame's top-down view (and its time, video seconds) in; the calls it completes out (event fields)."""
        if not self.active or not self.watches:
            return []
        self.now = ts
        out: list[dict[str, Any]] = []
        for w in self.watches:
            patch, origin = self._patch(view, w.zone)
            if patch.size == 0:
                continue
            if w.ref is None or w.ref.shape != patch.shape:
                w.ref = w.last = w.row = w.bare = patch
                continue
            moving = w.last is not None and w.last.shape == patch.shape and \
                float(np.mean(self._changed(patch, w.last))) > self.cfg.stability.moving_fraction
            w.last = patch
            if moving:
                w.quiet, w.moved = 0, True
                continue
            w.quiet += 1
            if not w.moved or w.quiet < self.cfg.stable_frames:
                continue
            w.moved = False
            if self._taken_away(w, patch):
                w.ref = patch                            # a hand or a fan lifted off the row: nothing laid
                continue
            w.width = self._width(w, patch)
            if self.playing_card_wide(w.width):
                w.ref = patch                            # a playing card laid here: nothing to read
                continue
            call = self._new_card(w, patch, origin, frame_img, cut)
            if call is not None:
                out.append(call)
                w.row = patch
            if not self.active:
                break                                    # the auction is over: no row is watched now
            w.ref = patch
        return out

    def _on_row(self, w: ZoneWatch, patch: np.ndarray, origin: tuple[int, int]) -> bool:
        """Whether what changed lies on the row of calls already read here, no wider than a bid card
        (:data:`ROW_SLACK_MM` either side): a card laid almost over the one before it, whose own edges
        show too little to measure its width. It is the next call, said unsure if read faintly: dropped,
        the auction's count of calls would be short and its end seen one pass late or never. All but
        2 % of what changed must lie there: a few pixels of compression noise or a finger's edge
        joined to the card do not take it off the row."""
        if not w.strips or w.zone.seat is None:
            return False
        p = self.cfg.px_per_mm
        px = self._changed_card(w, patch, least=ROW_LEAST)
        if px is None:
            return False
        up = np.array(UP[w.zone.seat])
        right = np.array([-up[1], up[0]])
        across = ((px + np.array(origin)) / p) @ right
        mid = float(np.median(np.array(w.strips) @ right))
        return bool(np.quantile(np.abs(across - mid), 0.98) <= CARD_MM[0] / 2 + ROW_SLACK_MM)

    def _taken_away(self, w: ZoneWatch, patch: np.ndarray) -> bool:
        """Whether what changed since the still picture is the row as it was after its last call
        again, or the zone as it was before the auction: something that lay over the row (a hand, a
        player's fan, a bidding box) was taken away, or the caller picked his bid cards up, and no
        card was laid. Its place, read as a strip, would give a call made of the cloth."""
        befores = [b for b in (w.row, w.bare) if b is not None and b.shape == patch.shape and b is not w.ref]
        if not befores:
            return False
        changed = self._changed(patch, w.ref)
        if changed.sum() < self._card_px(CARD_SIZED):
            return False
        return any(float(np.mean(~self._changed(patch, b)[changed])) >= TAKEN_AWAY for b in befores)

    def _width(self, w: ZoneWatch, patch: np.ndarray) -> float | None:
        """How wide (mm, across the caller's row) the new thing laid in ``w`` since its still picture is.

        From the card's own long edges where both are seen (:meth:`_edge_width`): what changed beside
        a card (tape lines the light moved otherwise than the cloth, a shadow) does not widen it. Else
        the median width of what changed, slice by slice along the row, so that a corner shadow or a
        finger does not widen it. None where it cannot be told: nothing card-sized changed; the change
        reaches a side of the zone and is narrower than a playing card (a card laid off the row's middle
        is cut there, and a playing card cut to 45 mm must not pass for a bid card); or it spans the
        zone from side to side (the light or the layout's own print changed with it)."""
        if w.ref is None or w.zone.seat is None or w.ref.shape != patch.shape:
            return None
        px = self._changed_card(w, patch)
        if px is None:
            return None
        edges = self._edge_width(w, patch, px)
        if edges is not None:
            return edges
        p = self.cfg.px_per_mm
        up = np.array(UP[w.zone.seat])
        pts = px / p
        along, across = np.round(pts @ up / 2.0), pts @ np.array([-up[1], up[0]])
        widths = [float(np.ptp(across[along == b])) for b in np.unique(along) if np.sum(along == b) > 3]
        if not widths:
            return None
        width = float(np.median(widths)) + 1 / p                        # pixel centres to card edges
        side = w.zone.rect[2] if up[0] == 0 else w.zone.rect[3]         # the zone across the row
        edge = pts[:, 0] if up[0] == 0 else pts[:, 1]                   # across the row, from the zone's side
        cut_off = edge.min() < 1.5 or edge.max() > side - 1.5           # the thing goes on past the zone's side
        if width >= side - 4.0 or (cut_off and not self.playing_card_wide(width)):
            return None                          # cut off, it is at least that wide: only a playing card's width tells
        return width

    def _edge_width(self, w: ZoneWatch, patch: np.ndarray, px: np.ndarray) -> float | None:
        """How far apart (mm) the new card's two long edges are: the lines along the caller's row, each
        sharp along at least half the length of what changed (``px``), with another colour either side
        (a line printed on a card, a court card's frame, has the card's colour on both), that were not
        in the zone's still picture (a taped layout's own lines along the row are), found at the skew
        the card lies at (:data:`SKEW_DEG`). None where two such edges a card's width apart are not seen
        within what changed: a card laid over the one before it at the same place, edges blurred by
        motion, a card that goes on past the zone's side."""
        assert w.ref is not None and w.zone.seat is not None
        p = self.cfg.px_per_mm
        rowwise = UP[w.zone.seat][0] == 0                    # North and South: the row runs down the view

        step = max(1, round(EDGE_STEP_MM * p))

        def across_edges(a: np.ndarray) -> np.ndarray:
            """Per pixel, how sharp the change across the row is and how far the colour on one side
            differs from the other's ``step`` further out: an edge has both, a printed line only the first."""
            a = (a if rowwise else np.swapaxes(a, 0, 1)).astype(np.float32)
            sharp, apart = np.abs(a[:, 2:] - a[:, :-2]) / 2, np.zeros_like(a[:, 2:])
            apart[:, step - 1:apart.shape[1] - step + 1] = np.abs(a[:, 2 * step:] - a[:, :-2 * step]) / 2
            g = np.minimum(sharp, apart)
            return g.max(axis=2) if g.ndim == 3 else g

        new = np.clip(across_edges(patch) - across_edges(match_light(patch, w.ref)), 0, None)
        along, across = (px[:, 1], px[:, 0]) if rowwise else (px[:, 0], px[:, 1])
        rows = np.arange(int(np.quantile(along, 0.05)), int(np.quantile(along, 0.95)) + 1)
        if len(rows) < MIN_EDGE_MM * p:
            return None
        cols = np.arange(new.shape[1])
        best: tuple[float, float, np.ndarray, np.ndarray] | None = None
        for deg in SKEW_DEG:
            shift = (rows - rows.mean()) * np.tan(np.deg2rad(deg))
            idx = np.clip(np.rint(cols[None, :] + shift[:, None]).astype(int), 0, len(cols) - 1)
            profile = np.median(np.take_along_axis(new[rows], idx, axis=1), axis=0)
            if best is None or profile.max() > best[0]:
                best = (float(profile.max()), deg, profile, shift)
        assert best is not None
        _, deg, profile, shift = best
        first = int(np.argmax(profile))
        apart = np.abs(cols - first) >= 0.6 * CARD_MM[0] * p
        if not apart.any():
            return None
        second = int(np.argmax(np.where(apart, profile, -1.0)))
        lo, hi = sorted((first, second))
        if profile[second] < EDGE_SHARP or lo + 1 < across.min() - 2 or hi + 1 > across.max() + 2:
            return None                                         # not two edges, or not the thing that changed
        # a card's edge has the table beyond it, as it was before; a line printed on a playing card
        # (a court card's frame, a column of pips) has the card's own body, which changed
        changed = self._changed(patch, w.ref)
        bare = ~(changed if rowwise else changed.T)
        beyond = [np.clip(c + np.rint(shift).astype(int), 0, bare.shape[1] - 1)
                  for c in (lo + 1 - 2 * step, hi + 1 + 2 * step)]
        if min(float(np.mean(bare[rows, c])) for c in beyond) < EDGE_BEYOND_BARE:
            return None
        return (hi - lo) / p * float(np.cos(np.deg2rad(deg)))

    def _changed_card(self, w: ZoneWatch, patch: np.ndarray, threshold: float | None = None,
                      close: int = 0, least: float = CARD_SIZED) -> np.ndarray | None:
        """The pixels (x, y in the patch) of the largest patch that changed since ``w``'s still picture
        (at ``threshold``, gaps up to ``close`` px closed), or None where nothing card-sized (``least``
        of a bid card's area) changed."""
        import cv2

        assert w.ref is not None
        diff = cv2.morphologyEx(self._changed(patch, w.ref, threshold).astype(np.uint8), cv2.MORPH_OPEN,
                                np.ones((2, 2), np.uint8))
        if close:
            diff = cv2.morphologyEx(diff, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(diff)
        if n < 2:
            return None
        k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[k, cv2.CC_STAT_AREA] < self._card_px(least):
            return None
        ys, xs = np.nonzero(labels == k)
        return np.stack([xs, ys], 1)

    def _card_px(self, share: float) -> float:
        """``share`` of a bid card's area, in pixels of the watcher's top-down view."""
        return share * CARD_MM[0] * CARD_MM[1] * self.cfg.px_per_mm ** 2

    def playing_card_wide(self, width: float | None) -> bool:
        """Whether a thing ``width`` mm wide is a playing card, not a bid card: nearer the pack's width
        (the config's ``card_mm``, 57-63 mm) than a bid card's (:data:`CARD_MM`, 45 mm).

        >>> w = BiddingWatcher(CameraConfig(), "bridge")
        >>> w.playing_card_wide(47.0), w.playing_card_wide(60.0), w.playing_card_wide(None)
        (False, True, False)
        """
        return width is not None and width >= (CARD_MM[0] + min(self.cfg.card_mm)) / 2

    def bid_card_wide(self, width: float | None) -> bool:
        """Whether a thing ``width`` mm wide is a bid card (:data:`CARD_MM`) by its width: a call laid
        whose strip reads weakly (a level digit a few pixels high) is still a call, said unsure with its
        candidates, so that the auction keeps its count of calls and its end.

        >>> w = BiddingWatcher(CameraConfig(), "bridge")
        >>> w.bid_card_wide(46.0), w.bid_card_wide(60.0), w.bid_card_wide(20.0), w.bid_card_wide(None)
        (True, False, False, False)
        """
        return width is not None and 0.8 * CARD_MM[0] <= width and not self.playing_card_wide(width)

    def laid_width(self, zone: Zone) -> float | None:
        """How wide the thing last laid in ``zone`` is (mm; None where it cannot be told): measured now
        against the zone's still picture when the watcher has not yet looked at it, else as it measured it."""
        w = next((w for w in self.watches if w.zone is zone), None)
        if w is None:
            return None
        return self._width(w, w.last) if w.moved and w.last is not None else w.width

    def _bottoms(self, w: ZoneWatch, patch: np.ndarray, origin: tuple[int, int]) -> list[np.ndarray]:
        """Where the new card's lower edge may lie (its middle, table mm): from what changed, and
        one strip nearer the caller than the last strip read in this row."""
        assert w.ref is not None and w.zone.seat is not None
        p = self.cfg.px_per_mm
        up = np.array(UP[w.zone.seat])
        out: list[np.ndarray] = []
        if w.strips:
            out.append(w.strips[-1] - up * STRIP_MM + up * (STRIP_MM / 2 - CARD_MM[1]))
        # The patch at the motion threshold; and, for a card the colour of the cloth (whose print and
        # edges change, its body hardly), at a low threshold with print and edges joined into one patch;
        # where neither finds a card, just above the zone's noise (a white card on a white table).
        found = [px for threshold, close in ((None, 0), (NEW_CARD_CHANGE, int(9 * p) | 1))
                 if (px := self._changed_card(w, patch, threshold, close)) is not None]  # else a chip, a finger
        if not found:
            px = self._changed_card(w, patch, faint_threshold(patch, w.ref))
            found = [] if px is None else [px]
        right = np.array([-up[1], up[0]])
        for px in found:
            pts = (px + np.array(origin)) / p                                   # table mm
            along = pts @ up
            lowest = float(np.mean(along[along <= np.quantile(along, 0.03)]))   # the caller's end of the patch
            mid = right * float(np.median(pts @ right))
            out.append(up * lowest + mid)
            body = body_bottom(along, p)
            if body is not None and body - lowest > BODY_APART_MM:
                out.append(up * body + mid)
        return out

    def _new_card(self, w: ZoneWatch, patch: np.ndarray, origin: tuple[int, int], img: np.ndarray,
                  cut: Cut) -> dict[str, Any] | None:
        assert w.zone.seat is not None
        up = np.array(UP[w.zone.seat])
        quads = [strip_quad(b + up * d, UP[w.zone.seat]) for b in self._bottoms(w, patch, origin) for d in NUDGES_MM]
        # a strip already read is that card again (a hand lifted off the row), not a new call
        quads = [q for q in quads if all(np.hypot(*(q.mean(0) - c)) > SAME_STRIP_MM for c in w.strips)]
        if not quads:
            return None
        if self.reader is None:
            self.reader = BidCardReader()
        prior = call_prior().probs(self.calls)
        gain = light_since(w.bare, patch)
        lights = [None] if gain is None else [None, gain]
        cuts = [cut(img, q, STRIP_PX) for q in quads]
        tried = [(q, g, under_light(s, g)) for g in lights for q, s in zip(quads, cuts)]
        reads = self.reader.read([s for _, _, s in tried], self.sure, prior=prior)
        best: tuple[BidRead, np.ndarray] | None = None
        strip, light = None, None
        rank = lambda r, g: (not r.uncertain, g is None, r.strength)  # noqa: E731 - sure first, then the present light
        for r, (q, g, s) in zip(reads, tried):
            if g is not None and r.uncertain:
                continue                                 # under the light of then, only a sure read counts
            if r.call in CALLS and (best is None or rank(r, g) > rank(best[0], light)):
                best, strip, light = (r, q), s, g
        pair = getattr(self.reader, "read_pair", None)
        if best is not None and pair is not None:
            # the newest card lies on top and whole: where its strip reads best, its large print is
            # read too (a print cut where the strip is not lies over the card's top or the table)
            q = best[1]
            both = pair(strip, as_strip(under_light(cut(img, middle_quad(q), middle_px()), light)), self.sure, prior)
            if both.call in CALLS:
                best = (replace(both, seen=best[0].strength), q)
        if best is None or (best[0].strength < self.cfg.min_conf and not self.bid_card_wide(w.width)
                            and not self._on_row(w, patch, origin)):
            return None                                  # STOP, ALERT, or not a bid card
        read = best[0] if best[0].strength >= self.cfg.min_conf else replace(best[0], uncertain=True)
        if self._seen_again(w, read):
            w.strips[-1] = best[1].mean(0)               # where that card lies now
            return None
        self.calls.append(read.call)
        self.last_call = (w.zone.seat, self.now)
        if not read.uncertain:
            self.sure.append(read.call)                  # only sure reads judge the calls after them
        else:
            self.unsure_at.add(len(self.calls) - 1)
        w.strips.append(best[1].mean(0))
        if auction_over(self.calls) and self._end_read_surely():
            self.close()                                 # the cards picked up next are not new calls
        return {"seat": w.zone.seat, **read.event_fields(), "zone": w.zone.name}

    def _seen_again(self, w: ZoneWatch, read: BidRead) -> bool:
        """Whether ``read`` is the caller's own last card seen again (:data:`SAME_CARD_S`)."""
        if self.last_call is None or not self.calls or not w.strips or self.now is None:
            return False
        seat, at = self.last_call
        return seat == w.zone.seat and read.call == self.calls[-1] and at is not None and \
            self.now - at <= SAME_CARD_S

    def _end_read_surely(self) -> bool:
        """Whether the passes that end the auction were all read surely. A pass read unsurely may be
        a bid (``1N`` read as ``P`` with ``1N`` its next candidate): the auction then goes on, and
        closing it there would miss every call after. Kept open, an auction that did end is closed
        by the opening lead."""
        n = len(self.calls)
        end = range(4) if self.calls[:4] == ["P"] * 4 else range(n - 3, n)
        return not any(i in self.unsure_at for i in end)

    def zone_over(self, quad_mm: np.ndarray) -> Zone | None:
        """The bidding zone that a card's outline (table mm) reaches into while the auction is open
        and has begun: its centre's zone, else the one holding most of its corners. A bid card's
        outline found by the tracker can be shifted out of the row (a chip or a shadow beside it)."""
        if not self.active or not self.calls:
            return None
        q = np.asarray(quad_mm, np.float64)
        here = self.zone_at(*q.mean(0))
        if here is not None:
            return here
        return most_corners((w.zone for w in self.watches), q)[1]

    def bid_card_at(self, zone: Zone, quad_mm: np.ndarray, img: np.ndarray, cut: Cut,
                    wide: bool = False) -> BidRead | None:
        """The bid-card reading of a card the tracker saw come to rest in a bidding zone (its outline
        ``quad_mm``, table mm): the strip at its end towards the centre, read where the outline puts
        it and a little further out (an outline fitted to a playing card's shape may be short).
        ``wide``: also up to 12 mm further in or out and 8 mm to either side (:data:`WIDE_NUDGES_MM`), for an outline found
        while the caller's hand still lies over the card.

        The card reader only knows playing cards: a bid card's ``2H`` looks much like the two of
        hearts, a pass card like nothing it knows. What the bid-card network says of the same card
        decides whether it is a call (the watcher reads it) or a card played or exposed."""
        if zone.seat is None:
            return None
        up = np.array(UP[zone.seat])
        right = np.array([-up[1], up[0]])
        q = np.asarray(quad_mm, np.float64)
        top = float(np.max(q @ up))
        mid = float(np.median(q @ right))
        shifts = WIDE_NUDGES_MM if wide else [(d, 0.0) for d in (0.0, -4.0, 4.0)]
        quads = [strip_quad(up * (top - CARD_MM[1] + d) + right * (mid + s), UP[zone.seat]) for d, s in shifts]
        if self.reader is None:
            self.reader = BidCardReader()
        reads = [r for r in self.reader.read([cut(img, q, STRIP_PX) for q in quads]) if r.call != "none"]
        return max(reads, key=lambda r: r.conf, default=None)

    def close(self) -> None:
        """The auction is over (a card was played): bid cards are picked up, none are read."""
        self.active = False
        for w in self.watches:
            w.ref = w.last = w.row = w.bare = None
            w.moved, w.quiet, w.strips = False, 0, []

    def reopen(self) -> None:
        """A new board: a new auction."""
        self.active = True
        self.calls, self.sure, self.unsure_at, self.last_call = [], [], set(), None
