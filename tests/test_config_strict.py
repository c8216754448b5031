"""Every config a user edits is strict in one style: a shipped file with one
key misspelt is refused with a ``ConfigError`` naming the file and the key.

A typo that silently leaves a setting at its default (a broker address, the
broadcast delay, a zone's seat, a detector step) runs a table nobody chose,
so each loader is checked from its real shipped file plus one wrong key.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablecam.config import ConfigError, load_championship_config, load_table_config
from tablecam.server.config import ServerConfig
from tablecam.vision.classify import MODELS_DIR
from tablecam.vision.settings import SETTINGS_FILE, load_settings
from tablecam.vision.zones import DEFAULT_CONFIG, CameraConfig

REPO = Path(__file__).resolve().parents[1]


def _toml_with(src: Path, dst: Path, section: str, line: str) -> Path:
    """``src`` with ``line`` added at the top of ``[section]``."""
    text = src.read_text()
    head = f"[{section}]\n"
    assert head in text, (src, section)
    dst.write_text(text.replace(head, head + line + "\n", 1))
    return dst


# (name, shipped file, section, the misspelt line, the key the error must name, loader)
TOML_CONFIGS = [
    ("table", REPO / "config/table.toml", "bus", "prot = 1883", "bus.prot", load_table_config),
    ("championship table", REPO / "config/championship-table.toml", "table", 'gmae = "vira"', "table.gmae",
     load_table_config),
    ("championship", REPO / "config/championship.toml", "championship", "tabels = 10", "championship.tabels",
     load_championship_config),
    ("server", REPO / "config/server.example.toml", "broadcast", "delay_bords = 0", "broadcast.delay_bords",
     ServerConfig.load),
    ("camera", DEFAULT_CONFIG, "stability", "fames = 3", "stability.fames", CameraConfig.load),
]


@pytest.mark.parametrize("name,src,section,line,key,load", TOML_CONFIGS, ids=[c[0] for c in TOML_CONFIGS])
def test_a_shipped_config_loads_and_a_misspelt_key_is_refused_by_name(tmp_path, name, src, section, line, key, load):
    load(str(src))                                    # the shipped file itself is valid
    bad = _toml_with(src, tmp_path / src.name, section, line)
    with pytest.raises(ConfigError) as e:
        load(str(bad))
    assert f"unknown key '{key}'" in str(e.value) and str(bad) in str(e.value)


def test_detector_settings_file_refuses_an_unknown_setting_and_key_by_name(tmp_path):
    shutil.copy(MODELS_DIR / SETTINGS_FILE, tmp_path / SETTINGS_FILE)
    assert load_settings(tmp_path) == load_settings(MODELS_DIR)
    data = json.loads((MODELS_DIR / SETTINGS_FILE).read_text())
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({**data, "settings": {**data["settings"], "nudge_rouns": 4}}))
    with pytest.raises(ConfigError, match="nudge_rouns"):
        load_settings(tmp_path)
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({**data, "setings": {}}))
    with pytest.raises(ConfigError, match=r"detector.json: unknown key 'setings'"):
        load_settings(tmp_path)


def test_a_wrong_value_names_the_key_and_an_unreadable_file_names_the_file(tmp_path):
    bad = tmp_path / "camera.toml"
    bad.write_text("[stability]\nframes = 'three'\n")
    with pytest.raises(ConfigError, match=r"camera.toml: 'stability.frames'"):
        CameraConfig.load(bad)
    (tmp_path / "broken.toml").write_bytes(b"[table\n\xff")
    for load in (load_table_config, CameraConfig.load, ServerConfig.load):
        with pytest.raises((ConfigError, UnicodeDecodeError)) as e:
            load(str(tmp_path / "broken.toml"))
        assert e.type is ConfigError and "broken.toml" in str(e.value), load
