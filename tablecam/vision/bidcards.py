"""Bidding-box cards: what the camera reads from a call laid on the table.

At a bridge tournament every call is a card from a bidding box, laid in
front of the caller in an overlapping row: each new card covers the lower
part of the one before, so only a strip at the top of every card stays in
view, and that strip carries the call (``1♣`` ... ``7NT``, ``PASS`` on green,
``X`` on red, ``XX`` on blue; boxes also hold STOP and ALERT cards). The
reader classifies such a strip, rectified to :data:`STRIP_PX`, into one of
:data:`CLASSES` with a small ONNX network trained on rendered bidding-box
designs (``tablecam.training.bidcards``; never loaded here).

A read is never forced: :func:`judge_read` marks it ``uncertain`` when the
network is not sure, or when the call could not follow the calls before it
(a bid not higher than the last, a double of one's own side), and keeps the
candidates for the operator to confirm.

>>> CLASSES[:3], CLASSES[35:], len(CLASSES)
(['1C', '1D', '1H'], ['P', 'X', 'XX', 'STOP', 'ALERT', 'none'], 41)
>>> call_possible(["1S", "P"], "1H"), call_possible(["1S", "P"], "2H"), call_possible(["1S"], "X")
(False, True, True)
>>> call_possible(["1S", "P"], "X"), call_possible(["1S", "X"], "XX"), call_possible([], "XX")
(False, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .classify import MODELS_DIR, _softmax, crops_batch, onnx_session

STRAINS = "CDHSN"
BIDS = [f"{level}{s}" for level in range(1, 8) for s in STRAINS]
CALLS = BIDS + ["P", "X", "XX"]
CLASSES = CALLS + ["STOP", "ALERT", "none"]
"""The reader's output classes: the 38 calls, the two signal cards, and not a bid card."""

CARD_MM = (45.0, 90.0)
"""A bidding-box card, width x height in millimetres (boxes vary by a few mm)."""
STRIP_MM = 22.0
"""The top of a card that stays in view in a row of calls: it carries the call."""
STRIP_PX = (96, 48)
"""The reader's input: the strip rectified to this many pixels (width, height)."""

MIDDLE_SCALE = 2.2
"""Most boxes print the call again below the strip, about this many times larger (``1♥`` 20-26 mm
tall): on the newest card of a row, which lies on top and whole, it is the call seen large."""
MIDDLE_FROM_TOP_MM = 52.7
"""How far below a card's top edge the middle of that large print lies."""
MIDDLE_CORE_MM = 40.0
"""How much of the card's width (of 45 mm) is cut around the large print: its edges stay out."""

MODEL = MODELS_DIR / "bid_card.onnx"

SURE = 0.85
"""A read at least this probable is reported as sure. Chosen on 2,500 fresh
strips of the training designs (top-1 0.966; 71% of reads sure at 0.85, 1 of
them wrong; 0.8 gave 7 wrong, 0.9 none but only 60% sure); the held-out
designs' figures, sharp and cut from low-resolution frames, are in
``bid_card.json``."""


def call_possible(before: list[str], call: str) -> bool:
    """Whether ``call`` may follow ``before`` (the calls made so far, in order) at all.

    Only what no legal auction allows counts here (a bid not above the last
    bid, a double with no opponents' bid to double, a redouble with no double
    to redouble); calls out of turn and the like are the engine's to judge.
    """
    last_bid, last_bidder, doubled, doubler = None, -1, 0, -1
    for i, c in enumerate(before):
        if c in BIDS:
            last_bid, last_bidder, doubled = c, i, 0
        elif c == "X":
            doubled, doubler = 1, i
        elif c == "XX":
            doubled = 2
    n = len(before)
    if call in BIDS:
        return last_bid is None or BIDS.index(call) > BIDS.index(last_bid)
    if call == "X":
        return last_bid is not None and doubled == 0 and (n - last_bidder) % 2 == 1
    if call == "XX":
        return doubled == 1 and (n - doubler) % 2 == 1
    return call == "P"


@dataclass(frozen=True)
class BidRead:
    """One strip read: the best class, its probability, and the runners-up."""

    call: str
    conf: float
    candidates: list[tuple[str, float]] = field(default_factory=list)
    uncertain: bool = False
    seen: float | None = None
    """How clearly the network saw a call, before the auction's prior weighed it (``conf`` when unweighed)."""

    @property
    def strength(self) -> float:
        """What decides whether a call was seen at all (the card floor, the surest of a strip's places):
        the network's own probability, never raised by the prior."""
        return self.conf if self.seen is None else self.seen

    def event_fields(self) -> dict:
        """The fields a camera ``call`` event carries for this read."""
        out: dict = {"call": self.call, "conf": round(self.conf, 3)}
        if self.uncertain:
            out["uncertain"] = True
            out["candidates"] = [c for c, _ in self.candidates]
        return out


