"""Camera pipeline: video frames in, ``play`` / ``expose`` / ``trick_turned`` events out.

Per frame (cheap, every frame):

1. calibrate once (ArUco corner markers, given points or a saved file);
2. warp the frame to a small top-down view of the playing area
   (:mod:`~tablecam.vision.calibrate`), half-size first so the view is
   averaged rather than aliased;
3. let the :class:`~tablecam.vision.tracker.StabilityTracker` say which
   card-sized blobs have come to rest and which known cards are gone.

Per card at rest (rare, a few times per trick):

4. cut the card out of the *full-resolution* frame, rectified to an upright
   250x350 image, and classify it (``tablecam.vision.detector.classify_card``
   by default - any ``crop -> (card, conf, probs)`` callable works);
5. check the reading against what the shoe dealt (:mod:`~tablecam.vision.fusion`);
6. turn it into an event by the zone it lies in (:mod:`~tablecam.vision.zones`).

So the classifier runs on a handful of crops per trick instead of on every
full frame; that is what keeps the pipeline above 20 frames per second on a
2-core CPU while an event still follows the card's coming to rest by
``stable_frames`` frames plus one classification.

Events carry ``ts`` (the timestamp of the frame on which the pipeline decided,
i.e. when a live system would have known), ``rest_ts`` (the first frame the
card lay still), ``source: "camera"`` and ``conf``.  The event type
``trick_turned`` (``cards``, ``seats``, ``trick``, ``conf``), registered in
:mod:`tablecam.events` as an observation: the cards of the current trick have all left
the table (turned face down or gathered).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ..cards import Seat, parse_card, parse_seat
from ..events import Event
from ..findings import Finding
from .calibrate import Calibration
from .camera import Frame
from .fusion import HandBook
from .tracker import Gone, Rest, StabilityTracker, order_quad
from .zones import CameraConfig, trick_seat


CROP_W, CROP_H = 250, 350

FOLLOW_SUIT = ("bridge", "vira", "whist")
"""Games where a player must follow the suit led (fusion prefers a card that does)."""

Classifier = Callable[[np.ndarray], Any]


@dataclass
class Reading:
    card: str
    conf: float
    probs: Any = None
    classes: list[str] | None = None


def default_classifier() -> Callable[[np.ndarray], Reading]:
    """The shipped model's card classifier (loaded on first use).

    Raises ``RuntimeError`` with a clear reason when the model is missing.
    """
    try:
        from . import detector

        det = detector.load_detector()
    except Exception as e:  # ImportError, a missing or unreadable model file (onnxruntime's own errors)
        raise RuntimeError(f"the card model is not available ({type(e).__name__}: {e})") from None

    def classify(crop: np.ndarray) -> Reading:
        card, conf, probs = det.classify_card(crop)
        return Reading(str(card), float(conf), probs)

    return classify


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


def _as_reading(r: Any) -> Reading:
    if isinstance(r, Reading):
        return r
    card, conf, *rest = r
    return Reading(str(card), float(conf), rest[0] if rest else None)


@dataclass
class PipelineStats:
    frames: int = 0
    classified: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"view": 0.0, "track": 0.0, "classify": 0.0,
                                                              "calibrate": 0.0})


class CameraPipeline:
    """Fold frames into camera events for one table.

    ``hands``: a :class:`HandBook` fed with the shoe's ``deal`` events; when
    it knows the hands, readings are fused with them (and impossible cards
    become ``camera_unexpected_card`` findings).
    """

    def __init__(self, cfg: CameraConfig | None = None, game: str = "bridge",
                 calibration: Calibration | None = None, classify: Classifier | None = None,
                 hands: HandBook | None = None, source: str = "camera") -> None:
        self.cfg = cfg or CameraConfig.load()
        self.game = game
        self.cal = calibration
        self._classify = classify
        self.hands = hands
        self.source = source
        self.tracker = StabilityTracker(self.cfg)
        self.stats = PipelineStats()
        self.trick: list[dict[str, Any]] = []        # plays of the current trick: seat, card, placed id, gone
        self.tricks_turned = 0
        self.exposed: set[str] = set()
        self._view_H: np.ndarray | None = None
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
        method = c.get("method", "aruco")
        t0 = time.perf_counter()
        try:
            if method == "points":
                self.cal = Calibration.from_points(c["image_points"], self.cfg.geometry)
            elif method == "file":
                self.cal = Calibration.load(c["file"])
            else:
                self._cal_tries += 1
                every = 1 if self._cal_tries <= int(c.get("search_frames", 100)) else 25
                if self._cal_tries % every == 0:
                    self.cal = Calibration.from_aruco(frame.image, self.cfg.geometry)
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
        every = float(c.get("recheck_s", 5.0))
        if c.get("method", "aruco") != "aruco" or every <= 0 or self.cal is None:
            return
        if frame.ts - self._last_check < every:
            return
        self._last_check = frame.ts
        t0 = time.perf_counter()
        try:
            new = Calibration.from_aruco(frame.image, self.cfg.geometry)
        except ValueError:
            return                       # markers covered just now: keep the calibration we have
        finally:
            self.stats.seconds["calibrate"] += time.perf_counter() - t0
        g = self.cfg.geometry
        corners = [g.corner_mm(i) for i in range(4)]
        old_px = self.cal.table_to_image(corners)
        drift_mm = float(np.abs(new.image_to_table(old_px) - np.array(corners)).max())
        if drift_mm < float(c.get("recheck_mm", 4.0)):
            return
        old_v = self.cal.view_matrix(self.cfg.px_per_mm)
        new_v = new.view_matrix(self.cfg.px_per_mm)
        self.tracker.moved(new_v @ np.linalg.inv(old_v))
        self.cal, self._view_H = new, None
        self.recalibrations.append((frame.ts, round(drift_mm, 1)))

    def _view(self, img: np.ndarray) -> np.ndarray:
        import cv2

        assert self.cal is not None
        if self._view_H is None:
            half = np.diag([2.0, 2.0, 1.0])              # half-size image px -> full-size px
            self._view_H = self.cal.view_matrix(self.cfg.px_per_mm) @ half
            g = self.cfg.geometry
            self._view_size = (int(round(g.width_mm * self.cfg.px_per_mm)), int(round(g.height_mm * self.cfg.px_per_mm)))
        small = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
        return cv2.warpPerspective(small, self._view_H, self._view_size, flags=cv2.INTER_LINEAR)

    # -- classification ----------------------------------------------------
    def crop_card(self, img: np.ndarray, quad_view: np.ndarray, grow_mm: float = 1.5,
                  refine: bool = True) -> np.ndarray:
        """The card under ``quad_view`` cut from the full frame, upright, 250x350.

        The view's quad is only good to a pixel of the view (2 mm); so the
        card is first cut loosely, with a margin, then its edges are found
        again in that full-resolution cut and the final crop follows them.
        """
        assert self.cal is not None
        q = np.asarray(quad_view, np.float64) / self.cfg.px_per_mm       # view px -> mm
        if refine:
            better = self._refine(img, q)
            if better is not None:
                return self._warp(img, better)
        return self._warp(img, order_quad(self.cal.table_to_image(_grow(q, grow_mm))))

    @staticmethod
    def _card_rect(mask: np.ndarray, cw_px: float, ch_px: float) -> Any:
        """Minimum-area rectangle of the largest blob, if it has a card's size."""
        import cv2

        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not cnts:
            return None
        rect = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
        short, long_ = sorted(rect[1])
        if not (0.85 * cw_px <= short <= 1.15 * cw_px and 0.85 * ch_px <= long_ <= 1.15 * ch_px):
            return None
        return rect

    def _warp(self, img: np.ndarray, src: np.ndarray, size: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
        import cv2

        w, h = size
        dst = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        M = cv2.getPerspectiveTransform(np.asarray(src, np.float32), dst)
        return cv2.warpPerspective(img, M, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)

    def _refine(self, img: np.ndarray, q_mm: np.ndarray, margin_mm: float = 5.0) -> np.ndarray | None:
        """The card's exact corners (image px), found in a loose full-resolution cut."""
        import cv2

        assert self.cal is not None
        ppm = 4.0
        cw, ch = self.cfg.card_mm
        W, H = int((cw + 2 * margin_mm) * ppm), int((ch + 2 * margin_mm) * ppm)
        src = order_quad(self.cal.table_to_image(_grow_sides(q_mm, margin_mm))).astype(np.float32)
        dst = np.array([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]], np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        cut = cv2.warpPerspective(img, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        # The card's outline: first its pale card stock (the tightest outline), else - a court card
        # whose picture fills the face - everything brighter than the table or of another colour
        # (a shadow, darker but the table's colour, is not the card). On a pile the cards below
        # join in: then only the card's own surroundings count.
        hsv = cv2.cvtColor(cut, cv2.COLOR_BGR2HSV)
        lab = cv2.cvtColor(cut, cv2.COLOR_BGR2LAB).astype(np.int16)
        b = max(3, int(margin_mm * ppm / 3))
        ring = np.zeros((H, W), bool)
        ring[:b], ring[-b:], ring[:, :b], ring[:, -b:] = True, True, True, True
        tv = max(float(np.median(hsv[..., 2][ring])), 8.0)
        pale = (hsv[..., 2] > self.cfg.white_ratio * tv) & (hsv[..., 1] < self.cfg.max_saturation)
        ref = np.median(lab[ring], axis=0)
        chroma = np.abs(lab[..., 1] - ref[1]) + np.abs(lab[..., 2] - ref[2])
        other = (lab[..., 0] > ref[0] + 30) | (chroma > 25)
        m = int(round((margin_mm - 2.0) * ppm))
        inner = np.zeros((H, W), np.uint8)
        inner[m:H - m, m:W - m] = 1
        rect = None
        for raw, opened in ((pale, False), (other, True)):
            mask = raw.astype(np.uint8)
            if opened:
                mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
            rect = self._card_rect(mask, cw * ppm, ch * ppm) or self._card_rect(mask & inner, cw * ppm, ch * ppm)
            if rect is not None:
                break
        if rect is None:
            return None
        box = cv2.boxPoints(rect).reshape(-1, 1, 2).astype(np.float64)
        back = cv2.perspectiveTransform(box, np.linalg.inv(M)).reshape(4, 2)
        return order_quad(back)

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
                if self.hands is not None:
                    self.hands.mark_played(ev.get("seat"), card)
            elif t == "trick_turned":
                self.trick.clear()
                self.tricks_turned += 1
            elif t == "expose":
                self.exposed.add(str(ev.get("card")))
            elif t == "retract":
                self.trick = [p for p in self.trick if str(p["card"]) != str(ev.get("card"))]
                if self.hands is not None:
                    self.hands.feed(ev)

    def _on_rest(self, rest: Rest, frame: Frame) -> list[Event | Finding]:
        q_mm = rest.quad_view / self.cfg.px_per_mm
        cx, cy = (float(v) for v in q_mm.mean(0))
        zone = self.cfg.zone_at(cx, cy, self.game)
        if zone is None:
            self.tracker.place(rest, {"kind": "outside"})
            return []
        try:
            r = self.classify(self.crop_card(frame.image, rest.quad_view))
        except (ValueError, ArithmeticError, IndexError) as e:   # a degenerate crop: skip this reading only
            self.errors.append(f"frame {frame.index}: cannot read the card at {cx:.0f},{cy:.0f} mm: {e}")
            return []
        self.readings.append((frame.ts, zone.name, r.card, round(r.conf, 3)))
        if r.card == "back":
            self.tracker.place(rest, {"kind": "back", "zone": zone.name})
            return []
        if r.card == "none":
            return []                                   # not a card (paper, a sleeve ...): no event
        try:
            card = parse_card(r.card)
        except ValueError:
            return []
        if r.conf < self.cfg.min_conf:
            return []                                   # not placed: a later rest may read it better
        if zone.kind in ("talong", "kitty"):
            self.tracker.place(rest, {"kind": zone.kind, "card": str(card)})
            return []
        seat: Seat = zone.seat if zone.kind != "trick" else trick_seat(cx, cy, zone)  # type: ignore[assignment]
        out: list[Event | Finding] = []
        conf = r.conf
        extra: dict[str, Any] = {}
        if self.hands is not None and self.hands.known:
            led = None
            if zone.kind != "expose" and self.game in FOLLOW_SUIT and self.trick:
                first = self.trick[0]
                if first["seat"] != seat and not parse_card(first["card"]).is_joker:
                    led = parse_card(first["card"]).suit
            res = self.hands.resolve(seat, card, r.conf, r.probs, r.classes, led=led)
            if res.finding is not None:
                res.finding.extra.update({"ts": frame.ts, "source": self.source})
                out.append(res.finding)
            if res.fused and res.card is not None:
                extra["camera_card"] = str(card)
                card, conf = res.card, res.conf
        common = {"conf": round(float(conf), 3), "zone": zone.name, "rest_ts": rest.rest_ts, **extra}
        if conf < self.cfg.uncertain_below:
            common["uncertain"] = True
        if zone.kind == "expose":
            placed = self.tracker.place(rest, {"kind": "expose", "card": str(card), "seat": str(seat)})
            if str(card) in self.exposed:
                return out
            self.exposed.add(str(card))
            out.append(self._event("expose", frame, seat=seat, card=card, **common))
            return out
        # a card to the trick
        mine = next((p for p in self.trick if p["seat"] == seat), None)
        placed = self.tracker.place(rest, {"kind": "play", "card": str(card), "seat": str(seat)})
        if mine is not None and mine["card"] == card:
            mine["id"], mine["gone"] = placed.id, False         # the same card, moved: no new event
            return out
        if len(self.trick) >= self.cfg.cards_per_trick and all(p["gone"] for p in self.trick):
            out += self._turned(frame)
        elif mine is not None and mine["gone"]:
            out.append(self._event("retract", frame, seat=seat, card=mine["card"], conf=common["conf"]))
            self.trick.remove(mine)
        elif len(self.trick) >= self.cfg.cards_per_trick:
            self.trick.clear()                                   # a new trick began without the turn being seen
        self.trick.append({"seat": seat, "card": card, "id": placed.id, "gone": False, "conf": conf})
        self.exposed.discard(str(card))
        if self.hands is not None:
            self.hands.mark_played(seat, card)
        out.append(self._event("play", frame, seat=seat, card=card, **common))
        return out

    def _turned(self, frame: Frame) -> list[Event]:
        if not self.trick:
            return []
        self.tricks_turned += 1
        ev = self._event("trick_turned", frame, cards=[p["card"] for p in self.trick],
                         seats=[p["seat"] for p in self.trick], trick=self.tricks_turned,
                         conf=round(float(min(p["conf"] for p in self.trick)), 3))
        self.trick.clear()
        return [ev]

    def _on_gone(self, gone: Gone, frame: Frame) -> list[Event]:
        info = gone.placed.info
        if info.get("kind") == "expose":
            self.exposed.discard(info.get("card", ""))
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
        changes = self.tracker.update(view, frame.ts, frame.index)
        t2 = time.perf_counter()
        self.stats.seconds["view"] += t1 - t0
        self.stats.seconds["track"] += t2 - t1
        out: list[Event | Finding] = []
        for ch in changes:
            if isinstance(ch, Rest):
                out += self._on_rest(ch, frame)
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
