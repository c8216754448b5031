"""The card detector the rest of tablecam uses: localise, rectify, classify.

``load_detector().detect(image)`` returns one :class:`Detection` per visible
card, in input-image pixels, whatever the resolution.  It runs on OpenCV and
ONNX Runtime only (no torch at run time).  Two stages, because measured
here a detector that must learn *where* cards are from renders transfers
badly to real photographs, while classical localisation plus a corner-index
classifier reads real cards (see docs/vision-model.md):

1. :func:`tablecam.vision.localise.find_cards` finds card-shaped bright
   quadrilaterals;
2. each is warped to an upright 250x350 card and
   :class:`tablecam.vision.classify.CornerClassifier` reads both corner
   indices; candidates read as ``none`` are dropped.

The camera pipeline, which already knows where a card lies, calls
:meth:`CardDetector.classify_card` on its own rectified crop.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .classify import CLASSES, MODELS_DIR, CornerClassifier
from .proposals import box_iou as _iou
from .settings import DetectorSettings, load_settings


@dataclass
class Detection:
    """One card seen in an image.

    ``card`` is a canonical code (``SA``, ``HT``, ``JK``) or ``back`` for a
    face-down card; ``box`` is (x1, y1, x2, y2) in input-image pixels;
    ``quad`` the card's four corners (clockwise, a short edge first);
    ``probs`` the top-k card probabilities, for fusion with the shoe's
    knowledge of each hand.
    """

    card: str
    conf: float
    box: tuple[float, float, float, float]
    quad: np.ndarray | None = None
    probs: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The contract's JSON form: card, conf, box (rounded)."""
        return {"card": self.card, "conf": round(float(self.conf), 4),
                "box": [round(float(v), 1) for v in self.box]}


def _top_probs(p: np.ndarray, classes: list[str], k: int = 5) -> dict[str, float]:
    idx = np.argsort(-p)[:k]
    return {classes[i]: float(p[i]) for i in idx if classes[i] != "none"}


MIN_IMAGE_SIDE = 24
"""Pixels: a picture narrower than this holds no card whose index can be read."""


