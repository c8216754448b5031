"""Training data for the learned card localiser (``tablecam locdata``).

The classical localiser (:mod:`tablecam.vision.localise`) misses cards whose
border is weak against the table (white cards on beige carpet, cards
touching each other or a box): on the real photos it finds 79% of the cards
and every card it finds is read right.  So the learned part is *where* a
card is, not what it is: a one-class Ultralytics detector (``card``, face up
or face down) proposes boxes, and the corner classifier still reads them.

The dataset mixes

* rendered table scenes (training decks only, never ``HELD_OUT_DECKS``):
  cards at any angle, fanned hands, trick piles, fingers, face-down cards,
  perspective and lighting - on drawn tables, on a drawn carpet, and on
  *real* backgrounds cut from the card-free parts of the real-photos train
  split (carpet, wood, boxes: the textures renders get wrong);
* the real-photos **train** split itself (whole-card boxes), repeated
  ``real_repeat`` times, less ``real_val`` photos kept for validation.

The test split is never read here.  Everything is deterministic for a seed
(scene ``i`` uses ``default_rng([seed, i])``), so two workers render the same
set as one.  Labels are YOLO detect format, class 0, box = the card's
bounds (the whole card, also where another card lies over part of it).
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
from pathlib import Path

import numpy as np

from .recipes import LocDataRecipe

SIZES = [(640, 480), (480, 640), (640, 360), (512, 512)]
# an index window is labelled when this share of it is uncovered (fmt "index")
INDEX_SEEN = 0.6


def carpet_texture(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A looped-pile carpet or rough stone: fine high-contrast speckle in a
    beige/grey tone, the background on which white cards lose their edges."""
    import cv2

    base = np.array([rng.uniform(90, 200)] * 3, np.float32) * np.array(
        [rng.uniform(0.75, 1.0), rng.uniform(0.85, 1.05), 1.0], np.float32)
    fine = rng.normal(0, rng.uniform(18, 40), (h, w, 1)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), rng.uniform(0.6, 1.6))[..., None] * 1.6
    coarse = cv2.resize(rng.normal(0, 12, (max(2, h // 30), max(2, w // 30), 1)).astype(np.float32), (w, h))[..., None]
    return np.clip(base[None, None] + fine + coarse, 0, 255).astype(np.uint8)


def card_free_region(img: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> np.ndarray | None:
    """The largest strip of a photo left, right, above or below every
    labelled card (None when it is under 12% of the photo)."""
    h, w = img.shape[:2]
    if not boxes:
        return img
    x1 = min(b[0] for b in boxes)
    y1 = min(b[1] for b in boxes)
    x2 = max(b[2] for b in boxes)
    y2 = max(b[3] for b in boxes)
    m = 6
    strips = [(0, 0, int(x1) - m, h), (int(x2) + m, 0, w, h), (0, 0, w, int(y1) - m), (0, int(y2) + m, w, h)]
    best = max(strips, key=lambda s: max(0, s[2] - s[0]) * max(0, s[3] - s[1]))
    a = max(0, best[2] - best[0]) * max(0, best[3] - best[1])
    if a < 0.12 * h * w or best[2] - best[0] < 40 or best[3] - best[1] < 40:
        return None
    return img[best[1]:best[3], best[0]:best[2]]


def _background(rng: np.random.Generator, h: int, w: int, reals: list[np.ndarray]) -> np.ndarray | None:
    import cv2

    r = rng.random()
    if r < 0.4 or not reals:
        return None  # the scene renderer's own tables
    if r < 0.6:
        return carpet_texture(rng, h, w)
    src = reals[int(rng.integers(len(reals)))]
    if rng.random() < 0.5:
        src = src[:, ::-1]
    if rng.random() < 0.5:
        src = np.rot90(src)
    # tile small strips so the texture keeps its scale, then cut to size
    sh, sw = src.shape[:2]
    f = rng.uniform(0.8, 1.6)
    src = cv2.resize(np.ascontiguousarray(src), (max(8, int(sw * f)), max(8, int(sh * f))))
    reps = (h // src.shape[0] + 2, w // src.shape[1] + 2, 1)
    big = np.tile(np.concatenate([src, src[::-1]], 0), reps)
    y = int(rng.integers(0, big.shape[0] - h + 1))
    x = int(rng.integers(0, big.shape[1] - w + 1))
    return np.ascontiguousarray(big[y:y + h, x:x + w])


def yolo_box_lines(boxes: list[tuple[float, float, float, float]], w: int, h: int, cls: int = 0) -> str:
    """YOLO detect lines (class cx cy bw bh, normalised), boxes clipped to
    the image.

    >>> yolo_box_lines([(10, 20, 110, 160)], 200, 200)
    '0 0.300000 0.450000 0.500000 0.700000\\n'
    """
    lines = []
    for x1, y1, x2, y2 in boxes:
        x1, x2 = max(0.0, x1), min(float(w), x2)
        y1, y2 = max(0.0, y1), min(float(h), y2)
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue
        lines.append(f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return "".join(line + "\n" for line in lines)


def yolo_obb_lines(quads: list[np.ndarray], w: int, h: int, cls: int = 0) -> str:
    """YOLO OBB lines (class x1 y1 x2 y2 x3 y3 x4 y4, normalised, clipped).

    >>> yolo_obb_lines([np.array([[0, 0], [50, 0], [50, 70], [0, 70]])], 100, 100)
    '0 0.00000 0.00000 0.50000 0.00000 0.50000 0.70000 0.00000 0.70000\\n'
    """
    out = []
    for q in quads:
        qn = np.clip(np.asarray(q, np.float64).reshape(4, 2) / np.array([w, h], np.float64), 0.0, 1.0)
        out.append(f"{cls} " + " ".join(f"{v:.5f}" for v in qn.reshape(-1)) + "\n")
    return "".join(out)


def pseudo_windows(image: np.ndarray, box: tuple[float, float, float, float], rank: str, detector,
                   min_prob: float = 0.7, alone: bool = False) -> list[np.ndarray]:
    """Index windows for a real photo's rank-only label.

    Of the quads the box allows (as :func:`pseudo_quad`) the one with the
    corner that reads the labelled rank most surely is taken, and its
    corners that read the rank with ``min_prob`` or more are labelled (a
    corner under another card, or one the classifier cannot read, is left
    out).  A card ``alone`` (no other labelled card touches its box) gets
    both windows once one reads: nothing covers the other.  Empty when no
    corner reads: the caller drops the photo rather than teach the
    localiser that a visible index is background."""
    from ..vision.classify import corner_crops
    from ..vision.indexes import index_windows
    from ..vision.localise import order_quad, warp_card
    from ..vision.proposals import box_quads, box_variants, local_quads

    cands = local_quads(image, box) + [q for v in box_variants(box, 0.1) for q in box_quads(v)]
    if not cands:
        return []
    cands = [order_quad(q).astype(np.float32) for q in cands]
    clf = detector.classifier
    crops = np.concatenate([corner_crops(warp_card(image, q, ordered=True), clf.corner_box, clf.input_size)
                            for q in cands])
    idx = [i for i, c in enumerate(detector.classes) if len(c) == 2 and c[1] == rank]
    pr = clf.probs(crops)[:, idx].sum(axis=1).reshape(len(cands), 2)
    best = int(np.argmax(pr.max(axis=1)))
    if alone and pr[best].max() >= min_prob:
        return index_windows(cands[best])
    return [w for w, v in zip(index_windows(cands[best]), pr[best]) if v >= min_prob]


def pseudo_quad(image: np.ndarray, box: tuple[float, float, float, float], rank: str, detector) -> np.ndarray:
    """An oriented card quad for a real photo's axis-aligned, rank-only label.

    The label says where the card is and its rank, not how it is turned:
    of the quads the box allows (the inscribed card rectangles, the
    classical localiser's quads in a crop around it) the one whose reading
    gives the labelled rank most probability is taken; when none reads the
    rank (a card half covered: the label holds only its visible part) the
    box itself."""
    from ..vision.localise import warp_card
    from ..vision.proposals import box_corners, box_quads, box_variants, local_quads

    cands = [q for v in box_variants(box, 0.1) for q in box_quads(v)] + local_quads(image, box)
    if not cands:
        return box_corners(box)
    probs = detector.classifier.classify_cards([warp_card(image, q) for q in cands])
    idx = [i for i, c in enumerate(detector.classes) if len(c) == 2 and c[1] == rank]
    score = [float(p[idx].sum()) for p in probs]
    best = int(np.argmax(score))
    return cands[best] if score[best] >= 0.3 else box_corners(box)


def render_one(args) -> str:
    """Render scene ``i`` into ``out`` (a worker's unit of work)."""
    import cv2

    from .faces import training_decks
    from ..vision.indexes import index_windows
    from .synth import render_scene

    i, seed, out, reals, fmt, cards, back_share, generated = args
    rng = np.random.default_rng([seed, i])
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    short = min(w, h)
    card_px = (0.18 * short, 0.55 * short)  # real photos: a card is 1/3-1/2 of the short side
    bg = _background(rng, h, w, reals)
    sc = render_scene(rng, training_decks(generated), size=(w, h), card_px=card_px, background=bg,
                      n_cards=int(rng.integers(*cards)), back_share=back_share)
    name = f"synth_{seed}_{i:05d}"
    cv2.imwrite(str(out / "images" / f"{name}.jpg"), sc.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if fmt == "obb":
        (out / "labels" / f"{name}.txt").write_text(yolo_obb_lines([c.quad for c in sc.cards], w, h))
    elif fmt == "index":
        wins = [win for c in sc.cards if c.card != "back"
                for win, vis in zip(index_windows(c.quad), c.corner_visible) if vis >= INDEX_SEEN]
        (out / "labels" / f"{name}.txt").write_text(yolo_obb_lines(wins, w, h))
    else:
        boxes = [tuple(c.quad.min(axis=0)) + tuple(c.quad.max(axis=0)) for c in sc.cards]
        (out / "labels" / f"{name}.txt").write_text(yolo_box_lines(boxes, w, h))
    return name


def split_real_train(real_root: Path | None = None, seed: int = 0, real_val: int = 40) -> tuple[list[str], list[str]]:
    """The real train split's photos, cut into (trained on, validation).

    The validation photos are the only real photos the localiser has not
    seen besides the test split, so detect()'s thresholds are chosen on
    them (bench/vision/tune.py)."""
    from .evaluate import REAL_PHOTOS

    real_root = Path(real_root or REAL_PHOTOS / "train")
    names = sorted(os.path.basename(f) for f in glob.glob(str(real_root / "*.JPG")) + glob.glob(str(real_root / "*.jpg"))
                   if os.path.exists(os.path.splitext(f)[0] + ".xml"))
    order = np.random.default_rng(seed).permutation(len(names))
    return [names[i] for i in order[real_val:]], [names[i] for i in order[:real_val]]


def _free_strips(img: np.ndarray, gts: list) -> list[np.ndarray]:
    """The photo's largest card-free strip (:func:`card_free_region`), as a list of none or one."""
    free = card_free_region(img, [b for _, b in gts])
    return [] if free is None else [np.ascontiguousarray(free)]


def trained_on_photos(seed: int = 0, real_val: int = 40):
    """(photo, labelled cards as (rank, box)) of each real train photo the
    localiser trains on, in order (never the tuning photos of
    :func:`split_real_train`); photos that cannot be read are skipped."""
    import cv2

    from .evaluate import REAL_PHOTOS, read_voc

    root = REAL_PHOTOS / "train"
    for n in split_real_train(root, seed, real_val)[0]:
        img = cv2.imread(str(root / n))
        if img is not None:
            yield img, read_voc(os.path.splitext(root / n)[0] + ".xml")


def real_floors(seed: int = 0, real_val: int = 40) -> list[np.ndarray]:
    """Card-free strips of the real train photos the localiser trains on:
    real carpet, wood and cloth for rendered scenes to lie on."""
    return [strip for img, gts in trained_on_photos(seed, real_val) for strip in _free_strips(img, gts)]


def build_dataset(out: Path, recipe: LocDataRecipe = LocDataRecipe(), real_root: Path | None = None,
                  workers: int = 2, progress: bool = True) -> dict:
    """Write ``out/{train,val}/{images,labels}`` and ``out/data.yaml`` as
    ``recipe`` says (:class:`~tablecam.training.recipes.LocDataRecipe`):
    the real train photos (from ``real_root``, default the edje set) split
    into train and validation, and rendered scenes on their card-free
    strips.

    Labels by ``recipe.fmt``: "detect", axis-aligned boxes; "obb", oriented
    card quads (the real photos' quads from :func:`pseudo_quad`, read by the
    shipped classifier); "index", the rank-and-suit index windows as
    oriented boxes (class ``index``,
    :func:`~tablecam.vision.indexes.index_windows`: a rendered corner when
    at least ``INDEX_SEEN`` of it is uncovered, a real one when it reads
    the labelled rank, :func:`pseudo_windows`)."""
    import cv2

    from .evaluate import REAL_PHOTOS, read_voc
    from ..vision.proposals import box_iou

    real_root = Path(real_root or REAL_PHOTOS) / "train"
    train_names, val_names = split_real_train(real_root, recipe.seed, recipe.real_val)
    if out.exists():
        shutil.rmtree(out)
    for part in ("train", "val"):
        (out / part / "images").mkdir(parents=True)
        (out / part / "labels").mkdir(parents=True)
    kept_out = {"train": 0, "val": 0}  # real photos left out of an index set
    reals: list[np.ndarray] = []  # card-free strips of the trained-on photos: backgrounds for the renders
    for part, group, reps in (("train", train_names, recipe.real_repeat), ("val", val_names, 1)):
        for n in group:
            img = cv2.imread(str(real_root / n))
            if img is None:
                continue
            h, w = img.shape[:2]
            gts = read_voc(os.path.splitext(real_root / n)[0] + ".xml")
            if part == "train":
                reals += _free_strips(img, gts)
            if recipe.fmt == "obb":
                lab = yolo_obb_lines([pseudo_quad(img, b, r, _detector()) for r, b in gts], w, h)
            elif recipe.fmt == "index":
                boxes = [b for _, b in gts]
                per_card = [pseudo_windows(img, b, r, _detector(),
                                           alone=not any(box_iou(b, o) > 0 for j, o in enumerate(boxes) if j != i))
                            for i, (r, b) in enumerate(gts)]
                if not all(per_card):  # a card with no window found: its index would be taught as background
                    kept_out[part] += 1
                    continue
                lab = yolo_obb_lines([win for ws in per_card for win in ws], w, h)
            else:
                lab = yolo_box_lines([b for _, b in gts], w, h)
            for k in range(reps):
                stem = f"real{k}_{os.path.splitext(n)[0]}"
                shutil.copyfile(real_root / n, out / part / "images" / f"{stem}.jpg")
                (out / part / "labels" / f"{stem}.txt").write_text(lab)
    scenes_seed = recipe.renders_seed
    jobs = [(i, scenes_seed, out / "train", reals, recipe.fmt, tuple(recipe.cards), recipe.back_share,
             recipe.generated) for i in range(recipe.renders)]
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(workers) as pool:
            done = list(_progress(pool.imap_unordered(render_one, jobs, chunksize=8), recipe.renders, progress))
    else:
        done = list(_progress(map(render_one, jobs), recipe.renders, progress))
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: train/images\nval: val/images\nnames:\n  0: {'index' if recipe.fmt == 'index' else 'card'}\n")
    return {"synth": len(done), "real_train": (len(train_names) - kept_out["train"]) * recipe.real_repeat,
            "real_val": len(val_names), "real_backgrounds": len(reals), "real_left_out": kept_out, "seed": recipe.seed,
            "scenes_seed": scenes_seed, "cards": list(recipe.cards), "back_share": recipe.back_share,
            "generated": recipe.generated}


@functools.lru_cache(maxsize=1)
def _detector():
    """The shipped corner classifier, as the pseudo labels read with it."""
    from types import SimpleNamespace

    from ..vision.classify import CornerClassifier

    clf = CornerClassifier()
    return SimpleNamespace(classifier=clf, classes=clf.classes)


def _progress(it, total: int, on: bool):
    if not on:
        return it
    try:
        from tqdm import tqdm

        return tqdm(it, total=total, desc="render scenes", unit="img")
    except ImportError:
        return it