def weigh(probs: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """The reader's class probabilities with its calls weighed by ``prior`` (a probability for each of
    :data:`CALLS`), their total kept; STOP, ALERT and ``none`` at 0. The prior says which call a card
    is, once the network has said it is a call.

    >>> p = np.zeros(len(CLASSES)); p[CLASSES.index("7S")], p[CLASSES.index("3S")] = 0.5, 0.3
    >>> prior = np.full(len(CALLS), 1.0); prior[CALLS.index("7S")] = 0.01
    >>> q = weigh(p, prior / prior.sum())
    >>> CLASSES[int(np.argmax(q))], round(float(q.sum()), 6)
    ('3S', 0.8)
    """
    n = len(CALLS)
    out = np.zeros(len(probs), np.float64)
    post = np.asarray(probs[:n], np.float64) * prior
    out[:n] = post / post.sum() * float(np.sum(probs[:n])) if post.sum() > 0 else probs[:n]
    return out


def judge_read(probs: np.ndarray, before: list[str] | None = None, sure: float = SURE,
               prior: np.ndarray | None = None) -> BidRead:
    """Turn class probabilities into a read, marked uncertain where it may be wrong.

    ``before``: the calls already made at the table, when known; a call that
    cannot follow them is never reported as sure, and the most likely call
    that can is put first among the candidates. ``prior``: how likely each
    call is at this point of the auction (:mod:`tablecam.vision.call_prior`);
    a call the network is not sure of has its calls weighed by it (a level
    seen as a few pixels: ``7S`` at 0.5 after nothing is more likely a
    ``3S`` at 0.3) and stays uncertain; its ``seen`` keeps the network's own
    probability, which alone decides whether a call was seen (the card floor).

    >>> p = np.zeros(len(CLASSES)); p[CLASSES.index("7S")], p[CLASSES.index("3S")] = 0.5, 0.3
    >>> prior = np.full(len(CALLS), 1.0); prior[CALLS.index("7S")] = 0.01
    >>> r = judge_read(p, [], prior=prior / prior.sum())
    >>> r.call, r.uncertain, r.seen, [c for c, _ in r.candidates[:2]]
    ('3S', True, 0.5, ['3S', '7S'])
    """
    read = _judged(probs, before, sure)
    if prior is None or float(np.max(probs)) >= sure or read.call not in CALLS:
        return read                  # whether a call was seen at all is the network's to say
    return replace(_judged(weigh(probs, prior), before, sure), uncertain=True, seen=read.conf)


def _judged(probs: np.ndarray, before: list[str] | None, sure: float) -> BidRead:
    order = np.argsort(-probs)
    ranked = [(CLASSES[i], float(probs[i])) for i in order[:4]]
    call, conf = ranked[0]
    uncertain = conf < sure
    if before is not None and call in CALLS and not call_possible(before, call):
        # the likeliest call that can follow is put first, and the read stays unsure
        uncertain = True
        possible = [(c, p) for c, p in ranked if c in CALLS and call_possible(before, c)]
        ranked = possible + [r for r in ranked if r not in possible]
        if possible:
            call, conf = possible[0]
    return BidRead(call, conf, ranked[:3], uncertain)


def middle_px() -> tuple[int, int]:
    """The size (width, height) the large print is cut to: the strip's scale, so its call is as large
    in the reader's input as a strip's call is (the rest of the input is padded with the card's paper).

    >>> middle_px()
    (40, 48)
    """
    per_mm = STRIP_PX[1] / (STRIP_MM * MIDDLE_SCALE)
    return round(MIDDLE_CORE_MM * per_mm), STRIP_PX[1]


def as_strip(core: np.ndarray) -> np.ndarray:
    """The large print cut at :func:`middle_px`, centred on a strip of the card's paper (its median):
    what the strip reader reads a call from.

    >>> as_strip(np.full((48, 39, 3), 200, np.uint8)).shape
    (48, 96, 3)
    """
    paper = np.median(core.reshape(-1, core.shape[-1]), axis=0).astype(core.dtype)
    out = np.empty((STRIP_PX[1], STRIP_PX[0], core.shape[-1]), core.dtype)
    out[:] = paper
    x0 = (STRIP_PX[0] - core.shape[1]) // 2
    out[:, x0:x0 + core.shape[1]] = core[: STRIP_PX[1]]
    return out


MIDDLE_SEES_A_CALL = 0.25
"""The large print's read counts only where it gives the calls together at least this much (a pass
card's large word on green reads mostly as ``none``; a hand over the card as anything)."""


def with_middle(strip: np.ndarray, middle: np.ndarray) -> np.ndarray:
    """The strip's class probabilities with its calls weighed by the large print's read of the same card.

    Why: the strip's level digit is a few frame pixels tall at 720p and a light typeface's is lost
    (the strip read ``3H`` as ``7H``, ``5H``, ``1H`` alike), while the large print's digit is about
    twice as tall. The two reads are multiplied over the calls (each read is evidence of the same
    card), the strip's total for calls is kept: whether the card is a call at all stays the strip's
    to say.

    >>> s = np.zeros(len(CLASSES)); s[CLASSES.index("7H")], s[CLASSES.index("3H")] = 0.5, 0.4
    >>> m = np.zeros(len(CLASSES)); m[CLASSES.index("3H")], m[CLASSES.index("2H")] = 0.8, 0.1
    >>> q = with_middle(s, m)
    >>> CLASSES[int(np.argmax(q))], round(float(q.sum()), 6)
    ('3H', 0.9)
    """
    n = len(CALLS)
    if float(np.sum(middle[:n])) < MIDDLE_SEES_A_CALL:
        return strip
    out = np.asarray(strip, np.float64).copy()
    post = out[:n] * np.asarray(middle[:n], np.float64)
    if post.sum() > 0:
        out[:n] = post / post.sum() * float(np.sum(strip[:n]))
    return out


def judge_pair(strip: np.ndarray, middle: np.ndarray, before: list[str] | None = None,
               prior: np.ndarray | None = None, sure: float = SURE) -> BidRead:
    """A card's strip and large print read together (:func:`with_middle`), judged as one read
    (:func:`judge_read`); sure only where the strip alone is sure of that call.

    Why: both reads are of the same card in the same frame, so their errors go together (a light
    ``4`` whose strokes H.264 took is a ``1`` in both), and their product would be surer than
    either. And the network learnt strips: how sure it is of a large print says less (a held-out
    design's large ``3S`` read ``1S`` at 0.86). The large print ranks the calls; it never vouches
    for one.

    >>> s = np.zeros(len(CLASSES)); s[CLASSES.index("1S")], s[CLASSES.index("4S")] = 0.3, 0.25
    >>> m = np.zeros(len(CLASSES)); m[CLASSES.index("1S")], m[CLASSES.index("4S")] = 0.05, 0.9
    >>> r = judge_pair(s, m)
    >>> r.call, r.uncertain
    ('4S', True)
    """
    read = judge_read(with_middle(strip, middle), before, sure, prior)
    if not read.uncertain and read.call in CLASSES and float(strip[CLASSES.index(read.call)]) < sure:
        read = replace(read, uncertain=True)
    return read


def rectify(image: np.ndarray, quad: np.ndarray, size: tuple[int, int] = STRIP_PX) -> np.ndarray:
    """Warp the part of ``image`` whose corners are ``quad`` (TL, TR, BR, BL in pixels) upright to
    ``size`` (width, height): a strip (:data:`STRIP_PX`), or a large print (:func:`middle_px`)."""
    import cv2

    w, h = size
    dst = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    m = cv2.getPerspectiveTransform(np.float32(quad), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class BidCardReader:
    """The ONNX bid-card network (``tablecam/vision/models/bid_card.onnx``)."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1) -> None:
        self.path = Path(model_path) if model_path else MODEL
        self.session = onnx_session(self.path, threads)
        self.input = self.session.get_inputs()[0].name

    def probs(self, strips: list[np.ndarray]) -> np.ndarray:
        if not strips:
            return np.zeros((0, len(CLASSES)), np.float32)
        return _softmax(self.session.run(None, {self.input: crops_batch(strips, STRIP_PX)})[0])

    def read(self, strips: list[np.ndarray], before: list[str] | None = None,
             prior: np.ndarray | None = None) -> list[BidRead]:
        """Read strips; each is judged against ``before``, the calls made before it (when known),
        and an unsure one weighed by ``prior`` (:func:`judge_read`)."""
        return [judge_read(p, before, prior=prior) for p in self.probs(strips)]

    def read_pair(self, strip: np.ndarray, middle: np.ndarray, before: list[str] | None = None,
                  prior: np.ndarray | None = None) -> BidRead:
        """A card's strip and its large print (:func:`as_strip`) read together (:func:`judge_pair`)."""
        ps, pm = self.probs([strip, middle])
        return judge_pair(ps, pm, before, prior)
