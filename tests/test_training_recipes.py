"""The training commands turn their flags into one recipe per model.

``tablecam train``, ``train-back-check``, ``train-localiser`` and
``locdata`` are run through the real command line with every option given;
the training function is replaced by one that records what it was handed,
so no torch and no training is needed.  The recipes' defaults are the
flags' defaults, so a command with no options makes the recipe a bare
``Recipe()`` is.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tablecam.cli import main
from tablecam.training import cli as training_cli
from tablecam.training import locdata, train
from tablecam.training.recipes import BackCheckRecipe, BidCardRecipe, ClassifierRecipe, LocaliserRecipe, LocDataRecipe


@pytest.fixture
def handed(monkeypatch):
    """What each training function was called with (no training runs)."""
    calls: dict[str, tuple] = {}
    meta = {"recipe": {"wall_seconds": 0.0}, "history": [{}]}

    def record(name):
        def fake(*args, **kw):
            calls[name] = (args, kw)
            return meta
        return fake

    monkeypatch.setattr(training_cli, "_training_venv", lambda *a, **k: True)
    monkeypatch.setattr(train, "train_classifier", record("classifier"))
    monkeypatch.setattr(train, "train_back_check", record("back_check"))
    monkeypatch.setattr(train, "train_localiser", record("localiser"))
    monkeypatch.setattr(locdata, "build_dataset", record("locdata"))
    return calls


def test_train_flags_make_the_classifier_recipe(handed, capsys):
    rc = main(["train", "--out", "o", "-n", "640", "--epochs", "3", "--seed", "5", "--threads", "1", "--width", "12",
               "--lr", "0.001", "--init", "w.pt", "--data-dir", "d", "--data-seeds", "6,7", "--generated-decks", "60",
               "--gray", "0.2", "--jitter", "0.04", "--offcorner", "40", "--prints", "60", "--piles", "12",
               "--cables", "5", "--jokers", "3", "--small", "8", "--oblique", "9", "--pile-seen", "0.7"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["wall_seconds"] == 0.0
    (out, recipe), kw = handed["classifier"]
    assert out == Path("o") and kw == {"data_dir": Path("d")}
    assert recipe == ClassifierRecipe(samples=640, epochs=3, seed=5, threads=1, lr=0.001, width=12, init=Path("w.pt"),
                                      data_seeds=(6, 7), generated=60, gray=0.2, jitter=0.04, offcorner=40, prints=60,
                                      piles=12, pile_seen=0.7, cables=5, jokers=3, small=8, oblique=9)
    assert recipe.seeds == [6, 7]
    assert main(["train"]) == 0 and handed["classifier"][0][1] == ClassifierRecipe()


def test_train_back_check_flags_make_the_back_check_recipe(handed):
    assert main(["train-back-check", "--out", "o", "-n", "480", "--epochs", "1", "--seed", "2", "--threads", "1",
                 "--width", "8", "--generated-decks", "4", "--smoothing", "0.1", "--decoys", "9", "--prints", "7",
                 "--loose", "0.25", "--printed", "11", "--data-dir", "d"]) == 0
    (out, recipe), kw = handed["back_check"]
    assert out == Path("o") and kw == {"data_dir": Path("d")}
    assert recipe == BackCheckRecipe(samples=480, epochs=1, seed=2, threads=1, width=8, generated=4, smoothing=0.1,
                                     decoys=9, prints=7, loose=0.25, printed=11)
    assert main(["train-back-check"]) == 0 and handed["back_check"][0][1] == BackCheckRecipe()


def test_train_localiser_flags_make_the_localiser_recipe(handed):
    assert main(["train-localiser", "--data", "l/data.yaml", "--out", "run", "--epochs", "2", "--imgsz", "64",
                 "--batch", "4", "--seed", "1", "--lr0", "0.002", "--time", "0.5", "--init", "a.pt",
                 "--model", "yolo11n-obb.yaml", "--transfer", "b.pt"]) == 0
    (data, out, recipe), kw = handed["localiser"]
    assert (data, out, kw) == (Path("l/data.yaml"), Path("run"), {})
    assert recipe == LocaliserRecipe(epochs=2, imgsz=64, seed=1, batch=4, lr0=0.002, model="yolo11n-obb.yaml",
                                     init=Path("a.pt"), transfer=Path("b.pt"), hours=0.5)
    assert main(["train-localiser"]) == 0 and handed["localiser"][0][2] == LocaliserRecipe()


def test_locdata_flags_make_the_data_set_recipe(handed):
    assert main(["locdata", "--out", "ds", "-n", "4", "--seed", "0", "--real-val", "5", "--real-repeat", "1",
                 "--workers", "1", "--format", "index", "--scenes-seed", "2", "--cards", "2,9",
                 "--back-share", "0.35", "--generated", "60"]) == 0
    (out, recipe), kw = handed["locdata"]
    assert out == Path("ds") and kw == {"workers": 1}
    assert recipe == LocDataRecipe(renders=4, seed=0, real_val=5, real_repeat=1, fmt="index", scenes_seed=2,
                                   cards=(2, 9), back_share=0.35, generated=60)
    assert recipe.renders_seed == 2
    assert main(["locdata"]) == 0 and handed["locdata"][0][1] == LocDataRecipe()


def test_bidcards_flags_make_the_bid_card_recipe(monkeypatch, capsys):
    from tablecam.training import bidcards

    handed: list = []
    monkeypatch.setattr(bidcards, "train", lambda out, r: handed.append((out, r)) or {"held_out": {}, "held_out_playing": {}})
    assert bidcards.main(["--out", "o", "-n", "64", "--epochs", "2", "--seed", "3", "--designs", "8", "--held-out", "5",
                          "--threads", "1", "--camera-share", "0.4", "--stacked-share", "0.3",
                          "--playing-share", "0.1", "--camera-px-per-mm", "0.55", "1.6", "--camera-along", "0.5", "1.3",
                          "--aliased-share", "0.5", "--coded-share", "0.7",
                          "--level-weight", "0.5", "--init", "w.onnx", "--lr", "0.001"]) == 0
    assert handed[-1] == (Path("o"), BidCardRecipe(n=64, epochs=2, seed=3, designs=8, held_out=5, threads=1,
                                                   camera_share=0.4, stacked_share=0.3, playing_share=0.1,
                                                   camera_px_per_mm=(0.55, 1.6), camera_along=(0.5, 1.3),
                                                   aliased_share=0.5, coded_share=0.7,
                                                   level_weight=0.5, init=Path("w.onnx"), lr=0.001))
    assert bidcards.main([]) == 0 and handed[-1][1] == BidCardRecipe()


def test_a_recipe_cannot_change_once_made():
    with pytest.raises(dataclasses.FrozenInstanceError):
        ClassifierRecipe().epochs = 1  # type: ignore[misc]
