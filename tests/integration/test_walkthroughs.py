"""The docs' walkthroughs (``docs/walkthroughs/<game>.sh``) run as a person would run them, with
curl and jq, against the real stack (every game behind the front door, the Celery worker playing
the bots), so a walkthrough never rots: each must finish its game and exit 0."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FrontDoor
from ludoteca.service_layer import registry

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
WALKTHROUGHS = ROOT / "docs" / "walkthroughs"

PRINTS = "# prints: "
"""A line of a walkthrough's header declaring a text its output must hold (the rest of the line,
verbatim): what it shows on the way, besides finishing its game."""


def signs(game: str) -> list[str]:
    """The texts ``docs/walkthroughs/<game>.sh`` declares in its header (its first comment lines)
    that its output must hold; a walkthrough declaring none fails, saying what to add."""
    lines = (WALKTHROUGHS / f"{game}.sh").read_text().splitlines()
    header = itertools.takewhile(lambda line: line.startswith("#"), lines)
    declared = [line.removeprefix(PRINTS).rstrip() for line in header if line.startswith(PRINTS)]
    if not declared:
        pytest.fail(f"docs/walkthroughs/{game}.sh declares nothing it prints: add to its header comment a line "
                    f"`{PRINTS}<text>` for each text its output must hold (e.g. `{PRINTS}seed checks: True`), as "
                    "docs/walkthroughs/pig.sh does")
    return declared


def test_every_game_has_a_walkthrough() -> None:
    assert sorted(p.stem for p in WALKTHROUGHS.glob("*.sh") if p.stem != "lib") == sorted(registry.names())


@pytest.mark.parametrize("game", registry.names())
def test_every_walkthrough_declares_what_it_prints(game: str) -> None:
    assert all(signs(game)), f"docs/walkthroughs/{game}.sh: an empty `{PRINTS}` line"


@pytest.mark.parametrize("game", registry.names())
def test_walkthrough_plays_a_whole_game(game: str, front_door: FrontDoor, worker: Path, tmp_path: Path) -> None:
    if shutil.which("jq") is None:
        pytest.fail("jq is missing: `make install` installs it (apt-get install -y jq)")
    expected = signs(game)
    env = {**os.environ, "G": f"{front_door.url}/{game}"}
    try:
        done = subprocess.run(["bash", str(WALKTHROUGHS / f"{game}.sh")], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"{game}'s walkthrough did not finish in 240 s:\n{str(err.stdout)[-3000:]}")
    out = done.stdout
    assert done.returncode == 0, f"{game}: exit {done.returncode}\n{out[-3000:]}\n{done.stderr[-2000:]}"
    assert "parse error" not in done.stderr and "Cannot" not in done.stderr, done.stderr[-2000:]
    for sign in expected:
        assert sign in out, f"{game}: {sign!r} not printed:\n{out[-3000:]}"


def test_the_readmes_curl_game_runs(front_door: FrontDoor, worker: Path, tmp_path: Path) -> None:
    """The README's short curl game, as a newcomer pastes it (G pointed at this stack's door)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A short game with curl"):]
    block = section[section.index("```sh\n") + 6:section.index("\n```", section.index("```sh\n"))]
    assert block.startswith("G=http://127.0.0.1:8000/ludix\n")
    script = block.replace("G=http://127.0.0.1:8000/ludix", f"G={front_door.url}/ludix", 1)
    done = subprocess.run(["bash", "-uo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert '"DiceThrown"' in done.stdout and '"GameCreated"' in done.stdout, done.stdout
    assert "error" not in done.stderr.lower(), done.stderr