class CardDetector:
    """Localise-rectify-classify card detector (ONNX Runtime).

    :meth:`detect` finds the cards of one picture in this order:

    1. the card localiser's boxes, each read through several card quads
       (inscribed rectangles, edge-turned and classical quads), boxes
       given to cards surest first (:meth:`_detect_in_boxes`,
       :mod:`~tablecam.vision.assign`);
    2. boxes left without a card: rectangles fitted to the image's edges,
       cards under a found card (:meth:`_cards_under`), rectangles nudged
       onto an index (:mod:`~tablecam.vision.nudge`), and close reads of
       small blurred cards (:meth:`_read_closely`);
    3. backs in the back localiser's boxes (:meth:`_backs_in_back_boxes`);
    4. the final read of each card found, through ``read_views`` corner
       windows with the pip count and the side suit as witnesses
       (:meth:`read_found`);
    5. cards seen only by their index (:meth:`_from_indexes`), each index
       window's card quads read also as laid on the image edges meeting
       near their corner (``index_fit``, :func:`~tablecam.vision.indexes.fit_corner`),
       in up to ``index_rounds`` rounds: a round that finds a card is
       followed by another with it among the cards found (:meth:`_by_index`);
    6. of two face cards each read on the other's index, the less sure
       dropped (:mod:`~tablecam.vision.occlusion`).

    Every read must pass a floor: ``min_conf`` for a card found in its
    own box, higher ones (``under_conf``, ``nudge_conf``, ``index_floor``
    ...) where the read is less direct, and ``min_conf_rare`` for a back
    or a joker, the codes most false cards on wood, carpet and print read
    as.  Without the learned localiser (a model directory without
    ``card_localiser.onnx``) the classical OpenCV localiser's quads are
    read alone, from ``min_conf`` 0.5.

    Each default was chosen on the tuning sets of ``bench/vision/tune.py``,
    never on the real test split or the benchmark's held-out decks;
    ``docs/detector-settings.md`` records every choice, what it gained and
    the alternatives dropped, session by session.
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
        self._build(model_dir, threads, **self.settings.model_dump())

    def _build(self, model_dir, threads, *, min_conf: float | None, max_side: int, nms_iou: float,
                 candidate_iou: float, min_conf_rare: float, localiser: bool | None,
                 localiser_conf: float, gate_iou: float, localiser_imgsz: int | tuple[int, ...] | None,
                 localiser_iou: float, box_trim: float,
                 whole_image_classical: bool, edge_peaks: int, second_reads: int, fitted: int,
                 read_views: int, refit: bool, fallback_iou: float, under: float,
                 under_conf: float, under_conf_rare: float, nudge: int, nudge_starts: int,
                 nudge_size: float, nudge_keep: int, best_assignment: bool,
                 nudge_conf: float, nudge_skip_iou: float, avoid_iou: float,
                 nudge_fitted: int, nudge_under: float, nudge_views: int,
                 weak_conf: float | None, nudge_back_iou: float, pips: float,
                 nudge_under_starts: int, index: bool | None, index_conf: float,
                 index_floor: float, index_imgsz: int | tuple[int, ...] | None,
                 index_size: float, index_iou: float, index_card_px: float,
                 index_reader: str | Path | None, index_floor_under: float,
                 index_under_share: float, index_floor_open: float, close_conf: float,
                 close_quads: int, back_check: float, back_check_path: str | Path | None,
                 back_check_faces: float, back_check_veto: float, back_boxes: float,
                 back_boxes_new: float, back_boxes_any_size: bool, back_boxes_conf: float | None,
                 back_boxes_fitted: int | None, back_boxes_past_found: bool,
                 back_boxes_under: float | None, back_boxes_under_iou: float,
                 back_boxes_found_iou: float, back_boxes_check: float,
                 back_boxes_siblings: bool,
                 back_boxes_oriented: bool,
                 sibling_turn: float, sibling_shift: float,
                 hidden_seen: float,
                 side_suits: bool, index_fit: bool, index_fit_shift: float,
                 index_fit_reach: float, index_rounds: int):
        """Load the models and take each setting (one keyword a setting, all of
        :class:`~tablecam.vision.settings.DetectorSettings`)."""
        from .proposals import CardLocaliser

        self.model_dir = Path(model_dir) if model_dir else MODELS_DIR
        self.classifier = CornerClassifier(self.model_dir / "card_classifier.onnx", threads=threads)
        # the whole-card check of reads leaning to ``back`` (``backs.py``), from ``back_check`` P(back) on
        bc_path = Path(back_check_path) if back_check_path else self.model_dir / "back_check.onnx"
        if back_check > 0 and bc_path.exists():
            from .backs import BackCheck, BackCheckedReader

            self.classifier = BackCheckedReader(self.classifier, BackCheck(bc_path, threads=threads), low=back_check,
                                                face_below=back_check_faces, veto=back_check_veto)
        # the learned localiser, when the model directory ships one (None: use it if present)
        self.localiser = None
        loc_path = self.model_dir / "card_localiser.onnx"
        if localiser or (localiser is None and loc_path.exists()):
            self.localiser = CardLocaliser(loc_path, threads=threads, conf=min(localiser_conf, weak_conf or 1.0),
                                           imgsz=localiser_imgsz, iou=localiser_iou)
        # the second localiser, trained with more face-down cards: its new boxes are searched for backs
        self.back_localiser = None
        bl_path = self.model_dir / "card_back_localiser.onnx"
        if self.localiser is not None and back_boxes > 0 and bl_path.exists():
            self.back_localiser = CardLocaliser(bl_path, threads=threads,
                                                conf=localiser_conf if back_boxes_conf is None else back_boxes_conf,
                                                imgsz=self.localiser.sizes, iou=localiser_iou)
        self.back_boxes = back_boxes
        self.back_boxes_new = back_boxes_new
        self.back_boxes_any_size = back_boxes_any_size
        self.back_boxes_fitted = fitted if back_boxes_fitted is None else back_boxes_fitted
        self.back_boxes_past_found = back_boxes_past_found
        self.back_boxes_under = back_boxes if back_boxes_under is None else back_boxes_under
        self.back_boxes_under_iou = back_boxes_under_iou
        self.back_boxes_found_iou = back_boxes_found_iou
        self.back_boxes_check = back_boxes_check
        self.back_boxes_siblings = back_boxes_siblings
        self.back_boxes_oriented = back_boxes_oriented
        self.sibling_turn = sibling_turn
        self.sibling_shift = sibling_shift
        self.hidden_seen = hidden_seen
        self.side_suits = side_suits
        self.index_fit = index_fit
        self.index_fit_shift = index_fit_shift
        self.index_fit_reach = index_fit_reach
        self.index_rounds = index_rounds
        # the index-window localiser, when the model directory ships one (``indexes``)
        self.indexer = None
        ix_path = self.model_dir / "card_index.onnx"
        if self.localiser is not None and index is not False and ix_path.exists():
            self.indexer = CardLocaliser(ix_path, threads=threads, conf=index_conf, imgsz=index_imgsz, iou=index_iou)
        # the classifier that reads an index window (None: card_index_reader.onnx if shipped, else the classifier)
        rd_path = Path(index_reader) if index_reader else self.model_dir / "card_index_reader.onnx"
        self.index_reader = (CornerClassifier(rd_path, threads=threads)
                             if self.indexer is not None and rd_path.exists() else self.classifier)
        self.index_floor = index_floor
        self.index_floor_under = min(index_floor, index_floor_under)
        self.index_under_share = index_under_share
        self.index_floor_open = index_floor_open
        self.close_conf = close_conf
        self.close_quads = close_quads
        self.index_card_px = index_card_px
        self.index_size = index_size
        # boxes scored from weak_conf up to localiser_conf are read only by nudging
        self.localiser_conf = localiser_conf
        self.second_reads = second_reads
        self.fitted = fitted
        self.refit = refit
        self.fallback_iou = fallback_iou
        self.under = under
        self.under_conf = under_conf
        self.under_conf_rare = under_conf_rare
        self.nudge = nudge
        self.nudge_starts = nudge_starts
        self.nudge_size = nudge_size
        self.nudge_keep = nudge_keep
        self.best_assignment = best_assignment
        self.nudge_conf = nudge_conf
        self.nudge_skip_iou = nudge_skip_iou
        self.avoid_iou = avoid_iou
        self.nudge_fitted = nudge_fitted
        self.nudge_under = nudge_under
        self.nudge_views = nudge_views
        self.nudge_back_iou = nudge_back_iou
        self.pips = pips
        self.nudge_under_starts = nudge_under_starts
        self.read_views = read_views
        self.gate_iou = gate_iou
        self.edge_peaks = edge_peaks
        self.box_trim = box_trim
        self.whole_image_classical = whole_image_classical
        self.classes = self.classifier.classes
        self.min_conf = min_conf if min_conf is not None else (0.6 if self.localiser is not None else 0.5)
        self.max_side = max_side
        self.nms_iou = nms_iou
        self.candidate_iou = candidate_iou
        self.min_conf_rare = min_conf_rare

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
        use_classical = self.localiser is None or self.whole_image_classical
        quads = find_cards(image_bgr, max_side=self.max_side, nms_iou=self.candidate_iou) if use_classical else []
        if self.localiser is not None:
            found = self._reread(image_bgr, self._detect_in_boxes(image_bgr, quads), quads=False)
            if self.indexer is not None:
                found = self._by_index(image_bgr, found)
            return drop_hidden(found, self.hidden_seen, functools.partial(self._read_ends, image_bgr))
        h, w = image_bgr.shape[:2]
        probs = self.classifier.classify_cards([warp_card(image_bgr, q) for q in quads])
        out: list[Detection] = []
        for q, p in zip(quads, probs):
            ci, conf = self._read(p)
            if ci >= 0:
                out.append(self._detection(q, p, ci, conf, w, h))
        return self._reread(image_bgr, _one_per_card(out, self.nms_iou))

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

        if self.read_views <= 1 or not dets:
            return dets
        h, w = image_bgr.shape[:2]
        probs = self.read_found([warp_card(image_bgr, d.quad) for d in dets])
        out = []
        for d, p in zip(dets, probs):
            ci, conf = self._read(p)
            out.append(self._detection(d.quad, p, ci, conf, w, h) if ci >= 0 else d)
        return _one_per_card(out, self.nms_iou, quads=quads)

    def _by_index(self, image_bgr: np.ndarray, found: list[Detection]) -> list[Detection]:
        """``found`` and the cards seen only by their index, in up to
        ``index_rounds`` rounds of :meth:`_from_indexes`.  A card a round
        finds changes what the next one looks for: the usual card's size,
        so the size the index localiser sees the picture at
        (:meth:`_index_sizes`) and the windows it gives, which cards are
        still to find, and the found cards an unsure read may lie under
        (``index_under_share``).  In the tuning fans an ace and a three of
        spades a first round missed showed their index to the second
        (docs/detector-settings.md, nineteenth session).  A round at the
        size of the one before reuses its windows' reads."""
        reads: dict = {}
        for _ in range(max(1, self.index_rounds)):
            new = self._from_indexes(image_bgr, found, reads)
            if not new:
                break
            found = found + new
        return found

    def _from_indexes(self, image_bgr: np.ndarray, found: list[Detection],
                      memo: dict | None = None) -> list[Detection]:
        """Cards seen only by their index (``card_index.onnx``): each index
        window's card quads are read (:meth:`_index_reads`), and a sure read
        (``index_floor``) of a card not yet found, whose quad is not one
        found already and whose width is within ``index_size`` of the usual
        card's, is a new card.  ``memo`` keeps the reads by input size for
        the next round (:meth:`_by_index`)."""
        h, w = image_bgr.shape[:2]
        sizes = self._index_sizes(found, w, h)
        memo = {} if memo is None else memo
        if sizes not in memo:
            memo[sizes] = self._index_reads(image_bgr, sizes)
        quads, probs = memo[sizes]
        if not quads:
            return []
        cover = [d.quad for d in found if d.quad is not None]
        reads = []
        for q, p in zip(quads, probs):
            ci = int(np.argmax(p))
            if self.classes[ci] not in ("none", "back") and p[ci] >= self._floor(ci, self.index_floor_under,
                                                                                  self.min_conf_rare):
                reads.append((float(p[ci]), ci, q, p))
        unsure = [r for r in reads if r[0] < self.index_floor]
        # an unsure read stands under found cards or clear of them; partly on one it is mostly that card's pips
        dropped = {id(r) for r, share in zip(unsure, _covered_share([r[2] for r in unsure], cover, w, h))
                   if not (share >= self.index_under_share or (share <= OPEN_SHARE and r[0] >= self.index_floor_open))}
        reads = [r for r in reads if id(r) not in dropped]
        width = float(np.median([_short_side(q) for q in cover])) if cover else None
        have, placed, new = {d.card for d in found}, list(found), []
        for conf, ci, q, p in sorted(reads, key=lambda r: -r[0]):
            card = self.classes[ci]
            if self._new_card(card, q, have, placed, width, size=self.index_size):
                d = self._detection(q, p, ci, conf, w, h)
                new.append(d)
                placed.append(d)
                have.add(card)
        return new

    def _index_reads(self, image_bgr: np.ndarray, sizes: tuple[int, ...] | None
                     ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The card quads of the index windows the index localiser gives at
        ``sizes``, and their reads: each window gives two card quads
        (:func:`~tablecam.vision.indexes.card_quads`), with ``index_fit``
        each also laid on the image edges meeting near its corner
        (:func:`~tablecam.vision.indexes.fit_corner`: a window a few pixels
        off halves a small index's read)."""
        from .indexes import card_quads, fit_corner, read_index

        wins = [q for _, _, q in self.indexer.proposals(image_bgr, sizes) if q is not None]
        if not wins:
            return [], []
        quads = [cq for win in wins for cq in card_quads(win)]
        if self.index_fit:
            # each card quad also laid on the image edges meeting near its corner (indexes.fit_corner)
            quads += [f for f in (fit_corner(image_bgr, q, shift=self.index_fit_shift, reach=self.index_fit_reach)
                                  for q in quads) if f is not None]
        rd = self.index_reader
        probs = read_index(image_bgr, quads, rd.probs, rd.corner_box, rd.input_size, views=self.read_views,
                           side_classes=self.classes if self.side_suits else None)
        return quads, list(probs)

    def _index_sizes(self, found: list[Detection], w: int, h: int) -> tuple[int, ...] | None:
        """The index localiser's input size for this picture: the one that
        shows the cards found at ``index_card_px`` tall, the size its
        training scenes showed them (a card is 43-132 px there), so an
        index is as big to it in a close-up photo as in a wide table view;
        None (the model's own sizes) when nothing was found yet or
        ``index_card_px`` is 0.

        >>> from tablecam.vision.nudge import card_quad
        >>> det = CardDetector.__new__(CardDetector)
        >>> det.index_card_px = 100.0
        >>> cards = [Detection("S7", 0.9, (0, 0, 100, 140), card_quad((50.0, 70.0, 100.0, 0.0)))]
        >>> det._index_sizes(cards, 1280, 720), det._index_sizes([], 1280, 720)
        ((928,), None)
        """
        tall = [max(np.hypot(*(d.quad[1] - d.quad[0])), np.hypot(*(d.quad[2] - d.quad[1])))
                for d in found if d.quad is not None]
        if not tall or self.index_card_px <= 0:
            return None
        size = max(w, h) * self.index_card_px / float(np.median(tall))
        return (int(min(1600, max(320, round(size / 32) * 32))),)

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
            probs = self.classifier.classify_cards(cards, views=self.read_views)
        if self.pips > 0:
            from .pips import count_pips, with_pips

            probs = [with_pips(p, self.classes, count_pips(c), self.pips) for p, c in zip(probs, cards)]
        if self.side_suits:
            from .side_index import with_side_suits

            clf = self.classifier
            probs = with_side_suits(cards, probs, clf.probs, self.classes, clf.corner_box, clf.input_size)
        return probs

    def _read(self, p: np.ndarray) -> tuple[int, float]:
        """(class index, confidence) of one reading, or (-1, 0) when it is
        ``none`` or under its confidence floor."""
        i = int(np.argmax(p))
        if self.classes[i] == "none" or p[i] < self._floor(i, self.min_conf, self.min_conf_rare):
            return -1, 0.0
        return i, float(p[i])

    def _floor(self, ci: int, common: float, rare: float) -> float:
        """The confidence a read of class ``ci`` needs: ``rare`` for a back
        or a joker (most false cards on wood, carpet and print read as
        those), else ``common``."""
        return max(common, rare) if self.classes[ci] in ("back", "JK") else common

    def _detect_in_boxes(self, image_bgr: np.ndarray, classical: list[np.ndarray]) -> list[Detection]:
        """One reading per box of the learned localiser.

        Each box is read through several quads - the card rectangles
        inscribed in it (:func:`~tablecam.vision.proposals.box_quads`), the
        classical localiser's quads that fit it, and those the classical
        localiser finds in a crop around the box alone (a local contrast
        threshold separates a card from carpet where a whole-image one does
        not) - and the surest read wins.  The localiser's own NMS has
        already made one box per card, so cards of a fanned hand, which
        overlap more than any quad NMS would allow, stay apart.  Classical
        quads that fit no box are read too when ``gate_iou`` is 0 (a card
        the localiser missed), otherwise dropped.

        Where cards overlap, two more steps (``fitted``, ``second_reads``):
        a box nothing could be read in is read again through the card
        rectangles lying best on the image's edges at any turn
        (:func:`~tablecam.vision.proposals.fitted_quads`, at the picture's
        usual card size), and a box whose surest read is the card another
        box read surer (it took in a fanned neighbour's index) falls back to
        its next card (:meth:`_assign`).
        """
        from .localise import warp_card
        from .proposals import (box_corners, box_quads, box_variants, edge_angles, local_quads,
                                strip_quads, turned_quads)

        h, w = image_bgr.shape[:2]
        every = self.localiser.proposals(image_bgr)
        props = [r for r in every if r[1] >= self.localiser_conf]
        weak = [r for r in every if r[1] < self.localiser_conf]
        boxes = [b for b, _, _ in props]
        # the cards of one picture are about one size: the median card that fits a box
        widths = [_short_side(q) for b in boxes for q in box_quads(b)[:1]]
        width = float(np.median(widths)) if widths and self.fitted else None
        fit_cache: dict = {}  # each box's scored fitted rectangles: the steps below read some boxes twice
        cand_quads: list[np.ndarray] = []
        owner: list[int] = []  # box index per candidate, -1 for a classical quad outside every box
        for bi, (b, _, oq) in enumerate(props):
            variants = box_variants(b, self.box_trim) if self.box_trim > 0 else [b]
            own = [oq] if oq is not None else []  # an oriented-box model's own quad
            strip = oq if oq is not None else box_corners(b)
            turned = [q for a in (edge_angles(image_bgr, b, self.edge_peaks) if self.edge_peaks else [])
                      for q in turned_quads(b, a)]
            for q in (own + [q for v in variants for q in box_quads(v)] + turned + strip_quads(strip)
                      + local_quads(image_bgr, b)):
                cand_quads.append(q)
                owner.append(bi)
        for q in classical:
            qb = (*q.min(axis=0), *q.max(axis=0))
            ious = [_iou(qb, b) for b in boxes]
            best = int(np.argmax(ious)) if ious else -1
            if best >= 0 and ious[best] >= 0.6:
                cand_quads.append(q)
                owner.append(best)
            elif self.gate_iou <= 0 and (best < 0 or ious[best] < 0.3):
                cand_quads.append(q)
                owner.append(-1)
        probs = self.classifier.classify_cards([warp_card(image_bgr, q) for q in cand_quads])
        # per box, its surest read of each card (a box may take in a neighbour's index too)
        reads_of_box: dict[int, dict[int, tuple[float, np.ndarray, np.ndarray]]] = {}
        loose: list[Detection] = []
        for q, p, bi in zip(cand_quads, probs, owner):
            ci, conf = self._read(p)
            if ci < 0:
                continue
            if bi < 0:
                loose.append(self._detection(q, p, ci, conf, w, h))
            else:
                _keep_surest(reads_of_box, bi, ci, conf, q, p)
        if self.fitted:
            # boxes nothing was read in: the rectangles lying best on the image's edges
            self._read_fitted(image_bgr, props, [bi for bi in range(len(props)) if bi not in reads_of_box],
                              width, reads_of_box, cache=fit_cache)
        found = self._assign(reads_of_box, w, h)
        if self.fitted and self.refit:
            # boxes left without a card (every card they read is another box's): read them
            # through the fitted rectangles apart from the cards found, then assign again
            left = [bi for bi in reads_of_box if bi not in found]
            if left:
                self._read_fitted(image_bgr, props, left, width, reads_of_box,
                                  avoid=[d.quad for d in found.values()], cache=fit_cache)
                found = self._assign(reads_of_box, w, h)
        dets = list(found.values())
        if self.fitted and self.under:
            dets += self._cards_under(image_bgr, props, found, fit_cache)
        if self.nudge:
            dets += self._nudged(image_bgr, props + weak, found, dets, reads_of_box, fit_cache)
        if self.close_conf:
            dets += self._read_closely(image_bgr, props, found, dets, cand_quads, probs, owner)
        if self.back_localiser is not None:
            dets += self._backs_in_back_boxes(image_bgr, props, dets)
        return _one_per_card(dets + loose, self.nms_iou, quads=False)

    def _backs_in_back_boxes(self, image_bgr: np.ndarray, props: list, dets: list[Detection]) -> list[Detection]:
        """Backs in the back localiser's boxes.

        The card localiser, trained where one card in ten lay face down,
        leaves some backs without a box (a lone back on a checkered
        cloth), and a back under a fanned or piled face card is read
        through its box as that card again.  The back localiser
        (``card_back_localiser.onnx``, localiser stage 4, trained with 35%
        of the cards face down) boxes them, but as the only localiser it
        added false face cards, so its boxes are searched for backs only.
        A box overlapping a card found by more than
        ``back_boxes_found_iou`` is that card and is passed over (with
        ``back_boxes_new`` under 1, so is one a card-localiser box matches
        by more than that).  The rest are read through the box's own quad
        when the model gives oriented boxes (``back_boxes_oriented``; the
        shipped stage 4 gives axis-aligned ones, the oriented stage 5 did
        not find more backs), the rectangles inscribed in the box, the
        local quads, the fitted ones and, in a box on a found face card,
        that card's siblings (:meth:`_face_under`, :meth:`_siblings`),
        as a found card is read (with the back check); with ``back_boxes_check``
        only the rectangles the back check alone gives that P(back) are
        read (a third of the step's cost; the same cards).  With
        ``back_boxes_past_found`` the reads of face cards already found are
        passed over - a back half under a found card shows that card's
        index through some of its rectangles - and the box's surest other
        read must be a back of ``back_boxes`` (on open table, where a
        flyer or wood grain reads 0.93) or ``back_boxes_under`` (a box
        overlapping a found face card by ``back_boxes_under_iou``).  It
        is placed as a new back (:meth:`_place_new`; with
        ``back_boxes_any_size`` of any width, since the box, not a nudged
        guess, gave its size)."""
        from .localise import warp_card
        from .proposals import box_quads, fitted_quads, local_quads

        kept = [(b, q) for b, _, q in self.back_localiser.proposals(image_bgr)
                if not any(_iou(b, p[0]) > self.back_boxes_new for p in props)
                and not any(_iou(b, d.box) > self.back_boxes_found_iou for d in dets)]
        if not kept:
            return []
        boxes = [b for b, _ in kept]
        # an oriented-box model says how the card lies: its quad is the card's own outline
        oriented = [[q] if q is not None and self.back_boxes_oriented else [] for _, q in kept]
        width = _usual_width(dets)
        under = [self._face_under(b, dets) for b in boxes]
        quads = [(bi, q) for bi, b in enumerate(boxes)
                 for q in oriented[bi] + box_quads(b) + local_quads(image_bgr, b)
                 + (fitted_quads(image_bgr, b, top=self.back_boxes_fitted, width=width)
                    if self.back_boxes_fitted else [])
                 + self._siblings(b, under[bi])]
        cards = [warp_card(image_bgr, q) for _, q in quads]
        check = getattr(self.classifier, "check", None)
        looked = check is not None and bool(quads) and self.back_boxes_check > 0
        said = check.probs(cards) if looked else None
        if self.back_boxes_check > 0 and said is not None:
            keep = [i for i, b in enumerate(said[:, check.classes.index("back")]) if b >= self.back_boxes_check]
            quads, cards = [quads[i] for i in keep], [cards[i] for i in keep]
        back = self.classes.index("back")
        found = {self.classes.index(d.card) for d in dets if d.card != "back"} if self.back_boxes_past_found else set()
        # the box's surest card must be a back (a degenerate box gives no rectangle, so no read), of the
        # floor under a found face card or the one on open table
        best = {bi: r for bi, r in self._surest_reads(image_bgr, quads, lambda ci: 2.0 if ci in found else 0.0,
                                                      cards).items()
                if r[1] == back and r[0] >= (self.back_boxes_under if under[bi] is not None else self.back_boxes)}
        h, w = image_bgr.shape[:2]
        return self._place_new(best, dets, None if self.back_boxes_any_size else width, w, h)

    def _face_under(self, box, dets: list[Detection]) -> Detection | None:
        """The found face card ``box`` overlaps most, when by
        ``back_boxes_under_iou`` or more: the box is then a back under a
        fanned or piled card (floor ``back_boxes_under``, not
        ``back_boxes``; that card's siblings are read)."""
        near = max(((_iou(box, d.box), i) for i, d in enumerate(dets) if d.card != "back"), default=(0.0, -1))
        return dets[near[1]] if near[0] >= self.back_boxes_under_iou else None

    def _siblings(self, box, card: Detection | None) -> list[np.ndarray]:
        """With ``back_boxes_siblings``, cards the size of the found face
        ``card`` the box lies under (:meth:`_face_under`), turned a little
        from it and centred on the box
        (:func:`~tablecam.vision.proposals.sibling_quads`)."""
        from .proposals import sibling_quads

        if not self.back_boxes_siblings or card is None or card.quad is None:
            return []
        t = self.sibling_turn
        return sibling_quads(box, card.quad, turns=(-t, 0.0, t) if t else (0.0,), shift=self.sibling_shift)

    def _read_closely(self, image_bgr: np.ndarray, props: list, found: dict[int, Detection],
                      dets: list[Detection], cand_quads: list[np.ndarray], probs: list[np.ndarray],
                      owner: list[int]) -> list[Detection]:
        """Cards in boxes still without one, read as a found card is read.

        A candidate quad is read once through one corner window and must
        reach ``min_conf``; a small or blurred index (a card 100 px wide
        on a 1280x720 frame) reads 0.35-0.55 that way and 0.87 through
        ``read_views`` windows and its pip count.  So each box that no
        card found covers (box IoU ``nudge_skip_iou``) has its
        ``close_quads`` quads that looked most like a card read again as
        :meth:`read_found` reads, and its surest card stands at
        ``close_conf`` (``under_conf_rare`` for a back or a joker) when it
        is a new card (:meth:`_new_card`)."""
        left = {bi for bi in range(len(props)) if bi not in found
                and not any(_iou(props[bi][0], d.box) > self.nudge_skip_iou for d in dets)}
        if not left:
            return []
        none = self.classes.index("none")
        likeliest: dict[int, list[tuple[float, np.ndarray]]] = {}
        for q, p, bi in zip(cand_quads, probs, owner):
            if bi in left:
                likeliest.setdefault(bi, []).append((1.0 - float(p[none]), q))
        quads = [(bi, q) for bi, qs in likeliest.items()
                 for _, q in sorted(qs, key=lambda t: -t[0])[:self.close_quads]]
        best = self._surest_reads(image_bgr, quads, lambda ci: self._floor(ci, self.close_conf, self.under_conf_rare))
        h, w = image_bgr.shape[:2]
        width = _usual_width(dets)
        return self._place_new(best, dets, width, w, h)

    def _surest_reads(self, image_bgr: np.ndarray, quads: list[tuple[int, np.ndarray]], floor,
                      cards: list[np.ndarray] | None = None,
                      probs: list[np.ndarray] | None = None) -> dict[int, tuple[float, int, np.ndarray, np.ndarray]]:
        """Each box's surest card among ``quads`` ((box, quad) pairs), read
        as a found card is read (:meth:`read_found`), of the reads at least
        ``floor(class)``: box -> (conf, class, quad, probs).  ``cards``: the
        quads already rectified, and ``probs`` their classifier reads, when
        the caller has them (:meth:`read_found`)."""
        from .localise import warp_card

        best: dict[int, tuple[float, int, np.ndarray, np.ndarray]] = {}
        if not quads:
            return best
        if cards is None:
            cards = [warp_card(image_bgr, q) for _, q in quads]
        for (bi, q), p in zip(quads, self.read_found(cards, probs)):
            ci, conf = self._read(p)
            if ci >= 0 and conf >= floor(ci) and conf > best.get(bi, (0.0,))[0]:
                best[bi] = (conf, ci, q, p)
        return best

    def _place_new(self, best: dict[int, tuple[float, int, np.ndarray, np.ndarray]], dets: list[Detection],
                   width: float | None, w: int, h: int) -> list[Detection]:
        """The reads of ``best`` (box -> (conf, class, quad, probs)), surest
        first, that are new cards beside ``dets`` and each other
        (:meth:`_new_card`): a face card once, backs as many as lie apart."""
        have = {d.card for d in dets if d.card != "back"}
        out: list[Detection] = []
        for conf, ci, q, p in sorted(best.values(), key=lambda t: -t[0]):
            if not self._new_card(self.classes[ci], q, have, dets + out, width):
                continue
            if self.classes[ci] != "back":
                have.add(self.classes[ci])
            out.append(self._detection(q, p, ci, conf, w, h))
        return out

    def _read_fitted(self, image_bgr: np.ndarray, props: list, boxes: list[int], width: float | None,
                     reads_of_box: dict, avoid: list[np.ndarray] | None = None,
                     widths: dict[int, float] | None = None, cache: dict | None = None) -> None:
        """Read boxes ``boxes`` through their edge-fitted card rectangles (of
        ``widths[box]`` or ``width``, apart from the quads ``avoid``), noting each read."""
        from .localise import warp_card
        from .proposals import fitted_quads

        extra = [(bi, q) for bi in boxes
                 for q in fitted_quads(image_bgr, props[bi][0], top=self.fitted,
                                       width=(widths or {}).get(bi, width), avoid=avoid, avoid_iou=self.avoid_iou,
                                       cache=cache)]
        if not extra:
            return
        for (bi, q), p in zip(extra, self.classifier.classify_cards([warp_card(image_bgr, q) for _, q in extra])):
            ci, conf = self._read(p)
            if ci >= 0:
                _keep_surest(reads_of_box, bi, ci, conf, q, p)

    def _cards_under(self, image_bgr: np.ndarray, props: list, found: dict[int, Detection],
                     cache: dict | None = None) -> list[Detection]:
        """Cards under a card found, in the same localiser box.

        The localiser may put one box round a pile or a fanned hand; the
        top card is read, the cards under it show a strip or a corner
        inside the box beyond it.  Where a box reaches well beyond its card
        (their IoU under ``under``), the rectangles of that card's size
        lying best on the edges, apart from every card found, are read; a
        card no box has yet is reported when read surer than
        ``under_conf`` (``under_conf_rare`` for a back or a joker: a
        rectangle laid across a card's pips read as a joker was the one
        false card this step added on scenes with the cards apart)."""
        h, w = image_bgr.shape[:2]
        boxes = [bi for bi, d in found.items() if _iou(props[bi][0], d.box) < self.under]
        if not boxes:
            return []
        reads: dict = {}
        self._read_fitted(image_bgr, props, boxes, None, reads, avoid=[d.quad for d in found.values()],
                          widths={bi: _short_side(found[bi].quad) for bi in boxes}, cache=cache)
        have = {d.card for d in found.values() if d.card != "back"}
        out = []
        for bi, r in reads.items():
            for ci, (conf, q, p) in sorted(r.items(), key=lambda t: -t[1][0]):
                if self.classes[ci] not in have and conf >= self._floor(ci, self.under_conf, self.under_conf_rare):
                    have.add(self.classes[ci])
                    out.append(self._detection(q, p, ci, conf, w, h))
                    break
        return out

    def _nudged(self, image_bgr: np.ndarray, props: list, found: dict[int, Detection], dets: list[Detection],
                reads_of_box: dict, cache: dict | None = None) -> list[Detection]:
        """Cards in the boxes still without one, through nudged rectangles.

        Each box left is read again from up to ``nudge_starts`` rectangles
        (those inscribed in it, then the quads of its surest reads), each
        nudged ``nudge`` rounds (:func:`~tablecam.vision.nudge.nudge`)
        towards more of a card not yet found, its box still the localiser's
        (IoU 0.6 or more).  A box's surest card is reported when read surer
        than ``nudge_conf`` (``under_conf_rare`` for a back or a joker), if
        no card has it, its rectangle overlaps no card found by more than
        ``fallback_iou``, and its width is within ``nudge_size`` of the
        cards found (cards of one picture are about one size: a rectangle
        grown over a pile read a four of clubs in a pile of nines).  Boxes
        overlapping a card found by more than ``nudge_skip_iou`` are that
        card boxed twice and are not nudged.

        A box that has its card but reaches beyond it (their IoU under
        ``nudge_under``: a pile boxed as one card) is nudged too, from the
        rectangles of that card's size fitted apart from the cards found,
        for a face card under it (a back there is the found card seen
        again, a joker a picture misread).  Every winner is read again
        through ``nudge_views`` corner windows, as the final read will be,
        and must stay above its floor (reads just over it through one
        window were the false cards of this step)."""
        from .localise import warp_card
        from .nudge import nudge

        left = [bi for bi in range(len(props)) if bi not in found
                and not any(_iou(props[bi][0], d.box) > self.nudge_skip_iou for d in dets)]
        beyond = [bi for bi, d in found.items() if _iou(props[bi][0], d.box) < self.nudge_under]
        if not left and not beyond:
            return []
        h, w = image_bgr.shape[:2]
        have = {d.card for d in dets if d.card != "back"}
        off = [self.classes.index(c) for c in have] + [self.classes.index("none")]
        width = _usual_width(dets)
        starts, start_box = self._nudge_starts(image_bgr, props, left, beyond, found, dets, reads_of_box, width,
                                               cache)

        def score(quads: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
            out = []
            for p in self.classifier.classify_cards([warp_card(image_bgr, q) for q in quads]):
                p = p.copy()
                p[off] = 0.0
                out.append((float(p.sum()), p))
            return out

        def fits(i: int, q: np.ndarray) -> bool:
            return _iou((*q.min(axis=0), *q.max(axis=0)), props[start_box[i]][0]) >= 0.6

        best: dict[int, tuple[float, int, np.ndarray, np.ndarray]] = {}
        beyond_set = set(beyond)
        for bi, (q, _, p) in zip(start_box, nudge(starts, score, fits, rounds=self.nudge, groups=start_box, keep=self.nudge_keep)):
            ci = int(np.argmax(p))
            conf = float(p[ci])
            if bi in beyond_set and self.classes[ci] in ("back", "JK"):
                continue  # under a found card: a back is that card seen again, a joker a picture misread
            if conf >= self._floor(ci, self.nudge_conf, self.under_conf_rare) and conf > best.get(bi, (0.0,))[0]:
                best[bi] = (conf, ci, q, p)
        self._confirm(image_bgr, best)
        return self._place_new(best, dets, width, w, h)

    def _nudge_starts(self, image_bgr: np.ndarray, props: list, left: list[int], beyond: list[int],
                      found: dict[int, Detection], dets: list[Detection], reads_of_box: dict,
                      width: float | None, cache: dict | None = None) -> tuple[list[np.ndarray], list[int]]:
        """The rectangles nudging starts from, and the box of each: in a box
        left without a card, those inscribed in it and its surest reads
        (``nudge_starts`` in all; and with ``nudge_fitted`` that many fitted
        rectangles clear of the cards found); in a box reaching beyond its
        card, ``nudge_under_starts`` fitted rectangles of that card's size
        clear of the cards found."""
        from .proposals import box_quads, fitted_quads

        found_quads = [d.quad for d in dets]
        starts: list[np.ndarray] = []
        start_box: list[int] = []
        for bi in left:
            surest = sorted(reads_of_box.get(bi, {}).values(), key=lambda r: -r[0])
            qs = (list(box_quads(props[bi][0])) + [q for _, q, _ in surest])[:self.nudge_starts]
            if self.nudge_fitted:
                qs += fitted_quads(image_bgr, props[bi][0], top=self.nudge_fitted, width=width,
                                   avoid=found_quads, avoid_iou=self.avoid_iou, cache=cache)
            starts += qs
            start_box += [bi] * len(qs)
        for bi in beyond:
            qs = fitted_quads(image_bgr, props[bi][0], top=self.nudge_under_starts,
                              width=_short_side(found[bi].quad), avoid=found_quads, avoid_iou=self.avoid_iou,
                              cache=cache)
            starts += qs
            start_box += [bi] * len(qs)
        return starts, start_box

    def _confirm(self, image_bgr: np.ndarray, best: dict[int, tuple[float, int, np.ndarray, np.ndarray]]) -> None:
        """Drop from ``best`` (box -> (conf, class, quad, probs)) the nudged
        cards that fall under their floor when read again through
        ``nudge_views`` corner windows, as the final read will read them."""
        from .localise import warp_card

        if self.nudge_views <= 1 or not best:
            return
        keys = list(best)
        probs = self.classifier.classify_cards([warp_card(image_bgr, best[bi][2]) for bi in keys],
                                               views=self.nudge_views)
        for bi, p in zip(keys, probs):
            ci = best[bi][1]
            if float(p[ci]) < self._floor(ci, self.nudge_conf, self.under_conf_rare):
                del best[bi]

    def _new_card(self, card: str, q: np.ndarray, have: set[str], placed: list[Detection],
                  width: float | None, size: float | None = None) -> bool:
        """Whether a nudged rectangle ``q`` read as ``card`` is a card not yet
        reported: no card ``have`` names it, it overlaps no card ``placed``
        by more than ``fallback_iou`` (a back none by more than
        ``nudge_back_iou``: a back's pattern reads as a back through any
        rectangle on it, so such a read is that back again), and its width
        is within ``size`` (default ``nudge_size``) of ``width``, the usual
        card's.

        >>> from tablecam.vision.nudge import card_quad
        >>> det = CardDetector.__new__(CardDetector)
        >>> det.fallback_iou, det.nudge_back_iou, det.nudge_size = 0.8, 0.45, 0.25
        >>> found = [Detection("back", 0.99, (0, 0, 100, 140), card_quad((50.0, 70.0, 100.0, 0.0)))]
        >>> half_over = card_quad((50.0, 120.0, 100.0, 0.0))  # quad IoU 0.47 with the back found
        >>> det._new_card("back", half_over, set(), found, 100.0), det._new_card("S7", half_over, set(), found, 100.0)
        (False, True)
        >>> det._new_card("S7", half_over, {"S7"}, found, 100.0), det._new_card("S7", half_over, set(), found, 60.0)
        (False, False)
        """
        from .localise import quad_iou

        if card in have or any(quad_iou(q, d.quad) > self.fallback_iou for d in placed):
            return False
        if card == "back" and any(d.card == "back" and quad_iou(q, d.quad) > self.nudge_back_iou for d in placed):
            return False
        size = self.nudge_size if size is None else size
        return not (width and abs(_short_side(q) / width - 1) > size)

    def _assign(self, reads_of_box: dict, w: int, h: int) -> dict[int, Detection]:
        """One card per box.  A box's surest read wins, unless that card is
        already the surer read of another box (the box took in a fanned
        neighbour's index): then, with ``second_reads`` > 1, the box falls
        back to its next card, read through a quad apart from the claimed
        card's."""
        from .localise import quad_iou

        ranked = {bi: sorted(((c, ci, q, p) for ci, (c, q, p) in r.items()), key=lambda t: -t[0])[:self.second_reads]
                  for bi, r in reads_of_box.items()}
        if self.second_reads <= 1:
            return {bi: self._detection(q, p, ci, c, w, h) for bi, r in ranked.items() for c, ci, q, p in r[:1]}
        if self.best_assignment:
            return self._assign_best(ranked, w, h)
        order = sorted(((c, rank, bi, ci, q, p) for bi, r in ranked.items() for rank, (c, ci, q, p) in enumerate(r)),
                       key=lambda t: (t[1], -t[0]))
        claimed: dict[int, np.ndarray] = {}
        out: dict[int, Detection] = {}
        for c, rank, bi, ci, q, p in order:
            if bi in out:
                continue
            if ci in claimed and self.classes[ci] != "back":
                continue
            if rank > 0 and any(quad_iou(q, cq) > self.fallback_iou for cq in claimed.values()):
                continue
            claimed.setdefault(ci, q)
            out[bi] = self._detection(q, p, ci, c, w, h)
        return out

    def _assign_best(self, ranked: dict, w: int, h: int) -> dict[int, Detection]:
        """One card per box by the assignment surest over the whole picture
        (:func:`~tablecam.vision.assign.best_assignment`): a box may give
        up its surest card for its next one when that lets another box,
        which read nothing else, have a card.  A box's later read through a
        quad overlapping another box's card by more than ``fallback_iou`` is
        that card seen again, and is struck out before solving again."""
        from .assign import best_assignment
        from .localise import quad_iou

        back = self.classes.index("back")
        boxes = list(ranked)
        cards = sorted({ci for r in ranked.values() for _, ci, _, _ in r if ci != back})
        col = {ci: j for j, ci in enumerate(cards)}
        n, k = len(boxes), len(cards)
        big = 1e6
        # columns: the cards, then per box its own face-down card and its own "nothing"
        cost = np.full((n, k + 2 * n), big)
        for i, bi in enumerate(boxes):
            cost[i, k + n + i] = 0.0
            for c, ci, _, _ in ranked[bi]:
                cost[i, k + i if ci == back else col[ci]] = -c
        for _ in range(n + 1):
            pick = best_assignment(cost)
            chosen = {}
            for i, j in enumerate(pick):
                if j >= k + n:
                    continue
                ci = cards[j] if j < k else back
                rank, (c, _, q, p) = next((r, t) for r, t in enumerate(ranked[boxes[i]]) if t[1] == ci)
                chosen[i] = (rank, j, c, ci, q, p)
            seen_again = [(i, j) for i, (rank, j, _, _, q, _) in chosen.items() if rank > 0 and any(
                quad_iou(q, o[4]) > self.fallback_iou for oi, o in chosen.items() if oi != i)]
            if not seen_again:
                break
            for i, j in seen_again:
                cost[i, j] = big
        return {boxes[i]: self._detection(q, p, ci, c, w, h) for i, (_, _, c, ci, q, p) in chosen.items()}

    def _detection(self, q: np.ndarray, p: np.ndarray, ci: int, conf: float, w: int, h: int) -> Detection:
        x1, y1 = q.min(axis=0)
        x2, y2 = q.max(axis=0)
        box = (max(0.0, float(x1)), max(0.0, float(y1)), min(float(w), float(x2)), min(float(h), float(y2)))
        return Detection(self.classes[ci], conf, box, q, _top_probs(p, self.classes))


def _keep_surest(reads_of_box: dict, bi: int, ci: int, conf: float, q: np.ndarray, p: np.ndarray) -> None:
    """Note box ``bi``'s read of class ``ci`` unless it read that card surer already."""
    r = reads_of_box.setdefault(bi, {})
    if ci not in r or conf > r[ci][0]:
        r[ci] = (conf, q, p)


# a card read from its index that found cards cover this little is clear of them (``index_floor_open``)
OPEN_SHARE = 0.02


def _covered_share(quads: list[np.ndarray], found: list[np.ndarray], w: int, h: int, scale: float = 0.25
                   ) -> list[float]:
    """The share of each quad's area that the quads ``found`` cover (on a
    grid ``scale`` of the picture's).  A card seen by its index alone is
    one the box localiser could not outline, nearly always because other
    cards lie on it; an index read on bare table is more often a found
    card's pips or a back's artwork.

    >>> sq = lambda x, y: np.array([[x, y], [x + 100, y], [x + 100, y + 100], [x, y + 100]], np.float32)
    >>> [round(v, 1) for v in _covered_share([sq(0, 0), sq(0, 100), sq(200, 200)], [sq(0, 50)], 400, 400)]
    [0.5, 0.5, 0.0]
    """
    import cv2

    gw, gh = max(1, int(w * scale)), max(1, int(h * scale))
    cover = np.zeros((gh, gw), np.uint8)
    for q in found:
        cv2.fillPoly(cover, [np.round(np.asarray(q) * scale).astype(np.int32)], 1)
    out = []
    for q in quads:
        m = np.zeros((gh, gw), np.uint8)
        cv2.fillPoly(m, [np.round(np.asarray(q) * scale).astype(np.int32)], 1)
        area = int(m.sum())
        out.append(float((m & cover).sum()) / area if area else 0.0)
    return out


def _usual_width(dets: list[Detection]) -> float | None:
    """The median short side of the cards found: the cards of one picture are about one size."""
    return float(np.median([_short_side(d.quad) for d in dets])) if dets else None


def _short_side(q: np.ndarray) -> float:
    return float(min(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1]))))


