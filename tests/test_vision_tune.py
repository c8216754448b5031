"""The tuning script's baseline is the detector as shipped.

``bench/vision/tune.py`` measures every combination of the settings it is
given, and each setting's first value is what a run without that option
measures.  The settings of ``detect()`` were chosen against that baseline
(docs/detector-settings.md), so a default changed in ``CardDetector`` but
not in the script - or the other way round - would compare new settings
against a detector nobody ships.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# settings whose detector default is None, meaning the value tune.py spells out
NONE_MEANS = {
    "min_conf": 0.6,  # with the learned localiser (0.5 for the classical detector alone)
    "index": True,  # the index localiser when the model directory ships it, as it does
    "index_imgsz": 0,  # the input size in card_index.json
}


def _tune_module():
    spec = importlib.util.spec_from_file_location("tune", ROOT / "bench" / "vision" / "tune.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tuning_baseline_is_the_shipped_detector():
    from tablecam.vision.settings import DetectorSettings

    params = DetectorSettings.model_fields
    knobs = _tune_module().KNOBS
    assert len({kw for _, kw, *_ in knobs}) == len(knobs)
    for option, kwarg, cast, default, _ in knobs:
        assert kwarg in params, f"{option}: DetectorSettings has no setting {kwarg}"
        values = [cast(float(v)) for v in default.split(",")]
        shipped = params[kwarg].default
        if shipped is None:
            shipped = NONE_MEANS[kwarg]
        assert values[0] == shipped, f"{option}: tune.py starts at {values[0]}, detect() ships {shipped}"


def test_every_tuning_option_is_documented():
    for option, _, _, _, what in _tune_module().KNOBS:
        assert option.startswith("--") and len(what) > 10, option
