"""Read a rectified card from its corner indices (ONNX Runtime, no torch).

A rectified card (250x350, portrait) carries its rank-and-suit index in the
top-left corner and, turned 180 degrees, in the bottom-right one; since the
localiser cannot tell up from down, both corners are read and combined.  A
card half covered by another card is still read from its free corner.

The classes are the 52 cards, ``JK``, ``back`` (a face-down card) and
``none`` (the candidate was not a card: the localiser's false alarms).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SUITS = "SHDC"
RANKS = "AKQJT98765432"
CARD_CODES: list[str] = [s + r for s in SUITS for r in RANKS]

CLASSES: list[str] = CARD_CODES + ["JK", "back", "none"]
# Corner window in a 250x350 card, and the network's input size (w, h).
# The window takes in the whole index of packs that print it large (the
# held-out `tango` and several training decks: rank and suit reach 40% of
# the card's height); a model's JSON names the window it was trained on.
CORNER_BOX = (0, 0, 80, 144)
INPUT_W, INPUT_H = 48, 80
# the window of a model whose JSON records none (the first classifiers)
LEGACY_CORNER_BOX, LEGACY_INPUT = (0, 0, 72, 104), (48, 64)

MODELS_DIR = Path(__file__).resolve().parent / "models"
CHUNK = 32
"""Corner crops per network run (:meth:`CornerClassifier.probs`)."""
READS_KEPT = 4096
"""Corner crops whose reads :meth:`CornerClassifier.probs` remembers (by content)."""


def corner_crops(card_bgr: np.ndarray, box: tuple[int, int, int, int] = CORNER_BOX,
                 size: tuple[int, int] = (INPUT_W, INPUT_H), corners: int = 2) -> np.ndarray:
    """The index corners (window ``box``) of a rectified card as a
    (corners, 3, H, W) float32 batch in [0, 1], ``size`` = (W, H): top-left,
    and (``corners`` 2) bottom-right turned upright."""
    x0, y0, x1, y1 = box
    return crops_batch([end[y0:y1, x0:x1] for end in card_ends(card_bgr, corners)], size)


def card_ends(card_bgr: np.ndarray, ends: int = 2) -> tuple[np.ndarray, ...]:
    """A rectified card as 250x350 and the same card turned 180 degrees:
    its two ends, each upright, where an index is read.  With ``ends`` 1
    the top end alone, and a card 250 wide and shorter than 350 is taken
    as the top rows of one (:func:`~tablecam.vision.localise.warp_card`'s
    ``rows``: a card read by its top-left index alone is warped no
    further); a :class:`~tablecam.vision.localise.CardCorners` gives its
    two ends as they were warped."""
    import cv2

    from .localise import CardCorners

    if isinstance(card_bgr, CardCorners):  # its two ends warped alone
        return card_bgr.ends[:ends]
    if ends == 1 and card_bgr.shape[1] == 250 and card_bgr.shape[0] <= 350:
        return (card_bgr,)
    if card_bgr.shape[:2] != (350, 250):
        card_bgr = cv2.resize(card_bgr, (250, 350), interpolation=cv2.INTER_AREA)
    return (card_bgr, np.rot90(card_bgr, 2))[:ends]


def crops_batch(crops: list[np.ndarray], size: tuple[int, int]) -> np.ndarray:
    """BGR crops as the network's (N, 3, H, W) float32 input in [0, 1],
    each resized to ``size`` = (W, H)."""
    import cv2

    out = [cv2.resize(c, tuple(size), interpolation=cv2.INTER_AREA) for c in crops]
    # laid out as the network reads it while still bytes (a quarter of the copying of floats)
    return np.ascontiguousarray(np.stack(out).transpose(0, 3, 1, 2)).astype(np.float32) / 255.0


def combine_corners(p_tl: np.ndarray, p_br: np.ndarray) -> np.ndarray:
    """One distribution from the two corners.

    When they agree the product (both corners are evidence) is used; when
    they disagree, the corner that is surer wins: the other is usually
    covered by a neighbouring card or a finger.
    """
    a, b = int(np.argmax(p_tl)), int(np.argmax(p_br))
    if a == b:
        p = np.sqrt(p_tl * p_br)
        return p / p.sum()
    none = CLASSES.index("none")
    if a == none:
        return p_br
    if b == none:
        return p_tl
    return p_tl if p_tl[a] >= p_br[b] else p_br


def onnx_session(path: str | Path, threads: int = 1):
    """An ONNX Runtime CPU session of ``threads`` threads, quiet (errors only)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # the pool's threads sleep between runs: spinning, they take the other core from the geometry between them
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class CornerClassifier:
    """The ONNX corner-index network (``models/card_classifier.onnx``)."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1):
        path = Path(model_path) if model_path else MODELS_DIR / "card_classifier.onnx"
        if not path.exists():
            raise FileNotFoundError(f"card classifier model not found: {path}")
        self.session = onnx_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name
        meta_path = path.with_suffix(".json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        self.classes = meta.get("classes", CLASSES)
        inp = meta.get("input", {})
        self.corner_box = tuple(inp.get("corner_box", LEGACY_CORNER_BOX))
        shape = inp.get("shape")  # [3, H, W]
        self.input_size = (int(shape[2]), int(shape[1])) if shape else LEGACY_INPUT
        self._reads: dict[int, np.ndarray] = {}

    def probs(self, batch: np.ndarray) -> np.ndarray:
        """Class probabilities for a (N, 3, H, W) batch of corner crops.

        A crop read before (the same pixels: detect() reads one quad in
        several of its steps, about 100 of the 1,145 crops of a 16-card
        frame) is not run again: the network's read of a crop is the same,
        bit for bit, whatever batch it is run in, so the remembered read is
        the one a new run would give.  Crops are known by a 64-bit hash of
        their bytes (two of the ``READS_KEPT`` remembered crops sharing one
        is a chance of about 1e-12).  :meth:`forget` starts afresh (detect()
        does at each picture, so a timing of one picture read again
        measures the reads)."""
        if len(batch) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        batch = np.ascontiguousarray(batch, np.float32)
        keys = [hash(row.tobytes()) for row in batch]
        got = {k: self._reads[k] for k in keys if k in self._reads}
        new = {k: i for i, k in reversed(list(enumerate(keys))) if k not in got}
        if new:
            fresh = dict(zip(new, self.run(batch[list(new.values())])))
            if len(self._reads) + len(fresh) > READS_KEPT:  # full: start afresh, this batch's reads kept
                self._reads.clear()
            self._reads.update(fresh)
            got.update(fresh)
        return np.stack([got[k] for k in keys])

    def forget(self) -> None:
        """Drop the remembered reads (:meth:`probs`)."""
        self._reads.clear()

    def run(self, batch: np.ndarray) -> np.ndarray:
        """The network's class probabilities for a (N, 3, H, W) float32
        batch, run ``CHUNK`` crops at a time: the same logits, bit for bit,
        as one run of the whole batch, for less CPU a crop (400 crops: 1.10
        ms a crop in one run, 0.97 in runs of 32, one thread)."""
        logits = np.concatenate([self.session.run(None, {self.input_name: batch[i:i + CHUNK]})[0]
                                 for i in range(0, len(batch), CHUNK)])
        return _softmax(logits)

    def classify_cards(self, cards: list[np.ndarray], views: int = 1) -> list[np.ndarray]:
        """Combined distribution per rectified card (one network call).

        ``views`` > 1 also reads each corner through the window shifted a
        little down and right and shrunk a little (:func:`corner_views`)
        and takes the geometric mean: a small index at low resolution is
        read more surely from three samplings than from one (generated
        designs no stage trained on: top-1 0.964 -> 0.968), at ``views``
        times the cost - for the final read of a card, not for every
        candidate quad."""
        return read_cards(cards, self.probs, self.corner_box, self.input_size, views)


def corner_network(reader) -> CornerClassifier:
    """The :class:`CornerClassifier` a reader runs: the reader itself, or
    the one inside a wrapper that keeps it as ``classifier``
    (:class:`~tablecam.vision.backs.BackCheckedReader`).  Why: a bench or
    a recorder that times or keeps the network's own runs wraps this
    one's ``run``, not the wrapper's."""
    while not isinstance(reader, CornerClassifier):
        reader = reader.classifier
    return reader


def view_probs(cards: list[np.ndarray], probs, box: tuple[int, int, int, int], size: tuple[int, int],
               views: int = 1, corners: int = 2) -> np.ndarray:
    """Class probabilities of the first ``corners`` corners of each
    rectified card (top-left, then bottom-right turned upright), rows in
    card order: each corner through ``views`` windows (:func:`corner_views`)
    and the views' geometric mean.  ``probs`` is the network (a (N, 3, H,
    W) batch of corner crops -> class probabilities)."""
    ps = [probs(np.concatenate([corner_crops(c, b, size, corners) for c in cards])) for b in corner_views(box, views)]
    if len(ps) == 1:
        return ps[0]
    p = np.exp(np.mean([np.log(v + 1e-9) for v in ps], axis=0))
    return p / p.sum(axis=1, keepdims=True)


def read_cards(cards: list[np.ndarray], probs, box: tuple[int, int, int, int], size: tuple[int, int],
               views: int = 1) -> list[np.ndarray]:
    """Combined distribution per rectified card: both corners
    (:func:`view_probs`), then :func:`combine_corners`."""
    if not cards:
        return []
    p = view_probs(cards, probs, box, size, views)
    return [combine_corners(p[2 * i], p[2 * i + 1]) for i in range(len(cards))]


def corner_views(box: tuple[int, int, int, int], views: int = 3) -> list[tuple[int, int, int, int]]:
    """The corner window and up to two variants of it: shifted by 2.5% of
    its width and 2% of its height, and shrunk to 95% about its corner.

    >>> corner_views((0, 0, 80, 144))
    [(0, 0, 80, 144), (2, 3, 82, 147), (0, 0, 76, 137)]
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    dx, dy = round(0.025 * w), round(0.02 * h)
    out = [box, (x0 + dx, y0 + dy, x1 + dx, y1 + dy), (x0, y0, x0 + round(0.95 * w), y0 + round(0.95 * h))]
    return out[:max(1, views)]
