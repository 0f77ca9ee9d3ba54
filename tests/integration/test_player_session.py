"""The players' phone-like session (``docs/walkthroughs/players/phone_session.py``) runs as a
person would run it, against the real stack (every game and the players service behind the front
door, the Celery worker playing the bots): two guest players, five games of two kinds (created
and matched), every turn told on one stream per player, the ratings after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FrontDoor

pytestmark = pytest.mark.integration
SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "walkthroughs" / "players" / "phone_session.py"


@pytest.mark.timeout(400)
def test_a_phone_session_plays_five_games_from_one_stream(front_door: FrontDoor, worker: Path) -> None:
    try:
        done = subprocess.run([sys.executable, str(SCRIPT), front_door.url], capture_output=True, text=True,
                              timeout=360)
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"the session did not finish in 360 s:\n{str(err.stdout)[-3000:]}")
    out = done.stdout
    print(out)  # the session as a phone shows it (pytest -s)
    assert done.returncode == 0, out[-3000:] + done.stderr[-2000:]
    assert "session ok" in out and "created 3 games of Pig" in out and "in 2 games of Ludix" in out, out
    ada = next(line for line in out.splitlines() if line.startswith("Ada: one stream"))
    assert "'game_finished': 5" in ada and "'matched': 2" in ada, ada
    assert "pig leaderboard, rated: " in out and "Ada (ordinal" in out, out