def _one_per_card(dets: list[Detection], nms_iou: float = 0.85, quads: bool = True,
                  back_iou: float = 0.5) -> list[Detection]:
    """A card is reported once: two detections of the same code whose boxes
    overlap are one card (keep the surer), and of two quads covering the
    same place (quad IoU above ``nms_iou``) the surer read wins.  Backs may
    repeat, but two backs whose boxes overlap by more than ``back_iou`` are
    one face-down card seen through two boxes (a pile of face-down cards
    cannot be counted from above anyway)."""
    from .localise import quad_iou

    dets = sorted(dets, key=lambda d: -d.conf)
    kept: list[Detection] = []
    for d in dets:
        dup = False
        for k in kept:
            if k.card == d.card and d.card != "back" and _iou(k.box, d.box) > 0.1:
                dup = True
                break
            if quads and k.quad is not None and d.quad is not None and quad_iou(k.quad, d.quad) > nms_iou:
                dup = True
                break
            if _iou(k.box, d.box) > (back_iou if k.card == d.card == "back" else 0.85):
                dup = True
                break
        if not dup:
            kept.append(d)
    return kept


_DEFAULT: dict[str, CardDetector] = {}


def load_detector(model_dir: str | Path | None = None, threads: int = 1) -> CardDetector:
    """The shipped detector (``models/``), or one from ``model_dir``; cached."""
    key = str(model_dir or MODELS_DIR) + f"#{threads}"
    if key not in _DEFAULT:
        _DEFAULT[key] = CardDetector(model_dir, threads=threads)
    return _DEFAULT[key]


__all__ = ["Detection", "CardDetector", "load_detector", "CLASSES"]
