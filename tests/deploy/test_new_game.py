"""A game is one folder: a throwaway game package (Countdown: take 1 or 2 from a pile, whoever takes
the last wins) is written into a temporary copy of the tree, registered for subprocesses only (a
``.dist-info`` with its ``entry_points.txt`` on their ``PYTHONPATH``: nothing is installed into the
shared venv), then ``make generate``'s command writes every derived file and the contract suite
(``tests/contract``) plays it. Nothing outside the game's folder is edited by hand: the files that
change are the generated ones, changed by the generator, and each now serves the new game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from deploy.test_generated import ROOT, copy_tree
from ludoteca.entrypoints import generate
from ludoteca.service_layer import registry

GAME = "countdown"
PORT = 8765

PYPROJECT = f"""\
[project]
name = "ludoteca-{GAME}"
version = "0.1.0"
dependencies = ["ludoteca"]

[project.entry-points."ludoteca.games"]
{GAME} = "{GAME}.game:definition"
"""

GAME_PY = f'''\
"""Countdown: a pile of ``start`` tokens; in turn each seat takes 1 or 2; whoever takes the last wins.
Written as docs/adding-a-game.md says (Pig's shape): a typed action, legality stated once, a handler
that returns its events."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ludoteca.core.actions import NOTHING, Action, ActionEngine, ActionTypes, Legal, Outcome
from ludoteca.core.engine import JSON, Event, GameDefinition, GameResult, Hosting, TestFacts, evolve
from ludoteca.core.errors import FieldValidationError
from ludoteca.core.rng import Rng
from marshmallow import RAISE, Schema, fields, validate


@dataclass(frozen=True)
class Take(Action, type="take"):
    count: int


@dataclass(frozen=True)
class State:
    left: int
    seats: int
    bound: int
    turn: int = 0
    actions: int = 0
    winner: int | None = None


class Engine(ActionEngine[State, Take]):
    state_type = State
    actions = ActionTypes(Take)
    min_seats = 2
    max_seats = 3

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        return int(options["start"]) + 1  # normal play takes at most ``start``

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> State:
        if not self.min_seats <= len(players) <= self.max_seats:
            raise FieldValidationError("2 or 3 seats")
        return State(left=int(options["start"]), seats=len(players), bound=self.max_actions(options, len(players)))

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state.winner is not None else frozenset({{state.turn}})

    def legal(self, state: State, seat: int) -> Legal[Take]:
        if state.winner is not None or seat != state.turn:
            return NOTHING
        return Legal(tuple(Take(c) for c in (1, 2) if c <= state.left))

    def play(self, state: State, seat: int, action: Take) -> Outcome[State]:
        count = action.count
        left = state.left - count
        new = evolve(state, left=left, actions=state.actions + 1, turn=(seat + 1) % state.seats,
                     winner=seat if left == 0 else None)
        return new, [Event("Taken", {{"seat": seat, "count": count, "left": left}})]

    def bound(self, state: State) -> int:
        return state.bound

    def over(self, state: State) -> bool:
        return state.winner is not None

    def actions_taken(self, state: State) -> int:
        return state.actions

    def end_at_bound(self, state: State, seat: int) -> Outcome[State]:
        return evolve(state, winner=seat), [Event("BoundReached", {{"actions": state.actions}})]

    def view(self, state: State, seat: int | None) -> JSON:
        return {{"seat": seat, "left": state.left, "turn": state.turn, "winner": state.winner}}

    def result(self, state: State) -> GameResult | None:
        if state.winner is None:
            return None
        bound = {{"reached": "actions", "limit": state.bound}} if state.actions >= state.bound else None
        scores = tuple(1.0 if s == state.winner else 0.0 for s in range(state.seats))
        return GameResult((state.winner,), scores, {{"bound": bound}})


class _Strict(Schema):
    class Meta:
        unknown = RAISE


class OptionsSchema(_Strict):
    start = fields.Integer(load_default=10, strict=True, validate=validate.Range(1, 100))


class TakeSchema(_Strict):
    type = fields.String(required=True, validate=validate.Equal("take"))
    count = fields.Integer(required=True, strict=True, validate=validate.Range(1, 2))


class ViewSchema(Schema):
    seat = fields.Integer(required=True, allow_none=True)
    left = fields.Integer(required=True)
    turn = fields.Integer(required=True)
    winner = fields.Integer(required=True, allow_none=True)


def take_one(view: JSON, legal: Sequence[JSON], rnd: random.Random) -> JSON:
    return dict(legal[0])


def leave_multiple_of_three(view: JSON, legal: Sequence[JSON], rnd: random.Random) -> JSON:
    want = view["left"] % 3
    return next((dict(a) for a in legal if a["count"] == want), dict(legal[0]))


definition = GameDefinition(
    name="{GAME}",
    title="Countdown",
    engine=Engine(),
    options_schema=OptionsSchema,
    action_schemas={{"take": TakeSchema}},
    view_schema=ViewSchema,
    bots={{"one": take_one, "smart": leave_multiple_of_three}},
    description="Take 1 or 2 from the pile; whoever takes the last wins.",
    basic_bot="smart",
    hosting=Hosting(port={PORT}),
    tests=TestFacts(quick_options={{"start": 5}}, option_samples=({{"start": 1}}, {{"start": 100}})),
)
'''


def write_game(root: Path, site: Path, source: str = GAME_PY) -> None:
    """The game's folder in ``root/services`` and its registration in ``site``: what ``pip
    install -e`` would leave in a venv, for the processes given ``site`` on their path only."""
    folder = root / "services" / GAME
    (folder / GAME).mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / "RULES.md").write_text("# Countdown\n\n## 1. Taking (`TestTaking`)\n\nTake 1 or 2; the last wins.\n")
    (folder / GAME / "__init__.py").write_text("")
    (folder / GAME / "game.py").write_text(source)
    info = site / f"ludoteca_{GAME}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ludoteca-{GAME}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[ludoteca.games]\n{GAME} = {GAME}.game:definition\n")


def runner(root: Path, site: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Runs ``python argv...`` here with the game registered (``site``) and importable."""
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(site), str(root / "services" / GAME), os.environ.get("PYTHONPATH", "")])}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)

    return run


def snapshot(root: Path) -> dict[Path, str]:
    return {p.relative_to(root): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_new_game_is_one_folder(tmp_path: Path) -> None:
    root, site = tmp_path / "root", tmp_path / "site"
    root.mkdir()
    copy_tree(ROOT, root)
    assert generate.main(["--root", str(root)]) == 0  # the copy, up to date with the installed games
    before = snapshot(root)
    write_game(root, site)
    run = runner(root, site)

    listed = run("-c", "from ludoteca.service_layer import registry; print(registry.names())")
    assert GAME in listed.stdout, listed.stderr
    done = run("-m", "ludoteca.entrypoints.generate", "--root", str(root))
    assert done.returncode == 0, done.stderr
    assert run("-m", "ludoteca.entrypoints.generate", "--root", str(root), "--check").returncode == 0
    contract = run("-m", "pytest", "-p", "no:cacheprovider", "-q", "-k", GAME, "tests/contract")
    assert contract.returncode == 0 and " passed" in contract.stdout, contract.stdout[-4000:] + contract.stderr[-2000:]

    after = snapshot(root)
    changed = {rel for rel in after if before.get(rel) != after[rel]}
    folder = {rel for rel in changed if rel.parts[:2] == ("services", GAME)}
    written = {Path(line.removeprefix("wrote ")) for line in done.stdout.splitlines()}
    assert changed - folder == written, "a file outside the game's folder changed but by the generator"
    assert set(before) <= set(after)
    text = {rel: after[rel] for rel in written}
    assert f"-e ./services/{GAME}" in text[generate.REQUIREMENTS].splitlines()
    assert "- **Countdown**: " in text[generate.README]  # the README's list (no page yet: its description)
    assert f"\n{GAME}: env LUDOTECA_GAME={GAME} " in text[generate.PROCFILE]
    assert f"-b 127.0.0.1:{PORT} " in text[generate.PROCFILE]
    assert f"\n  {GAME}:\n" in text[generate.COMPOSE] and f"\n  worker-{GAME}:\n" in text[generate.COMPOSE]
    assert f"{GAME}: {{condition: service_healthy}}" in text[generate.COMPOSE]
    assert f"reverse_proxy {GAME}:{PORT} " in text[generate.CADDYFILE]
    assert f"path: /{GAME}," in text[generate.INGRESS]
    assert f"name: worker-{GAME}\n" in text[Path("deploy/k8s/ludoteca.yaml")]
    assert f"listName: {GAME}\n" in text[Path("deploy/k8s/optional/keda-workers.yaml")]
    assert json.loads(text[generate.OPENAPI / f"{GAME}.json"])["info"]["title"] == "Ludoteca Countdown"
    # registered for the subprocesses only: this process (the shared venv) never saw it
    assert GAME not in registry.names()



BROKEN = [
    ("bound", "bound=self.max_actions(options, len(players))", "bound=int(options['start']) + 1"),
    ("public-event", 'return new, [Event("Taken", {"seat": seat, "count": count, "left": left})]', "return new, []"),
    ("bound-summary", 'bound = {"reached": "actions", "limit": state.bound} if state.actions >= state.bound else None',
     "bound = None"),
]


@pytest.mark.parametrize(("name", "good", "bad"), BROKEN, ids=[b[0] for b in BROKEN])
def test_the_contract_suite_names_the_rule_a_game_breaks(tmp_path: Path, name: str, good: str, bad: str) -> None:
    """The same game with one rule of the Engine docstring broken: the suite fails, naming it."""
    assert good in GAME_PY
    write_game(tmp_path / "root", tmp_path / "site", GAME_PY.replace(good, bad))
    run = runner(tmp_path / "root", tmp_path / "site")
    # the engine's contract (where every rule broken here is checked): the rest of the suite plays
    # the broken game over HTTP, and a game whose moves tell nothing leaves its long-polls waiting
    # out their whole wait (the numbering tests took 240 s)
    contract = run("-m", "pytest", "-p", "no:cacheprovider", "-q", "-k", GAME, "tests/contract/test_engine_contract.py")
    assert contract.returncode == 1, contract.stdout[-3000:]
    assert f"engine rule {name!r}" in contract.stdout, contract.stdout[-3000:]
