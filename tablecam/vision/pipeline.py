"""Camera pipeline: video frames in, ``play`` / ``expose`` / ``trick_turned`` events out.

Per frame (cheap, every frame):

1. calibrate once (ArUco corner markers, given points or a saved file; a
   wide-angle lens is undistorted through the ``[lens]`` intrinsics);
2. map the frame to a small top-down view of the playing area (1 px per mm;
   shrunk first so the view is averaged rather than aliased);
3. let the :class:`~tablecam.vision.tracker.StabilityTracker` follow the
   motion, and - every ``every``-th frame, or when motion settles - the learned
   card localiser's boxes on that view, and say which cards have come to rest
   and which known cards are gone.

Per card at rest (rare, a few times per trick):

4. cut the card out of the *full-resolution* frame through each outline the
   tracker offers (the patch that changed since the scene at rest first),
   rectified to an upright 250x350 image, and classify it
   (``tablecam.vision.detector`` ``classify_card`` by default - any
   ``crop -> (card, conf, probs)`` callable works); the surest read wins,
   and a card seen under 0.9 px/mm is read by its whole face too (:mod:`~tablecam.vision.whole_card`);
5. check the reading against what the shoe dealt (:mod:`~tablecam.vision.fusion`);
6. turn it into an event by the zone it lies in (:mod:`~tablecam.vision.zones`).
   A card the localiser is sure of but the classifier is not gives an event
   with ``uncertain: true`` and its ``candidates``, never a confident wrong card.

So the classifier runs on a handful of crops per trick and the localiser on
a third of the frames at 320 px; that is what keeps the pipeline at 25 frames
per second on a 2-core CPU while an event still follows the card's coming to
rest by ``stable_frames`` frames plus one classification.

Events carry ``ts`` (the timestamp of the frame on which the pipeline decided,
i.e. when a live system would have known), ``rest_ts`` (the first frame the
card was found still), ``source: "camera"`` and ``conf``.  The event type
``trick_turned`` (``cards``, ``seats``, ``trick``, ``conf``), registered in
:mod:`tablecam.events` as an observation: the cards of the current trick have all left
the table (turned face down or gathered).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator

import numpy as np

from ..cards import Seat, parse_card, parse_seat
from ..events import Event
from ..findings import Finding
from .bid_place import BidCardPlace
from .bidding import BiddingWatcher
from .calibrate import Calibration, Lens, lens_if_bent
from .camera import Frame
from .fusion import HandBook, probs_dict, without
from .ink_colour import PackColours, coloured
from .whole_card import BELOW_PX_PER_MM, agreed, default_reader, named_by_whole, whole_of, with_whole_card
from .tracker import (LIES_OVER, Gone, Placed, Rest, StabilityTracker, box_cover, card_shaped, gathered_over,
                      order_quad)
from .readers import (TRUE_TO_SIZE, Classifier, Localise, Reading, SecondOpinion, _as_reading, default_classifier,
                      default_localiser, default_second_opinion, localiser_input, outline_rank, second_reading)
from .zones import CameraConfig, Zone, trick_seat


CROP_W, CROP_H = 250, 350

FOLLOW_SUIT = ("bridge", "vira", "whist")
"""Games where a player must follow the suit led (fusion prefers a card that does)."""

JOKER_GAMES = ("whist", "pidro")
"""Games whose pack holds jokers; elsewhere a joker read is a face that could not be read."""

WHOLE_PACK_GAMES = ("bridge", "whist")
"""Games whose board plays the whole pack, 13 tricks: the camera alone knows when a board is over,
so the cards surely played in it are remembered (no card is played twice in a board). In Vira
and Pidro (shorter boards, cards bought and discarded) they are not."""

CANDIDATES = 3
"""Cards listed in an uncertain event (``candidates``), likeliest first."""

SURE_BACK = 0.9
"""A back read this surely beats an unsure face read through another outline; a joker needs it too."""

CALL_HOLD_FRAMES = 8
"""A call read from a bid card is held this many frames: a playing card found surely in the same
place meanwhile (the opening lead, a table without bidding boxes) shows it was no bid card."""

SURE_CARD = 0.6
"""A localiser score from which a box is surely a card, even when its face cannot be read."""


def _grow(q: np.ndarray, mm: float) -> np.ndarray:
    """Move each corner ``mm`` further from the centre (along the diagonal)."""
    c = q.mean(0)
    d = q - c
    n = np.linalg.norm(d, axis=1, keepdims=True)
    return c + d * (1 + mm / np.maximum(n, 1e-6))


def _grow_sides(q: np.ndarray, mm: float) -> np.ndarray:
    """Push each side of a rectangle ``mm`` outwards (a margin of ``mm`` all round)."""
    q = np.asarray(q, np.float64)
    c = q.mean(0)
    e1 = (q[1] - q[0]) / max(np.linalg.norm(q[1] - q[0]), 1e-6)
    e2 = (q[3] - q[0]) / max(np.linalg.norm(q[3] - q[0]), 1e-6)
    out = []
    for p in q:
        d = p - c
        out.append(p + np.sign(d @ e1) * mm * e1 + np.sign(d @ e2) * mm * e2)
    return np.array(out)


@dataclass
class PipelineStats:
    frames: int = 0
    classified: int = 0
    looks: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"view": 0.0, "track": 0.0, "localise": 0.0,
                                                              "classify": 0.0, "second_opinion": 0.0,
                                                              "calibrate": 0.0, "bidding": 0.0})


class CameraPipeline(BidCardPlace):
    """Fold frames into camera events for one table.

    ``hands``: a :class:`HandBook` fed with the shoe's ``deal`` events; when
    it knows the hands, readings are fused with them (and impossible cards
    become ``camera_unexpected_card`` findings).
    """

    def __init__(self, cfg: CameraConfig | None = None, game: str = "bridge",
                 calibration: Calibration | None = None, classify: Classifier | None = None,
                 hands: HandBook | None = None, source: str = "camera", localise: Localise | None = None,
                 second_opinion: SecondOpinion | None = None) -> None:
        self.cfg = cfg or CameraConfig.load()
        self.game = game
        self.cal = calibration
        self._classify = classify
        self._localise = localise
        # the detector's second look at unsure reads: by default with the shipped model only
        self._second: SecondOpinion | None = second_opinion
        self._second_default = second_opinion is None and classify is None and self.cfg.detection.second_opinion
        self._whole = default_reader() if classify is None else None     # a card seen small, read by its whole face
        self.lens = self._lens()
        if self.cal is not None and self.cal.lens is None and self.lens is not None:
            self.cal.lens = self.lens
        self.hands = hands
        self.source = source
        self.tracker = StabilityTracker(self.cfg)
        self.bidding = BiddingWatcher(self.cfg, game)
        self.pending_calls: list[tuple[int, dict[str, Any]]] = []   # calls held until no playing card claims them
        self.stats = PipelineStats()
        self.trick: list[dict[str, Any]] = []        # plays of the current trick: seat, card, placed id, gone
        self.tricks_turned = 0
        self.exposed: set[str] = set()
        self.played: set[str] = set()                 # cards surely read in this board's earlier tricks
        self.pack_colours = PackColours()             # each suit's ink colour, learnt from sure reads
        self._view_maps: tuple[np.ndarray, np.ndarray, int] | None = None
        self._cal_tries = 0
        self.errors: list[str] = []
        self.readings: list[tuple[float, str, str, float]] = []   # every classification, for diagnosis
        self.recalibrations: list[tuple[float, float]] = []        # (ts, drift in mm) when the camera moved
        self._last_check = 0.0

    # -- calibration -------------------------------------------------------
    def _calibrate(self, frame: Frame) -> bool:
        if self.cal is not None:
            return True
        c = self.cfg.calibration
        method = c.method
        t0 = time.perf_counter()
        try:
            if method == "points":
                self.cal = Calibration.from_points(c.image_points or [], self.cfg.geometry, self.lens)
            elif method == "file":
                self.cal = Calibration.load(c.file or "")
                if self.cal.lens is None:
                    self.cal.lens = self.lens
            else:
                self._cal_tries += 1
                every = 1 if self._cal_tries <= c.search_frames else 25
                if self._cal_tries % every == 0:
                    if self.lens is None and c.fit_lens:
                        self.lens = lens_if_bent(frame.image, self.cfg.geometry)   # a wide lens nobody measured
                    self.cal = Calibration.from_aruco(frame.image, self.cfg.geometry, lens=self.lens)
        except (ValueError, KeyError, OSError) as e:
            if method != "aruco":
                raise ValueError(f"calibration ({method}) failed: {e}") from None
        finally:
            self.stats.seconds["calibrate"] += time.perf_counter() - t0
        return self.cal is not None

    def _maybe_recheck(self, frame: Frame) -> None:
        """Every ``recheck_s`` seconds look at the markers again: a knocked camera is re-calibrated.

        Cards already on the table keep their identity: their outlines are
        carried over into the new view, so a bump makes no event.
        """
        c = self.cfg.calibration
        every = c.recheck_s
        if c.method != "aruco" or every <= 0 or self.cal is None:
            return
        if frame.ts - self._last_check < every:
            return
        self._last_check = frame.ts
        t0 = time.perf_counter()
        try:
            new = Calibration.from_aruco(frame.image, self.cfg.geometry, lens=self.lens)
        except ValueError:
            return                       # markers covered just now: keep the calibration we have
        finally:
            self.stats.seconds["calibrate"] += time.perf_counter() - t0
        g = self.cfg.geometry
        corners = [g.corner_mm(i) for i in range(4)]
        old_px = self.cal.table_to_image(corners)
        drift_mm = float(np.abs(new.image_to_table(old_px) - np.array(corners)).max())
        if drift_mm < c.recheck_mm:
            return
        old_v = self.cal.view_matrix(self.cfg.px_per_mm)
        new_v = new.view_matrix(self.cfg.px_per_mm)
        self.tracker.moved(new_v @ np.linalg.inv(old_v))
        self.cal, self._view_maps = new, None
        self.recalibrations.append((frame.ts, round(drift_mm, 1)))

    def _lens(self) -> Lens | None:
        lens = self.cfg.lens
        if lens is None:
            return None
        if lens.file:
            try:
                return Lens.load(lens.file)
            except (OSError, ValueError, KeyError) as e:
                raise ValueError(f"lens file {lens.file}: {e}") from None
        if lens.camera_matrix is None:
            return None
        return Lens.from_dict({"camera_matrix": lens.camera_matrix, "distortion": lens.distortion or [0, 0, 0, 0],
                               "image_size": lens.image_size})

    def _shrink(self, img: np.ndarray) -> int:
        """How much the frame can be shrunk before the view still has a frame pixel per view pixel."""
        assert self.cal is not None
        g = self.cfg.geometry
        px = self.cal.table_to_image([(0, 0), (g.width_mm, 0), (g.width_mm, g.height_mm), (0, g.height_mm)])
        span = max(np.linalg.norm(px[1] - px[0]) / g.width_mm, np.linalg.norm(px[3] - px[0]) / g.height_mm)
        return int(max(1, min(4, span // self.cfg.px_per_mm)))

    def _view(self, img: np.ndarray) -> np.ndarray:
        import cv2

        assert self.cal is not None
        if self._view_maps is None:
            g, ppm = self.cfg.geometry, self.cfg.px_per_mm
            size = (int(round(g.width_mm * ppm)), int(round(g.height_mm * ppm)))
            k = self._shrink(img)
            mx, my = self.cal.table_map(np.diag([1 / ppm, 1 / ppm, 1.0]), size, scale=1.0 / k)
            mx, my = cv2.convertMaps(mx, my, cv2.CV_16SC2)
            self._view_maps = (mx, my, k)
        mx, my, k = self._view_maps
        small = img if k == 1 else cv2.resize(img, (img.shape[1] // k, img.shape[0] // k), interpolation=cv2.INTER_AREA)
        return cv2.remap(small, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def localise(self, view: np.ndarray) -> list[tuple[float, float, float, float, float]]:
        """The learned localiser on the top-down view: card boxes in view pixels."""
        import cv2

        if self._localise is None:
            self._localise = default_localiser(self.cfg)
        t0 = time.perf_counter()
        try:
            n = localiser_input(self.cfg)
            f = n / max(view.shape[:2])
            img = view if abs(f - 1) < 1e-3 else cv2.resize(view, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            return [(x1 / f, y1 / f, x2 / f, y2 / f, c) for x1, y1, x2, y2, c in self._localise(img)]
        finally:
            self.stats.looks += 1
            self.stats.seconds["localise"] += time.perf_counter() - t0

    # -- classification ----------------------------------------------------
    def _cut(self, img: np.ndarray, q_mm: np.ndarray, size: tuple[int, int], interp: int) -> np.ndarray:
        """The table quad ``q_mm`` (TL, TR, BR, BL) cut from the frame as a ``size`` image,
        through the calibration's maps (lens included) so a card near the edge of a
        wide-angle view comes out straight."""
        import cv2

        assert self.cal is not None
        w, h = size
        src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        to_mm = cv2.getPerspectiveTransform(src, np.asarray(q_mm, np.float32))
        if self.cal.lens is None:           # a plain homography: one warp
            crop_to_img = np.linalg.inv(self.cal.H) @ to_mm.astype(np.float64)
            return cv2.warpPerspective(img, crop_to_img, (w, h), flags=interp | cv2.WARP_INVERSE_MAP,
                                       borderMode=cv2.BORDER_REPLICATE)
        mx, my = self.cal.table_map(to_mm, (w, h))
        return cv2.remap(img, mx, my, interp, borderMode=cv2.BORDER_REPLICATE)

    def _cut_strip(self, img: np.ndarray, q_mm: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """A bid card's strip (table mm) cut upright from the full frame."""
        import cv2

        return self._cut(img, q_mm, size, cv2.INTER_LINEAR)

    def crop_card(self, img: np.ndarray, quad_view: np.ndarray, grow_mm: float = 0.5,
                  refine: bool = True) -> np.ndarray:
        """The card under ``quad_view`` cut from the full frame, upright, 250x350.

        The view's outline is good to a view pixel (1 mm); so the card is
        first cut loosely, with a margin, at ``crop_px_per_mm``, its edges
        are found again in that cut (the rectangle whose sides lie best on
        the edges) and the final crop follows them."""
        import cv2

        q = order_quad(np.asarray(quad_view, np.float64) / self.cfg.px_per_mm)
        if refine:
            better = self._refine(img, q)
            if better is not None:
                q = better
        return self._cut(img, order_quad(_grow_sides(q, grow_mm)), (CROP_W, CROP_H), cv2.INTER_CUBIC)

    def _refine(self, img: np.ndarray, q_mm: np.ndarray, margin_mm: float = 5.0) -> np.ndarray | None:
        """The card's outline (table mm) fitted to the edges of a loose full-resolution cut."""
        import cv2

        from .proposals import fitted_quads

        ppm = self.cfg.crop_px_per_mm
        cw, ch = self.cfg.card_mm
        W, H = int(round((cw + 2 * margin_mm) * ppm)), int(round((ch + 2 * margin_mm) * ppm))
        loose = order_quad(_grow_sides(q_mm, margin_mm))
        cut = self._cut(img, loose, (W, H), cv2.INTER_LINEAR)
        g = margin_mm * ppm * 0.6
        try:
            fits = fitted_quads(cut, (g, g, W - g, H - g), top=1, aspect=ch / cw, width=cw * ppm, max_side=220)
        except (ValueError, IndexError, ArithmeticError):
            return None
        if not fits:
            return None
        src = np.array([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]], np.float32)
        M = cv2.getPerspectiveTransform(src, loose.astype(np.float32))
        fit = cv2.perspectiveTransform(fits[0].reshape(-1, 1, 2).astype(np.float64), M.astype(np.float64)).reshape(4, 2)
        if float(np.abs(fit.mean(0) - q_mm.mean(0)).max()) > 0.6 * margin_mm:
            return None                      # the edges of something else
        return order_quad(fit)

    def read(self, img: np.ndarray, rest: Rest) -> tuple[Reading, np.ndarray, np.ndarray]:
        """The surest read among the outlines the tracker offers, the outline it came from and the
        card cut through it.

        A face read beats ``back`` and ``none`` when it is sure (over
        ``uncertain_below``): an outline cut partly off the card reads as
        ``none`` while the right one reads the card.  Unsure, the outline the
        card's size wins among faces, and for a card seen small whatever it
        reads (:func:`~tablecam.vision.readers.outline_rank`)."""
        reads: list[tuple[Reading, np.ndarray]] = []
        crops: list[np.ndarray] = []
        for q in rest.quads or [rest.quad_view]:
            crops.append(self.crop_card(img, q))
            r = self.classify(crops[-1])
            reads.append((r, q))
            if r.card not in ("back", "none") and r.conf >= 0.95:
                break

        small = self._whole is not None and self.px_per_mm_at(rest.quad_view) < BELOW_PX_PER_MM

        def rank(k: int) -> tuple[int, int, int, float]:
            sized = card_shaped(reads[k][1] / self.cfg.px_per_mm, self.cfg.card_mm, TRUE_TO_SIZE)
            return outline_rank(reads[k][0], sized, small, self.cfg.uncertain_below, self.cfg.min_conf, SURE_BACK)

        i = max(range(len(reads)), key=rank)
        return self._with_pips(reads[i][0], reads, crops), reads[i][1], crops[i]

    def _with_pips(self, r: Reading, reads: list[tuple[Reading, np.ndarray]], crops: list[np.ndarray]) -> Reading:
        """An unsure read re-ranked by the pips the outlines count (:func:`~tablecam.vision.pip_vote.witnessed`)."""
        from .pip_vote import witnessed

        return witnessed(r, [rq[0].card for rq in reads], crops, jokers=self.game in JOKER_GAMES)

    def classify(self, crop: np.ndarray) -> Reading:
        if self._classify is None:
            self._classify = default_classifier()
        t0 = time.perf_counter()
        try:
            return _as_reading(self._classify(crop))
        finally:
            self.stats.classified += 1
            self.stats.seconds["classify"] += time.perf_counter() - t0

    # -- events ------------------------------------------------------------
    def _event(self, type: str, frame: Frame, **data: Any) -> Event:
        return Event(type, data, ts=frame.ts, source=self.source)

    def feed(self, event: Any) -> None:
        """Shoe or operator events (``board``, ``deal`` ...) for the fusion."""
        if getattr(event, "type", None) == "board":
            self.trick.clear()
            self.exposed.clear()
            self.played.clear()
            g = event.get("game")
            if g:
                self.game = g
        if self.hands is not None:
            self.hands.feed(event)

    def recover(self, events: Iterable[Any]) -> None:
        """Take up a board already under way: the table's log so far.

        Why: a camera that starts (or a table node that restarts) in the
        middle of a trick sees the trick's cards lying on the table.  Without
        the log it would report them as new plays, and the engine would see
        each card played twice.  With it, the current trick's plays and the
        exposed cards are known: a card seen where the log put it is the same
        card, no new event (as after a hand passed over it), and the
        tricks turned keep their count.  ``board`` starts afresh; ``deal``
        goes to the fusion like :meth:`feed`."""
        for ev in events:
            t = getattr(ev, "type", None)
            if t in ("board", "deal"):
                self.feed(ev)
            elif t == "play":
                try:
                    card, seat = parse_card(ev.get("card")), parse_seat(ev.get("seat"))
                except (ValueError, TypeError):
                    continue
                if len(self.trick) >= self.cfg.cards_per_trick:
                    self.trick.clear()                 # the next trick began
                self.trick.append({"seat": seat, "card": card, "id": None, "gone": False,
                                   "conf": float(ev.get("conf") or 1.0)})
                self.exposed.discard(str(card))
                self.bidding.close()
                if self.hands is not None:
                    self.hands.mark_played(ev.get("seat"), card)
            elif t == "call" and isinstance(ev.get("call"), str):
                self.bidding.calls.append(ev.get("call"))
                self.bidding.sure.append(ev.get("call"))
            elif t == "trick_turned":
                self.trick.clear()
                self.tricks_turned += 1
            elif t == "expose":
                self.exposed.add(str(ev.get("card")))
            elif t == "retract":
                self.trick = [p for p in self.trick if str(p["card"]) != str(ev.get("card"))]
                if self.hands is not None:
                    self.hands.feed(ev)

    def px_per_mm_at(self, quad_view: np.ndarray) -> float:
        """Frame pixels per table millimetre where this card lies (its index gets that many)."""
        import cv2

        assert self.cal is not None
        q_mm = np.asarray(quad_view, np.float64).reshape(4, 2) / self.cfg.px_per_mm
        q_img = self.cal.table_to_image(q_mm)
        a_mm = abs(cv2.contourArea(q_mm.astype(np.float32)))
        a_img = abs(cv2.contourArea(q_img.astype(np.float32)))
        return float(np.sqrt(a_img / a_mm)) if a_mm > 0 else 0.0

    def second_look(self, img: np.ndarray, quad_view: np.ndarray, r: Reading, stands: bool = False) -> tuple[Reading, np.ndarray | None]:
        """An unsure read looked at again by the still detector, on a window of the frame around the
        card; its read of the card at the window's centre replaces ours when it is sure (not another
        card where ours ``stands``: the whole face agreed).  Returns the read and, when replaced, the outline."""
        if r.conf >= self.cfg.uncertain_below and r.card not in ("none",):
            return r, None
        if self._second is None and self._second_default:
            try:
                self._second = default_second_opinion()
            except Exception:  # no detector: the first read stands
                self._second_default = False
        if self._second is None:
            return r, None
        assert self.cal is not None
        t0 = time.perf_counter()
        try:
            q_img = self.cal.table_to_image(np.asarray(quad_view, np.float64) / self.cfg.px_per_mm)
            c = q_img.mean(0)
            span = float(np.ptp(q_img, axis=0).max())
            h, w = img.shape[:2]
            x1, y1 = (int(max(0, v)) for v in c - span)
            x2, y2 = int(min(w, c[0] + span)), int(min(h, c[1] + span))
            if x2 - x1 < 16 or y2 - y1 < 16:
                return r, None
            found = self._second(img[y1:y2, x1:x2])
        except (ValueError, ArithmeticError, IndexError, RuntimeError) as e:
            self.errors.append(f"second look failed: {e}")
            return r, None
        finally:
            self.stats.seconds["second_opinion"] += time.perf_counter() - t0
        near = [(card, conf, q, p) for card, conf, q, p in found
                if np.hypot(*(q.mean(0) + (x1, y1) - c)) <= 0.3 * span]
        if not near:
            return r, None
        card, conf, q, p = max(near, key=lambda k: k[1])
        second = second_reading(r, card, conf, p, self.cfg.uncertain_below, self.game in JOKER_GAMES, stands)
        if second is None:
            return r, None
        return second, self.cal.image_to_table(q + (x1, y1)) * self.cfg.px_per_mm

    def _candidates(self, r: Reading, seat: Seat | None) -> list[tuple[str, float]]:
        """The face cards a read leaves open, likeliest first; with the shoe's hands
        known, only those the seat can still hold (renormalised over them)."""
        p = probs_dict(r.probs, r.classes)
        if not p:
            p = {r.card: r.conf}
        faces = {}
        for c, v in p.items():
            try:
                card = parse_card(c)
            except ValueError:
                continue                               # back, none
            if card.is_joker and self.game not in JOKER_GAMES:
                continue
            faces[str(card)] = float(v)
        # another seat's card to this trick lies on the table already: an unsure read of it here is
        # the card beneath seen through a pile, not this seat's card (one card is never two)
        faces = without(faces, {str(p["card"]) for p in self.trick if p["seat"] != seat})
        # a card surely read in an earlier trick of this board is in a quitted trick, not in a hand
        faces = without(faces, self.played)
        if seat is not None and self.hands is not None and self.hands.known:
            held = {c: v for c, v in faces.items() if self.hands.can_hold(seat, parse_card(c))}
            total = sum(held.values())
            if held and total > 0:
                faces = {c: v / total for c, v in held.items()}
        return sorted(faces.items(), key=lambda kv: -kv[1])[:CANDIDATES]

    def _placed(self, placed_id: Any) -> Placed | None:
        """The card the tracker holds as ``placed_id`` (None once it has left the table)."""
        return next((p for p in self.tracker.placed if p.id == placed_id), None)

    def _under(self, placed_id: Any, new: Placed) -> Placed | None:
        """The card placed as ``placed_id`` when it lies under ``new``: ``new`` covers a quarter of it
        (``LIES_OVER``; a 480p card read twice as it settles, the second outline a third of a card off
        the first), else None."""
        old = self._placed(placed_id)
        return old if old is not None and box_cover(new.box, old.box) >= LIES_OVER else None

    def _on_table(self, card: str, but: Placed | None) -> Placed | None:
        """The card already lying elsewhere on the table (one card is never two)."""
        return next((p for p in self.tracker.placed if p is not but and p.info.get("card") == card
                     and p.info.get("kind") in ("play", "expose")), None)

    def _on_rest(self, rest: Rest, frame: Frame) -> list[Event | Finding]:
        q_mm = rest.quad_view / self.cfg.px_per_mm
        cx, cy = (float(v) for v in q_mm.mean(0))
        zone = self.cfg.zone_of(q_mm, self.game)         # a card flicked half past the trick zone's edge too
        bidding = self.bidding.zone_at(cx, cy) or self.bidding.zone_over(q_mm)
        if bidding is not None and zone is None:
            zone = bidding
        if zone is None:
            self.tracker.place(rest, {"kind": "outside"})
            return []
        try:
            r, quad, crop = self.read(frame.image, rest)
        except (ValueError, ArithmeticError, IndexError) as e:   # a degenerate crop: skip this reading only
            self.errors.append(f"frame {frame.index}: cannot read the card at {cx:.0f},{cy:.0f} mm: {e}")
            return []
        card_px_mm = self.px_per_mm_at(quad)
        whole = whole_of(self._whole, r, crop, card_px_mm, SURE_BACK)   # a card seen small: its whole face too
        r = r if whole is None else with_whole_card(r, whole)
        fine = card_px_mm >= self.cfg.detection.sure_px_per_mm
        if fine and (r.card != "back" or r.conf < SURE_BACK):
            r, better = self.second_look(frame.image, quad, r, agreed(r, whole))
            if better is not None:
                quad, crop = better, self.crop_card(frame.image, better)
        r = coloured(r, crop, self.pack_colours)        # checked against its print's colour
        self.readings.append((frame.ts, zone.name, r.card, round(r.conf, 3)))
        if bidding is not None and self._bid_card(bidding, q_mm, frame, r):
            self.tracker.place(rest, {"kind": "bidding"}, quad)   # a bid card: the bidding watcher reads it
            return []
        if r.card == "back":
            self.tracker.place(rest, {"kind": "back", "zone": zone.name}, quad)
            return []
        if zone.kind in ("talong", "kitty"):
            self.tracker.place(rest, {"kind": zone.kind, "card": r.card}, quad)
            return []
        if zone.kind == "bidding":
            self.tracker.place(rest, {"kind": "bidding", "zone": zone.name}, quad)
            return []                                   # only in a bidding zone, after the auction: no event
        seat: Seat = zone.seat if zone.kind != "trick" else trick_seat(cx, cy, zone)  # type: ignore[assignment]
        uncertain = False
        try:
            card = parse_card(r.card)
            conf = r.conf
        except ValueError:
            card, conf = None, 0.0                      # "none": not a card, or a face it cannot read
        if card is not None and card.is_joker and self.game not in JOKER_GAMES:
            card, conf = None, 0.0                      # no joker in this game's pack: an unreadable face
        if r.witness is not None and card is not None:
            uncertain = True       # re-ranked by the pips (the rank, never the suit), or the second look alone
        if card is None or conf < self.cfg.min_conf:
            # The localiser (or a small card's whole face, naming it) is sure a card lies here but its face
            # cannot be read: say so, with the candidates, not a wrong card or nothing. Unsure of both: no
            # event (paper, a chip); at the table's edge (a back in a quitted trick read as nothing): none.
            r = (named := named_by_whole(r, whole)) or r
            cands = self._candidates(r, seat)
            # Read as no card, and no face likely either: a card printed on the layout, not one laid on it.
            weak = not cands or cands[0][1] < 0.05
            if (rest.conf < SURE_CARD and not named) or not cands or (weak and (zone.kind == "expose" or r.card == "none")):
                return []                               # not placed: read again if it moves
            card, conf, uncertain = parse_card(cands[0][0]), cands[0][1], True
        if uncertain or conf < self.cfg.uncertain_below:
            card, conf, uncertain = self._unsure_read(r, seat, card, conf, uncertain)
        out: list[Event | Finding] = []
        extra: dict[str, Any] = {}
        # a card surely read that already lies on the table (this seat's card to the trick, or
        # exposed): that card seen again - the shoe's "already played" does not apply to it
        again = not uncertain and conf >= self.cfg.uncertain_below and (
            self._on_table(str(card), None) is not None
            or any(p["seat"] == seat and p["card"] == card for p in self.trick))
        if self.hands is not None and self.hands.known and not uncertain and not again:
            led = None
            if zone.kind != "expose" and self.game in FOLLOW_SUIT and self.trick:
                first = self.trick[0]
                if first["seat"] != seat and not parse_card(first["card"]).is_joker:
                    led = parse_card(first["card"]).suit
            res = self.hands.resolve(seat, card, r.conf, r.probs, r.classes, led=led)
            if res.finding is not None:
                out.append(replace(res.finding, extra={**res.finding.extra, "ts": frame.ts, "source": self.source}))
            if res.fused and res.card is not None:
                extra["camera_card"] = str(card)
                card, conf = res.card, res.conf
        common: dict[str, Any] = {"conf": round(float(conf), 3), "zone": zone.name, "rest_ts": rest.rest_ts, **extra}
        # a joker is what a blurred face is most often misread as: it needs the surety of a back
        # below the resolution a sure read needs, no read is sure (docs: the resolution a table needs)
        if uncertain or not fine or conf < self.cfg.uncertain_below or (card.is_joker and conf < SURE_BACK):
            common["uncertain"] = True
            common["candidates"] = [{"card": c, "conf": round(v, 3)} for c, v in self._candidates(r, seat)]
        kind = "expose" if zone.kind == "expose" else "play"
        placed = self.tracker.place(rest, {"kind": kind, "card": str(card), "seat": str(seat)}, quad)
        old = self._on_table(str(card), placed) if "uncertain" not in common else None
        if old is not None:
            # the same card seen again in a new place (slid, or seen twice): one card, one event -
            # but an exposed card (a penalty card, a card faced) moved to the trick is played
            self.tracker.forget(old)
            for p in (p for p in self.trick if p["id"] == old.id):
                p["id"], p["gone"] = placed.id, False
            if kind != "play" or old.info.get("kind") != "expose":
                return out
        if kind == "expose":
            if str(card) in self.exposed:
                return out
            self.exposed.add(str(card))
            out.append(self._event("expose", frame, seat=seat, card=card, **common))
            return out
        mine = next((p for p in self.trick if p["seat"] == seat), None)   # a card to the trick
        if mine is not None and mine["card"] == card:
            mine["id"], mine["gone"] = placed.id, False         # the same card, moved: no new event
            return out
        was = self._under(mine["id"], placed) if mine is not None and not mine["gone"] and mine.get("unsure") \
            and "uncertain" not in common else None
        if was is not None:
            # this seat's unsure card, still settling where it lies, read surely now: the same card read
            # better takes its place in the trick, and its outline (no second card of the seat, taken back later)
            was.info, placed.info, placed = placed.info, {"kind": "read again"}, was
            self.trick.remove(mine)
            mine = None
        full, gone = len(self.trick) >= self.cfg.cards_per_trick, all(p["gone"] for p in self.trick)
        if mine is not None and not mine["gone"] and "uncertain" in common and self._under(mine["id"], placed) \
                and (not full or mine is self.trick[-1]):
            # an unsure read where this seat's card to the trick still lies (a card settling on a glossy pile,
            # read twice): that card again. A full trick's earlier card was not: the next trick has begun
            self.tracker.forget(placed)
            return out
        # every seat's card to the trick still lying (not a seat's card read twice and another seat's to
        # come): an unsure outline over two of them is the trick pushed together to be gathered, no card
        if full and not gone and "uncertain" in common and len({p["seat"] for p in self.trick}) >= len(self.trick) \
                and gathered_over(placed.box, [p.box for t in self.trick if not t["gone"]
                                               and (p := self._placed(t["id"])) is not None]):
            placed.info = {"kind": "gathering"}
            return out
        if full and gone:
            out += self._turned(frame)
        elif full or (len(self.trick) > 1 and gone):
            # a new trick began without the turn being seen (a trick gathered into a pile that still covers a
            # card's place, or gathered with a card never seen): no card of it is taken back (no retract)
            self._gathered()
        elif mine is not None and mine["gone"]:
            out.append(self._event("retract", frame, seat=seat, card=mine["card"], conf=common["conf"]))
            self.trick.remove(mine)
        self.trick.append({"seat": seat, "card": card, "id": placed.id, "gone": False, "conf": conf,
                           "unsure": "uncertain" in common})
        self.exposed.discard(str(card))
        if self.hands is not None:
            self.hands.mark_played(seat, card)
        self.bidding.close()                                     # the auction is over at the first card played
        out.append(self._event("play", frame, seat=seat, card=card, **common))
        return out

    def _unsure_read(self, r: Reading, seat: Seat, card: Any, conf: float,
                     uncertain: bool) -> tuple[Any, float, bool]:
        """An unsure read checked against the cards already on the table, as ``(card, conf, uncertain)``.

        One of its candidates already lies there (exposed, or this seat's card to the trick), at least
        half as likely as the likeliest: it is that card seen again, not a second card (a card far
        less likely is not: a 480p jack read 0.34, its whole face 0.96, was the exposed three at
        0.07).  It is another seat's card to this trick (the card beneath), or a card surely read
        in an earlier trick of the board: the read is the next likeliest candidate, still unsure."""
        known = self.exposed | {str(p["card"]) for p in self.trick if p["seat"] == seat}
        cands = self._candidates(r, seat)
        seen = [c for c, v in cands if c in known and v >= max(0.05, cands[0][1] / 2)]
        if seen:
            return parse_card(seen[0]), max(conf, self.cfg.uncertain_below), False
        if any(p["seat"] != seat and p["card"] == card for p in self.trick) or str(card) in self.played:
            if cands and cands[0][0] != str(card):
                return parse_card(cands[0][0]), cands[0][1], True
        return card, conf, uncertain

    def _gathered(self) -> None:
        """The trick gathered unseen: its cards still placed where they lay are marked ``gathered``.

        Why: a card the tracker never saw go (the winner's pile left lying across its place) would
        otherwise be taken for the same seat's next card laid there, seen again, and that card never
        read (:meth:`StabilityTracker._looks_as_placed`)."""
        for t in self.trick:
            p = None if t["gone"] else self._placed(t["id"])
            if p is not None:
                p.info["gathered"] = True
        self._quitted()

    def _quitted(self) -> None:
        """The trick is over: its cards read surely join the board's played cards (:meth:`_candidates`
        leaves them out of an unsure read: a card played once is not played again in the board)."""
        if self.game in WHOLE_PACK_GAMES:
            self.played.update(str(t["card"]) for t in self.trick if not t.get("unsure"))
        self.trick.clear()

    def _turned(self, frame: Frame) -> list[Event]:
        if not self.trick:
            return []
        self.tricks_turned += 1
        ev = self._event("trick_turned", frame, cards=[p["card"] for p in self.trick],
                         seats=[p["seat"] for p in self.trick], trick=self.tricks_turned,
                         conf=round(float(min(p["conf"] for p in self.trick)), 3))
        self._quitted()
        if self.tricks_turned % 13 == 0:
            self.bidding.reopen()                                # the board is over: the next auction
            self.played.clear()
        return [ev]

    def _on_gone(self, gone: Gone, frame: Frame) -> list[Event]:
        info = gone.placed.info
        if info.get("kind") == "expose":
            # no event: the card stays exposed until it is played or the board ends. An arm resting
            # over it looks like "gone" too, and the card seen again after is no second card.
            return []
        mine = next((p for p in self.trick if p["id"] == gone.placed.id), None)
        if mine is None:
            return []
        mine["gone"] = True
        if len(self.trick) >= self.cfg.cards_per_trick and all(p["gone"] for p in self.trick):
            return self._turned(frame)
        return []

    # -- driving -----------------------------------------------------------
    def process(self, frame: Frame) -> list[Event | Finding]:
        """One frame in; the events (and fusion findings) it completes out."""
        self.stats.frames += 1
        img = frame.image
        if img is None or not hasattr(img, "shape") or img.ndim != 3 or img.shape[0] < 16:
            return []                                            # an unreadable frame costs itself only
        if not self._calibrate(frame):
            return []
        self._maybe_recheck(frame)
        t0 = time.perf_counter()
        view = self._view(img)
        t1 = time.perf_counter()
        loc0 = self.stats.seconds["localise"]
        changes = self.tracker.update(view, frame.ts, frame.index, lambda: self.localise(view))
        t2 = time.perf_counter()
        self.stats.seconds["view"] += t1 - t0
        self.stats.seconds["track"] += t2 - t1 - (self.stats.seconds["localise"] - loc0)
        out: list[Event | Finding] = []
        if self.bidding.active:
            t3 = time.perf_counter()
            for call in self.bidding.update(view, img, self._cut_strip, frame.ts):
                self.pending_calls.append((frame.index + CALL_HOLD_FRAMES, call))
            self.stats.seconds["bidding"] += time.perf_counter() - t3
        for ch in changes:
            if isinstance(ch, Rest):
                out += self._on_rest(ch, frame)
        due = [c for c in self.pending_calls if c[0] <= frame.index]
        if due:
            self.pending_calls = [c for c in self.pending_calls if c[0] > frame.index]
            out += [self._event("call", frame, **call) for _, call in due]
        for ch in changes:
            if isinstance(ch, Gone):
                out += self._on_gone(ch, frame)
        return out

    def run(self, frames: Iterable[Frame]) -> Iterator[Event | Finding]:
        for f in frames:
            yield from self.process(f)


def output_dict(item: Event | Finding) -> dict[str, Any]:
    """JSON-ready dict for either an event or a finding."""
    return item.to_dict()
