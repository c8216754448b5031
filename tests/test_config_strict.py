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


# -- the games' rule tables (tablecam/rules/<game>/tables, or a club's own in $TABLECAM_CONFIG) --------------

RULES = REPO / "tablecam/rules"


def test_every_shipped_rule_table_loads():
    from tablecam.rules.tables import ViraBidTable, ViraRuleset, load_table, load_vira

    names = {game: sorted(p.stem for p in (RULES / game / "tables").glob("*.json")) for game in ("vira", "pidro", "whist")}
    assert names == {"vira": ["sm-2025", "stockholm-1999"], "pidro": ["no-14-over-14", "sou"],
                     "whist": ["session-example", "whistklubben"]}
    assert load_table("pidro", "sou", "sou").dealer_14_over_14
    assert not load_table("pidro", "no-14-over-14", "sou").dealer_14_over_14  # extends sou, changes one switch
    assert load_table("pidro", "no-14-over-14", "sou").game_to == 62
    assert load_table("whist", "whistklubben", "whistklubben").ladder[-1] == "13+"
    assert load_table("whist", "session-example", "whistklubben").paahaeng_order[0] == "sans"
    assert "GUESS" in load_table("whist", None, "whistklubben").points.status
    ruleset = load_vira("sm-2025", ViraRuleset)
    assert ruleset.sections["revoke"].cite == "J.3" and ruleset.turn_up.counts == {"turné": 1, "vingel": 2}
    assert len(load_vira(ruleset.bid_table, ViraBidTable).contracts) == 40
    assert load_table("pidro", None, "sou") is load_table("pidro", None, "sou")  # parsed once


def _club_tables(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the shipped tables as a club's own folder ($TABLECAM_CONFIG)."""
    for game in ("vira", "pidro", "whist"):
        shutil.copytree(RULES / game / "tables", tmp_path / game)
    monkeypatch.setenv("TABLECAM_CONFIG", str(tmp_path))
    return tmp_path


# (game, file, change to its JSON object, the key the error must name)
RULE_TABLES = [
    ("whist", "whistklubben", lambda d: d.update(frist_lead=d.pop("first_lead")), "unknown key 'frist_lead'"),
    ("pidro", "sou", lambda d: d["bidding"].update(max_bdi=14), "unknown key 'bidding.max_bdi'"),
    ("pidro", "sou", lambda d: d.update(game_to="sixty-two"), "'game_to': Input should be a valid integer"),
    ("pidro", "sou", lambda d: d["points"].pop("pidro"), "points must give 'pidro'"),
    ("vira", "sm-2025", lambda d: d.update(sit_out_pay=d.pop("sit_out_pays")), "unknown key 'sit_out_pay'"),
    ("vira", "stockholm-1999", lambda d: d["contracts"][0].update(trikcs=6), "unknown key 'contracts.0.trikcs'"),
]


@pytest.mark.parametrize("game,name,change,key", RULE_TABLES, ids=[f"{c[0]}-{c[1]}-{c[3][:20]}" for c in RULE_TABLES])
def test_a_rule_table_with_a_misspelt_key_is_refused_by_name(tmp_path, monkeypatch, game, name, change, key):
    from tablecam.rules.tables import check_tables

    folder = _club_tables(tmp_path, monkeypatch)
    check_tables()  # the copies themselves are valid
    path = folder / game / f"{name}.json"
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(ConfigError) as e:
        check_tables()
    assert f"{path}: {key}" in str(e.value)


def test_replay_with_a_bad_club_table_exits_2_naming_the_key(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    folder = _club_tables(tmp_path, monkeypatch)
    path = folder / "pidro" / "sou.json"
    path.write_text(path.read_text("utf-8").replace('"game_to"', '"gmae_to"'), "utf-8")
    log = REPO / "tests/data/pidro/made-9-hearts.jsonl"
    run = subprocess.run([sys.executable, "-m", "tablecam", "replay", str(log)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == f"tablecam replay: {path}: unknown key 'gmae_to'"
