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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT.parent / "shared" / "data" / "real-photos" / "edje" / "test" / "IMG_2383.JPG"
LOGS = {
    "bridge": ROOT / "tests/data/bridge/revoke_transfer.jsonl",
    "vira": ROOT / "tests/data/vira/vira-8-spel-bet.jsonl",
    "pidro": ROOT / "tests/data/pidro/game-to-62.jsonl",
    "whist": ROOT / "tests/data/whist/renons-makker-es.jsonl",
}


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TABLECAM_CONFIG")}


def _run(python: Path | str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = _clean_env() if python != sys.executable else None
    return subprocess.run([str(python), "-m", "tablecam", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory) -> Path:
    """A new venv with tablecam installed from a wheel of a fresh clone.

    The new venv sees this venv's dependencies through a ``.pth`` path line
    (so nothing is downloaded), but not its editable ``tablecam``: a path
    line does not run the ``.pth`` files of the folder it adds.
    """
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs a git checkout to clone")
    tmp = tmp_path_factory.mktemp("wheel")
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True, timeout=120)
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(dist), str(clone)], check=True, timeout=300)
    wheel = next(dist.glob("tablecam-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
                   check=True, timeout=300)
    shutil.rmtree(clone)
    return py


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
    installed = _run(wheel_python, ["detect", str(PHOTO), "--json"], tmp_path)
    checkout = _run(sys.executable, ["detect", str(PHOTO), "--json"], ROOT)
    assert installed.returncode == 0, installed.stderr
    cards = [c["card"] for c in json.loads(installed.stdout)["cards"]]
    assert cards and cards == [c["card"] for c in json.loads(checkout.stdout)["cards"]]
