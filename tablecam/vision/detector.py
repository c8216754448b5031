"""The card detector the rest of tablecam uses: localise, rectify, classify.

``load_detector().detect(image)`` returns one :class:`Detection` per visible
card, in input-image pixels, whatever the resolution.  It runs on OpenCV and
ONNX Runtime only (no torch at run time): the learned card localiser
(``card_localiser.onnx``) boxes the cards, each box is read through card
quads warped upright and :class:`~tablecam.vision.classify.CornerClassifier`
reads their corner indices, and the index localiser (``card_index.onnx``)
finds the cards that show only an index.  The steps live in one module
each: :mod:`~tablecam.vision.box_reads`, :mod:`~tablecam.vision.left_boxes`,
:mod:`~tablecam.vision.index_reads`; the settings in
:mod:`~tablecam.vision.settings` (``models/detector.json``).

The camera pipeline, which already knows where a card lies, calls
:meth:`CardDetector.classify_card` on its own rectified crop.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from .box_reads import BoxReads
from .classify import CLASSES, MODELS_DIR, CornerClassifier
from .detections import Detection, _one_per_card, _top_probs
from .index_reads import IndexReads
from .left_boxes import LeftBoxes
from .settings import DetectorSettings, load_settings

MIN_IMAGE_SIDE = 24
"""Pixels: a picture narrower than this holds no card whose index can be read."""


class CardDetector(BoxReads, LeftBoxes, IndexReads):
    """Localise-rectify-classify card detector (ONNX Runtime).

    :meth:`detect` finds the cards of one picture in this order:

    1. the card localiser's boxes, each read through several card quads
       (inscribed rectangles, edge-turned, strip and classical quads),
       boxes given to cards surest first (:meth:`_detect_in_boxes`,
       :mod:`~tablecam.vision.assign`);
    2. boxes left without a card: rectangles fitted to the image's edges
       (:meth:`_read_fitted`);
    3. the final read of each card found, through ``read_views`` corner
       windows with the pip count and the side suit as witnesses
       (:meth:`read_found`), then close reads of small blurred cards in
       the boxes still without one, read so too (:meth:`_read_closely`);
       a close read surer than another read of the same card elsewhere
       takes the card (``close_displaces``: one pack holds it once);
    4. cards seen only by their index (:meth:`_from_indexes`), each index
       window's card quads read also as laid on the image edges meeting
       near their corner (``index_fit``, :func:`~tablecam.vision.indexes.fit_corner`),
       in up to ``index_rounds`` rounds: a round that finds a card is
       followed by another with it among the cards found (:meth:`_by_index`);
    5. of two face cards each read on the other's index, or one a smaller
       card inside the other's outline, the less sure dropped
       (:mod:`~tablecam.vision.occlusion`); a back cut by the picture's
       edge dropped (``back_in_picture``).

    Every read must pass a floor: ``min_conf`` for a card found in its
    own box, higher ones (``close_conf``, ``index_floor`` ...) where the
    read is less direct, and ``min_conf_rare`` for a back or a joker, the
    codes most false cards on wood, carpet and print read as.  Without the
    learned localiser (a model directory without ``card_localiser.onnx``)
    the classical OpenCV localiser's quads are read alone, from
    ``min_conf`` 0.5.

    ``docs/detector-settings.md`` gives each setting's value and the
    measured reason for it, on the tuning sets only (never the real test
    split or the benchmark's held-out decks).
    """

    def __init__(self, model_dir: str | Path | None = None, threads: int = 1,
                 settings: DetectorSettings | None = None, **changes):
        """The detector of ``model_dir`` (default: the shipped models) on
        ``settings`` (default: the directory's ``detector.json``), each of
        ``changes`` (a setting's name and value, as ``bench/vision/tune.py``
        tries them) replacing one; a name the settings do not have is
        refused (:class:`~tablecam.vision.settings.DetectorSettings`)."""
        base = settings if settings is not None else load_settings(Path(model_dir) if model_dir else MODELS_DIR)
        self.settings = DetectorSettings.model_validate({**base.model_dump(), **changes}) if changes else base
        self._build(model_dir, threads, self.settings)

    def _build(self, model_dir: str | Path | None, threads: int, s: DetectorSettings) -> None:
        """Load the models ``s`` asks for and resolve the settings that
        default to another (``min_conf``, ``index_floor_under``)."""
        from .proposals import CardLocaliser

        self.model_dir = Path(model_dir) if model_dir else MODELS_DIR
        self.classifier = CornerClassifier(self.model_dir / "card_classifier.onnx", threads=threads)
        # the whole-card check of reads leaning to ``back`` (``backs.py``), from ``back_check`` P(back) on
        bc_path = Path(s.back_check_path) if s.back_check_path else self.model_dir / "back_check.onnx"
        if s.back_check > 0 and bc_path.exists():
            from .backs import BackCheck, BackCheckedReader

            self.classifier = BackCheckedReader(self.classifier, BackCheck(bc_path, threads=threads), low=s.back_check)
        # the learned localiser, when the model directory ships one (None: use it if present)
        self.localiser = None
        loc_path = self.model_dir / "card_localiser.onnx"
        if s.localiser or (s.localiser is None and loc_path.exists()):
            self.localiser = CardLocaliser(loc_path, threads=threads, conf=s.localiser_conf,
                                           imgsz=s.localiser_imgsz, iou=s.localiser_iou)
        # the index-window localiser, when the model directory ships one (``indexes``)
        self.indexer = None
        ix_path = self.model_dir / "card_index.onnx"
        if self.localiser is not None and s.index is not False and ix_path.exists():
            self.indexer = CardLocaliser(ix_path, threads=threads, conf=s.index_conf, imgsz=s.index_imgsz,
                                         iou=s.index_iou)
        # the classifier that reads an index window (None: card_index_reader.onnx if shipped, else the classifier)
        rd_path = Path(s.index_reader) if s.index_reader else self.model_dir / "card_index_reader.onnx"
        self.index_reader = (CornerClassifier(rd_path, threads=threads)
                             if self.indexer is not None and rd_path.exists() else self.classifier)
        # the whole-card reader, the second witness of an unsure close read (``whole_card``)
        wc_path = self.model_dir / "whole_card.onnx"
        self.whole = None
        if s.whole_card > 0 and wc_path.exists():
            from .whole_card import WholeCardReader

            self.whole = WholeCardReader(wc_path, threads=threads)
        self.classes = self.classifier.classes
        # the settings that default to another, resolved
        self.min_conf = s.min_conf if s.min_conf is not None else (0.6 if self.localiser is not None else 0.5)
        self.index_floor_under = min(s.index_floor, s.index_floor_under)

    def classify_card(self, crop_bgr: np.ndarray) -> tuple[str, float, dict[str, float]]:
        """Read an already rectified card image (upright or upside down,
        any size; resized to 250x350).  Returns (card, conf, top-k probs);
        card is ``none`` when the crop does not look like a card.  Read as
        every card found is (:meth:`read_found`: the pips count too)."""
        p = self.read_found([crop_bgr])[0]
        i = int(np.argmax(p))
        return self.classes[i], float(p[i]), _top_probs(p, self.classes)

    def read_quad(self, image_bgr: np.ndarray, quad: np.ndarray) -> tuple[str, float, bool]:
        """What one quad of a picture shows, read as a found card is
        (:meth:`read_found`): the likeliest class, its probability, and
        whether detect() would take the read (not ``none``, over its floor).

        Why: read through a card's true outline it is what detect() could
        say of that card with a perfect localiser - the classifier's share
        of a miss (:func:`~tablecam.training.evaluate.outline_reads`)."""
        from .localise import warp_card

        p = self.read_found([warp_card(image_bgr, quad)])[0]
        i = int(np.argmax(p))
        return self.classes[i], float(p[i]), self._read(p)[0] >= 0

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """All cards in a BGR image, one Detection per card."""
        from .localise import find_cards, warp_card
        from .occlusion import drop_hidden

        if image_bgr is None or image_bgr.ndim < 2 or image_bgr.size == 0:
            raise ValueError("empty image")
        if image_bgr.ndim == 2:
            import cv2

            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
        elif image_bgr.shape[2] == 4:
            image_bgr = image_bgr[:, :, :3]
        if min(image_bgr.shape[:2]) < MIN_IMAGE_SIDE:
            return []   # no readable card fits (and OpenCV's filters refuse such a picture)
        for reader in (self.classifier, self.index_reader):  # reads are remembered within one picture
            getattr(reader, "forget", lambda: None)()       # (CornerClassifier.probs)
        use_classical = self.localiser is None or self.settings.whole_image_classical
        quads = find_cards(image_bgr, max_side=self.settings.max_side, nms_iou=self.settings.candidate_iou) if use_classical else []
        if self.localiser is not None:
            found = self._detect_in_boxes(image_bgr, quads)
            if self.indexer is not None:
                found = self._by_index(image_bgr, found)
            found = drop_hidden(found, self.settings.hidden_seen, functools.partial(self._read_ends, image_bgr))
            return self._whole_backs(found, image_bgr.shape)
        h, w = image_bgr.shape[:2]
        probs = self.classifier.classify_cards([warp_card(image_bgr, q) for q in quads])
        out: list[Detection] = []
        for q, p in zip(quads, probs):
            ci, conf = self._read(p)
            if ci >= 0:
                out.append(self._detection(q, p, ci, conf, w, h))
        return self._whole_backs(self._reread(image_bgr, _one_per_card(out, self.settings.nms_iou)), image_bgr.shape)

    def _whole_backs(self, dets: list[Detection], shape: tuple[int, ...]) -> list[Detection]:
        """``dets`` without the backs cut by the picture's edge
        (:func:`~tablecam.vision.backs.cut_by_edge`, ``back_in_picture``):
        a back is told by its whole pattern alone; nor the backs longer
        than the face cards beside them (:func:`~tablecam.vision.backs.outsized`,
        ``back_size``): a pack's backs are the size of its faces."""
        from .backs import cut_by_edge, outsized

        share, ratio = self.settings.back_in_picture, self.settings.back_size
        h, w = shape[:2]
        faces = [d.quad for d in dets if d.card != "back" and d.quad is not None]

        def kept(d: Detection) -> bool:
            if d.card != "back" or d.quad is None:
                return True
            if share is not None and cut_by_edge(d.quad, w, h, share):
                return False
            return not ratio or not outsized(d.quad, faces, ratio)

        return [d for d in dets if kept(d)]

    def _read_ends(self, image_bgr: np.ndarray, dets: list[Detection]) -> list[int]:
        """Which index corner each card of ``dets`` was read from: 0 the
        top-left, 1 the bottom-right of its rectified card (one view of
        both, one network call; :func:`~tablecam.vision.occlusion.drop_hidden`)."""
        from .classify import view_probs
        from .localise import warp_card

        clf = self.classifier
        p = view_probs([warp_card(image_bgr, d.quad) for d in dets], clf.probs, clf.corner_box, clf.input_size)
        return [int(np.argmax(p[2 * i:2 * i + 2, self.classes.index(d.card)])) for i, d in enumerate(dets)]

    def _reread(self, image_bgr: np.ndarray, dets: list[Detection], quads: bool = True) -> list[Detection]:
        """The final read of each card found, through ``read_views`` corner
        windows (``CornerClassifier.classify_cards``): the candidates were
        read once each, the winners are read again more surely.  A card the
        second read calls ``none`` keeps its first read."""
        from .localise import warp_card

        if self.settings.read_views <= 1 or not dets:
            return dets
        h, w = image_bgr.shape[:2]
        probs = self.read_found([warp_card(image_bgr, d.quad) for d in dets])
        out = []
        for d, p in zip(dets, probs):
            ci, conf = self._read(p)
            out.append(self._detection(d.quad, p, ci, conf, w, h) if ci >= 0 else d)
        return _one_per_card(out, self.settings.nms_iou, quads=quads)

    def read_found(self, cards: list[np.ndarray], probs: list[np.ndarray] | None = None) -> list[np.ndarray]:
        """The final read of rectified cards found: the classifier through
        ``read_views`` corner windows, and with ``pips`` the count of the
        pips in the middle as evidence of a number card's rank
        (:func:`~tablecam.vision.pips.with_pips`, ``pips`` the weight of
        that evidence); with ``side_suits`` a read split between two suits
        of one rank is decided again by the suit at the other end of the
        top edge, where "peek-index" packs print it
        (:func:`~tablecam.vision.side_index.with_side_suits`).  ``probs``:
        the classifier's ``read_views`` reads of ``cards``, when the caller
        has them (the witnesses never change them)."""
        if probs is None:
            probs = self.classifier.classify_cards(cards, views=self.settings.read_views)
        if self.settings.pips > 0:
            from .pips import count_pips, with_pips

            probs = [with_pips(p, self.classes, count_pips(c), self.settings.pips) for p, c in zip(probs, cards)]
        if self.settings.side_suits:
            from .side_index import with_side_suits

            clf = self.classifier
            probs = with_side_suits(cards, probs, clf.probs, self.classes, clf.corner_box, clf.input_size)
        return probs

    def _read(self, p: np.ndarray) -> tuple[int, float]:
        """(class index, confidence) of one reading, or (-1, 0) when it is
        ``none`` or under its confidence floor."""
        i = int(np.argmax(p))
        if self.classes[i] == "none" or p[i] < self._floor(i, self.min_conf, self.settings.min_conf_rare):
            return -1, 0.0
        return i, float(p[i])

    def _floor(self, ci: int, common: float, rare: float) -> float:
        """The confidence a read of class ``ci`` needs: ``rare`` for a back
        or a joker (most false cards on wood, carpet and print read as
        those), else ``common``."""
        return max(common, rare) if self.classes[ci] in ("back", "JK") else common

    def _detection(self, q: np.ndarray, p: np.ndarray, ci: int, conf: float, w: int, h: int) -> Detection:
        x1, y1 = q.min(axis=0)
        x2, y2 = q.max(axis=0)
        box = (max(0.0, float(x1)), max(0.0, float(y1)), min(float(w), float(x2)), min(float(h), float(y2)))
        return Detection(self.classes[ci], conf, box, q, _top_probs(p, self.classes))


_DEFAULT: dict[str, CardDetector] = {}


def load_detector(model_dir: str | Path | None = None, threads: int = 1) -> CardDetector:
    """The shipped detector (``models/``), or one from ``model_dir``; cached."""
    key = str(model_dir or MODELS_DIR) + f"#{threads}"
    if key not in _DEFAULT:
        _DEFAULT[key] = CardDetector(model_dir, threads=threads)
    return _DEFAULT[key]


__all__ = ["Detection", "CardDetector", "load_detector", "CLASSES"]
