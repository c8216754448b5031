"""What a recipe is: every choice that makes a model, as one frozen record.

A trained model ships with a JSON whose ``recipe`` field says how it was
made, so that it can be made again.  The training functions take the same
choices as one value per model - :class:`ClassifierRecipe`,
:class:`BackCheckRecipe`, :class:`LocaliserRecipe`, :class:`BidCardRecipe`,
:class:`WholeCardRecipe`, and :class:`LocDataRecipe` for the localiser's
training set - beside where to write and whether to show progress, which
change nothing in the model.  The command line (``tablecam train``,
``train-back-check``, ``train-localiser``, ``locdata``, ``python -m
tablecam.training.bidcards``, ``python -m tablecam.training.whole_card``)
builds the recipe from its flags; the defaults here are the flags' defaults.

Frozen, so a recipe handed to a stage is the recipe that stage recorded.

>>> r = ClassifierRecipe(samples=64, epochs=1, threads=1)
>>> r.seeds, ClassifierRecipe(data_seeds=(0, 1)).seeds
([0], [0, 1])
>>> LocDataRecipe(seed=3).renders_seed, LocDataRecipe(seed=3, scenes_seed=4).renders_seed
(3, 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ClassifierRecipe:
    """The corner classifier (``tablecam train``): its data, network and schedule.

    ``samples`` rendered corner views per data seed (``data_seeds``, default
    ``seed``); ``generated`` adds that many seeded deck designs
    (``designs.py``) to the training decks; ``gray`` is the share of each
    batch shown without colour, so a suit is told by its shape and a
    four-colour pack's blue diamond is not read as a spade; ``jitter``
    scales, turns and shifts each crop by up to that fraction (a quad built
    from the localiser's box misses the card's true corners by more than the
    classical localiser's does); ``offcorner`` adds that many views through
    wrong quads, labelled ``none``, so a loose quad is rejected rather than
    misread; ``prints`` that many views of printed matter (newspaper, book,
    flyer, grille), labelled ``none``; ``piles`` that many corner views of
    cards in rendered piles and fanned hands (``synth.pile_dataset``), a
    corner at least ``pile_seen`` uncovered labelled with its card;
    ``cables`` that many views of cards with a cable, pen or blade across
    the index (``synth.cable_dataset``); ``jokers`` that many views of
    jokers drawn as the newest design version draws them
    (``synth.joker_dataset``), whatever version the other sets are;
    ``small`` that many views of cards seen small (``train.SMALL_SCALE``:
    88-175 px tall, the size of a card in a 1280x720 frame of a whole
    table), where the index is a few pixels tall and the default views'
    18-100% range puts one view in eight; ``oblique`` that many views of
    cards seen small and at an angle through a webcam
    (``train.OBLIQUE_PX_PER_MM``, ``synth.oblique_sample``: 0.6-2 px a
    millimetre across the card, squashed to half along the camera's tilt,
    blur, sharpening halo, 4:2:0 colour, JPEG), the corner window cut
    from the card rectified back through its true outline a little off.
    ``real`` that many views of real printed faces, the edje train split's
    cards (:mod:`~tablecam.training.realfaces`), as a photo shows them,
    and ``real_oblique`` that many seen as ``oblique`` sees a card; their
    labels name the rank alone; ``real_offcorner`` that many views of
    them through wrong quads, labelled ``none``.
    ``teacher``: the ``.pt`` weights of stages whose mean probability the
    network learns to give (distillation: the shipped classifier averages
    two networks, so every corner view costs two; one network taught
    their mean costs one); the labels then only count its agreement.
    ``detect_views`` adds the corner views detect() reads on that many
    rendered tables and on the localiser's real train photos
    (:mod:`~tablecam.training.distil`), unlabelled, so only with a teacher.
    ``init``: the previous stage's
    weights to fine-tune; ``width``: channels of the first conv layer.
    """

    samples: int = 30000
    epochs: int = 8
    seed: int = 0
    threads: int = 2
    batch: int = 128
    lr: float = 3e-3
    width: int = 16
    init: Path | None = None
    data_seeds: tuple[int, ...] | None = None
    generated: int = 0
    gray: float = 0.0
    jitter: float = 0.0
    offcorner: int = 0
    prints: int = 0
    piles: int = 0
    pile_seen: float = 0.8
    cables: int = 0
    jokers: int = 0
    small: int = 0
    oblique: int = 0
    real: int = 0
    real_oblique: int = 0
    real_offcorner: int = 0
    teacher: tuple[Path, ...] = ()
    detect_views: int = 0

    def __post_init__(self) -> None:
        if self.detect_views and not self.teacher:
            raise ValueError("detect() views carry no labels: they need a teacher (--teacher)")

    @property
    def seeds(self) -> list[int]:
        """The seeds of the rendered corner sets trained on."""
        return list(self.data_seeds) if self.data_seeds else [self.seed]


@dataclass(frozen=True)
class BackCheckRecipe:
    """The whole-card back check (``tablecam train-back-check``).

    ``samples`` views of cards in rendered scenes of the training decks and
    ``generated`` generated designs (their backs), on the real train
    photos' floors.  ``smoothing`` is the label smoothing: at 0.05 the
    check's P(back) stays under about 0.97, so it lifts a back's read over
    the detector's main floor for a back (0.9) but not over the floor of a
    back read under a found card (0.97); trained without it, the check
    added false backs (a court card, a back's misfitted quad) on the tuning
    scenes.  ``decoys`` adds that many views of what the localiser boxes on
    the real train photos away from the cards
    (:func:`~tablecam.training.backdata.real_decoys`), ``prints`` that many
    views of printed matter, both ``none``; ``printed`` that many views of
    flyers, picture postcards, photo prints and other games' cards laid on
    the real floors (:func:`~tablecam.training.printed.printed_views`),
    ``none`` too.  ``loose`` is the share of
    visible cards seen once more through a rectangle off their outline, as
    a box gives it (:func:`~tablecam.training.backdata.loose_quad`).
    """

    samples: int = 16000
    epochs: int = 8
    seed: int = 0
    threads: int = 2
    batch: int = 128
    lr: float = 3e-3
    width: int = 12
    generated: int = 60
    smoothing: float = 0.05
    decoys: int = 1500
    prints: int = 1000
    loose: float = 0.5
    printed: int = 0


@dataclass(frozen=True)
class LocaliserRecipe:
    """One stage of the card localiser (``tablecam train-localiser``): Ultralytics on the CPU.

    Built from ``model`` (a model yaml, no pretrained weights) or from the
    previous stage's ``init`` weights; ``transfer`` copies the matching
    layers of other weights first (a box model's backbone into an OBB
    model); ``hours`` stops the stage then, the learning-rate schedule
    fitted to it (``epochs`` is then only an upper bound).
    """

    epochs: int = 20
    imgsz: int = 320
    seed: int = 0
    batch: int = 16
    lr0: float = 0.01
    close_mosaic: int = 5
    model: str = "yolo11n.yaml"
    init: Path | None = None
    transfer: Path | None = None
    hours: float | None = None


@dataclass(frozen=True)
class LocDataRecipe:
    """The card localiser's training set (``tablecam locdata``): renders and real train photos.

    ``fmt`` "detect": axis-aligned boxes; "obb": oriented card quads (the
    real photos' quads read by the shipped classifier), "index": the
    rank-and-suit index windows as oriented boxes.  ``seed`` splits the real
    photos (keep 0: the tuning photos must stay unseen), ``real_val`` of
    them kept for validation and each of the others used ``real_repeat``
    times; ``scenes_seed`` (default ``seed``) draws the ``renders`` rendered
    scenes, so a later stage gets new scenes over the same split; ``cards``
    is the range of cards a scene holds (low, high excluded: more cards,
    more piles and fans); ``back_share`` the share of rendered cards lying
    face down, ``generated`` the generated training designs added to the
    decks drawn (``faces.training_decks``: their backs are more backs to
    learn).
    """

    renders: int = 800
    seed: int = 0
    real_val: int = 40
    real_repeat: int = 2
    fmt: str = "detect"
    scenes_seed: int | None = None
    cards: tuple[int, int] = (0, 7)
    back_share: float = 0.1
    generated: int = 0

    @property
    def renders_seed(self) -> int:
        """The seed the rendered scenes are drawn with."""
        return self.seed if self.scenes_seed is None else self.scenes_seed


@dataclass(frozen=True)
class BidCardRecipe:
    """The bidding-box card reader (``python -m tablecam.training.bidcards``).

    ``n`` training strips of ``designs`` drawn designs (``held_out`` strips of
    the held-out designs checked after training); a share ``camera_share``
    cut from low-resolution frames, ``stacked_share`` drawn from the stacked
    designs only (level over the sign), ``playing_share`` cut from playing
    cards of the training decks and labelled ``none``; ``width``: channels
    of the first conv layer. ``camera_px_per_mm``: how many frame pixels a
    millimetre spans across the card in the strips cut from frames (drawn
    log-uniformly); ``camera_along``: along the card that times a factor
    drawn from this range (a tilted view foreshortens the card's length, or
    its width in a row across the tilt). ``aliased_share``: the share of
    those frames that sample the card rather than average it;
    ``coded_share``: the share sent through H.264 before the cut
    (``bidcards.CameraScale``). ``level_weight``: weight of a second
    loss on the level alone (the probabilities of a level's five strains
    summed): the level is what a small card loses first. ``init``: start
    from these weights (a ``bid_card.onnx``) instead of at random."""

    n: int = 30000
    epochs: int = 10
    seed: int = 0
    designs: int = 60
    held_out: int = 4000
    threads: int = 1
    width: int = 16
    batch: int = 128
    lr: float = 3e-3
    camera_share: float = 0.5
    stacked_share: float = 0.25
    playing_share: float = 0.0
    camera_px_per_mm: tuple[float, float] = (0.45, 1.3)
    camera_along: tuple[float, float] = (0.5, 1.0)
    aliased_share: float = 0.0
    coded_share: float = 0.0
    level_weight: float = 0.0
    init: Path | None = None


@dataclass(frozen=True)
class WholeCardRecipe:
    """Every choice that makes the whole-card reader: ``samples`` views of the
    training decks plus ``generated`` seeded designs, at ``px_per_mm`` across
    the card, a reflection across ``glare`` of them; ``epochs`` of AdamW,
    one cycle peaking at ``lr``; ``width`` channels in the first layer; ``held_out`` views each of
    eight validation designs (the check after every epoch) and of the
    held-out designs (read once, at the end; never to choose by)."""

    samples: int = 60000
    generated: int = 30
    px_per_mm: tuple[float, float] = (0.35, 1.0)
    glare: float = 0.25
    epochs: int = 8
    lr: float = 2e-3
    width: int = 32
    batch: int = 128
    seed: int = 11
    held_out: int = 2650
    threads: int = 2
