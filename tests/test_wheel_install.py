"""An installed wheel works as the checkout does.

Rule tables and shipped models are package data: a wheel built from a fresh
clone and installed without ``-e`` must replay every game and detect cards
from a folder that is not the repository, with the same output as the
checkout. A file read through the repository layout (``parents[2] /
"config"``) works in a checkout and breaks in ``site-packages``; only this
test notices.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT.parent / "shared" / "data" / "real-photos" / "edje" / "test" / "IMG_2383.JPG"
LOGS = {
    "bridge": ROOT / "tests/data/bridge/revoke_transfer.jsonl",
    "vira": ROOT / "tests/data/vira/vira-8-spel-bet.jsonl",
    "pidro": ROOT / "tests/data/pidro/game-to-62.jsonl",
    "whist": ROOT / "tests/data/whist/renons-makker-es.jsonl",
    "bridge PBN archive": ROOT / "tests/data/archive/realbridge-sample.pbn",
    "bridge LIN archive": ROOT / "tests/data/archive/vugraph.lin",
}
TRAINING_ONLY = {"card_classifier_stage12.json", "card_classifier_stage14.json"}
"""Files beside the shipped models that only the training recipes read (``tablecam average-classifiers``)."""


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TABLECAM_CONFIG")}


def _run(python: Path | str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = _clean_env() if python != sys.executable else None
    return subprocess.run([str(python), "-m", "tablecam", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a fresh clone of this checkout's committed files."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs a git checkout to clone")
    tmp = tmp_path_factory.mktemp("wheel")
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True, timeout=120)
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(dist), str(clone)], check=True, timeout=300)
    shutil.rmtree(clone)
    return next(dist.glob("tablecam-*.whl"))


@pytest.fixture(scope="module")
def wheel_python(wheel, tmp_path_factory) -> Path:
    """A new venv with tablecam installed from the wheel, without ``-e``.

    The new venv sees this venv's dependencies through a ``.pth`` path line
    (so nothing is downloaded), but not its editable ``tablecam``: a path
    line does not run the ``.pth`` files of the folder it adds.
    """
    tmp = tmp_path_factory.mktemp("venv")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
                   check=True, timeout=300)
    return py


def test_the_wheel_ships_what_the_runtime_reads_and_no_training_checkpoints(wheel):
    """Every rule table, model and page the runtime opens is in the wheel;
    the torch checkpoints (``*.pt``, the training recipes' ``--init``) and
    the averaged classifier's member recipe are not: nothing at run time
    reads them, and they would only make every install bigger."""
    names = set(zipfile.ZipFile(wheel).namelist())
    runtime_data = {str(p.relative_to(ROOT)) for p in (ROOT / "tablecam").rglob("*")
                    if p.is_file() and p.suffix in (".json", ".toml", ".onnx", ".html", ".js", ".css", ".svg")
                    and p.name not in TRAINING_ONLY}
    assert runtime_data and runtime_data <= names, sorted(runtime_data - names)
    assert not [n for n in names if n.endswith(".pt") or Path(n).name in TRAINING_ONLY]


def test_the_wheel_is_installed_not_the_checkout(wheel_python, tmp_path):
    out = subprocess.run([str(wheel_python), "-c", "import tablecam; print(tablecam.__file__)"], cwd=tmp_path,
                         env=_clean_env(), capture_output=True, text=True, check=True).stdout
    assert "site-packages" in out and str(ROOT) not in out


@pytest.mark.parametrize("game", sorted(LOGS))
def test_an_installed_wheel_replays_every_game_as_the_checkout_does(wheel_python, tmp_path, game):
    path = LOGS[game]
    installed = _run(wheel_python, ["replay", str(path), "--json"], tmp_path)
    checkout = _run(sys.executable, ["replay", str(path), "--json"], ROOT)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout == checkout.stdout and installed.stdout.strip()


@pytest.mark.skipif(not PHOTO.exists(), reason="no real photos in ../shared/data")
def test_an_installed_wheel_detects_cards_as_the_checkout_does(wheel_python, tmp_path):
    """The same cards, confidences and boxes: the same models and settings are read."""
    installed = _run(wheel_python, ["detect", str(PHOTO), "--json"], tmp_path)
    checkout = _run(sys.executable, ["detect", str(PHOTO), "--json"], ROOT)
    assert installed.returncode == 0, installed.stderr
    assert json.loads(installed.stdout)["cards"] and json.loads(installed.stdout) == json.loads(checkout.stdout)
