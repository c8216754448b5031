"""The detector's settings: one frozen object, shipped beside the models.

``CardDetector`` reads its settings from ``detector.json`` in its model
directory (:mod:`tablecam.vision.settings`); a key it does not know is
refused by name, so a file written for another version cannot leave a
step at its default unnoticed.
"""

from __future__ import annotations

import json

import pytest

from tablecam.vision.classify import MODELS_DIR
from tablecam.vision.settings import SETTINGS_FILE, DetectorSettings, load_settings


def test_the_shipped_file_gives_every_setting_its_default():
    raw = json.loads((MODELS_DIR / SETTINGS_FILE).read_text())["settings"]
    assert set(raw) == set(DetectorSettings.model_fields)
    assert load_settings(MODELS_DIR) == DetectorSettings()


def test_an_unknown_setting_is_refused_by_name(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({"settings": {"min_conf_rare": 0.9, "nudge_rounds": 4}}))
    with pytest.raises(ValueError, match="nudge_rounds"):
        load_settings(tmp_path)
    with pytest.raises(ValueError, match="unknown detector setting: nudge_rounds"):
        DetectorSettings(nudge_rounds=4)
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({"settings": {}, "setings": {}}))
    with pytest.raises(ValueError, match="setings"):
        load_settings(tmp_path)


def test_a_bad_value_or_file_is_a_clear_error(tmp_path):
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({"settings": {"close_quads": "many"}}))
    with pytest.raises(ValueError, match="close_quads"):
        load_settings(tmp_path)
    (tmp_path / SETTINGS_FILE).write_text("{not json")
    with pytest.raises(ValueError, match=SETTINGS_FILE):
        load_settings(tmp_path)


def test_settings_are_frozen():
    s = DetectorSettings()
    with pytest.raises(Exception):
        s.min_conf_rare = 0.5
    assert s.model_copy(update={"min_conf_rare": 0.8}).min_conf_rare == 0.8 and s.min_conf_rare == 0.9


def test_a_model_directory_without_a_settings_file_takes_the_defaults(tmp_path):
    assert load_settings(tmp_path) == DetectorSettings()


def test_the_detector_runs_on_its_settings_and_refuses_a_setting_it_lacks():
    from tablecam.vision.detector import CardDetector, load_detector

    assert load_detector().settings == load_settings(MODELS_DIR)
    det = CardDetector(close_quads=1)
    assert det.settings.close_quads == 1
    with pytest.raises(ValueError, match="nudge_rounds"):
        CardDetector(nudge_rounds=0)


def test_every_setting_is_described():
    for name, field in DetectorSettings.model_fields.items():
        assert field.description and len(field.description) > 10, name
