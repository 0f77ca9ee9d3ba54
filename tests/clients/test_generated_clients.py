"""Clients generated from the exported documents, as a third party would make them.

A session fixture runs openapi-python-client (pinned in requirements-dev.txt) on each
``openapi/<game>.json`` into a temporary directory, with no edit, and imports the package. Each
test then plays a whole game of one game, a human seat against the game's bots, through the real
stack (gunicorn services behind the front door, the real Redis and the real Celery worker that
plays the bots), with the generated code only: every request is one of its functions, every
answer one of its models, the problems included (a 409 for an illegal action, with its typed
`legal` list, and a 412 for a stale If-Match). The human's choices are the game's own bot run
on the view the client received (the bot picks among the listed actions, or fills a template).
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import FrontDoor
from ludoteca.service_layer import registry

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
# the levels of the bots at the table and of the human's advisor: the level that makes a real game
# of it, and a quick game's options (each game's TestFacts)
GAME_SECONDS = 240.0


@dataclass
class Generated:
    package: ModuleType
    name: str

    def module(self, path: str) -> Any:
        return importlib.import_module(f"{self.name}.{path}")


@pytest.fixture(scope="session")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Generated]]:
    out = tmp_path_factory.mktemp("clients")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    made = {}
    for game in registry.names():
        name = f"{game}_client"
        run = subprocess.run([str(GENERATOR), "generate", "--path", str(ROOT / "openapi" / f"{game}.json"),
                              "--meta", "none", "--output-path", str(out / name)],
                             capture_output=True, text=True, timeout=120, env=env, check=False)
        assert run.returncode == 0 and (out / name / "client.py").exists(), run.stdout + run.stderr
        assert "Warning" not in run.stdout, f"{game}: the generator skipped something:\n{run.stdout}"
        made[game] = name
    sys.path.insert(0, str(out))
    try:
        yield {game: Generated(importlib.import_module(name), name) for game, name in made.items()}
    finally:
        sys.path.remove(str(out))


def as_json(model: Any) -> Any:
    return model.to_dict()


def play_whole_game(game: str, gen: Generated, base: str) -> dict[str, Any]:
    """One game, seat 0 human, against the bots; returns what the test saw."""
    client_mod = gen.module("client")
    models = gen.module("models")
    api_games = "api.games"
    create_game = gen.module(f"{api_games}.create_game")
    get_game = gen.module(f"{api_games}.get_game")
    list_actions = gen.module(f"{api_games}.list_actions")
    play_action = gen.module(f"{api_games}.play_action")
    get_events = gen.module(f"{api_games}.get_events")
    get_replay = gen.module(f"{api_games}.get_replay")
    prefix = game.capitalize()
    import httpx

    timeout = httpx.Timeout(30.0)
    public = client_mod.Client(base_url=base, timeout=timeout, raise_on_unexpected_status=True)
    definition = registry.game(game)
    level = registry.game(game).playing_level()
    advisor = definition.bots[level]
    seat_kind = getattr(models, f"{prefix}SeatKind")
    seats = [seat_kind("human")] + [seat_kind(f"bot:{level}")] * (definition.engine.min_seats - 1)
    options = getattr(models, f"{prefix}Options").from_dict(dict(registry.game(game).tests.quick_options))
    body = getattr(models, f"{prefix}CreateGame")(seats=seats, name="client", options=options)
    created = create_game.sync_detailed(client=public, body=body)
    assert created.status_code == 201, created.content
    grant = created.parsed
    assert isinstance(grant, getattr(models, f"{prefix}SeatGrant")) and grant.seat == 0
    assert created.headers["Location"].endswith(f"/games/{grant.game.id}")
    gid, token = grant.game.id, grant.token
    me = client_mod.AuthenticatedClient(base_url=base, token=token, timeout=timeout)
    rnd = random.Random(f"{game}-client")
    seen: dict[str, Any] = {"moves": 0, "conflict": None, "stale": None, "replayed": False, "event_types": set()}
    played: list[Any] = []
    ever_listed: list[Any] = []
    last_seq = 0
    deadline = time.monotonic() + GAME_SECONDS
    while True:
        assert time.monotonic() < deadline, f"{game}: not finished in {GAME_SECONDS} s, {seen}"
        view = get_game.sync_detailed(gid, client=me)
        assert view.status_code == 200, view.content
        envelope = view.parsed
        assert isinstance(envelope, getattr(models, f"{prefix}Game"))
        assert isinstance(envelope.status, models.GameStatus)
        assert set(envelope.to_act) <= set(envelope.may_act)
        if envelope.status == models.GameStatus.FINISHED:
            break
        same = get_game.sync_detailed(gid, client=me, if_none_match=view.headers["ETag"])
        assert same.status_code in (200, 304)  # 200: a bot moved in between
        if 0 not in envelope.to_act:
            events = get_events.sync(gid, client=me, after=last_seq, wait=5.0)
            assert isinstance(events, getattr(models, f"{prefix}EventsPage")), events
            for event in events.events:  # each a typed variant, its data a typed model
                assert type(event).__name__ == f"{prefix}Event{event.type_}", event
                assert type(event.data).__name__ == f"{prefix}{event.type_}Data", event.data
                seen["event_types"].add(event.type_)
            last_seq = events.last_seq
            continue
        listed = list_actions.sync(gid, client=me)
        assert isinstance(listed, getattr(models, f"{prefix}LegalActions")), listed
        if listed.version != envelope.version:
            continue  # a bot moved in between
        offered = [*listed.actions, *listed.templates]
        ever_listed.extend(a for a in listed.actions if as_json(a) not in [as_json(b) for b in ever_listed])
        by_type = {as_json(a)["type"]: type(a) for a in offered}
        listed_json = [as_json(a) for a in listed.actions]
        if seen["conflict"] is None:  # an action listed earlier (played or not) and no longer legal
            stale_choice = next((a for a in [*played, *ever_listed] if as_json(a) not in listed_json
                                 and not listed.templates), None)
            if stale_choice is not None:  # once no longer legal: the typed 409
                # If-Match: the legality is judged at the version listed (412 if a bot moved since)
                r = play_action.sync_detailed(gid, client=me, body=stale_choice, if_match=view.headers["ETag"])
                if r.status_code == 412:
                    continue
                assert r.status_code == 409, (r.status_code, r.content)
                problem = r.parsed
                assert isinstance(problem, getattr(models, f"{prefix}ConflictProblem")), problem
                assert problem.type_.endswith("/illegal-action") and problem.status == 409
                assert [as_json(a) for a in problem.legal] == listed_json
                seen["conflict"] = problem
        choice = advisor(as_json(envelope)["state"], [as_json(a) for a in offered], rnd)
        action = next((a for a in listed.actions if as_json(a) == choice), None)
        if action is None:  # a filled template (Ludic's rules)
            action = by_type[choice["type"]].from_dict(choice)
        etag = view.headers["ETag"]
        if seen["stale"] is None and envelope.version > 1:
            r = play_action.sync_detailed(gid, client=me, body=action, if_match=f'"{envelope.version - 1}"')
            assert r.status_code == 412, (r.status_code, r.content)
            problem = r.parsed
            assert isinstance(problem, models.PreconditionFailedProblem), problem
            assert problem.current_version >= envelope.version  # a bot may have moved since
            seen["stale"] = problem
        key = f"{gid}-{seen['moves']}"
        r = play_action.sync_detailed(gid, client=me, body=action, if_match=etag, idempotency_key=key)
        if r.status_code == 412:
            continue  # a bot moved between the view and the move: the If-Match did its job
        assert r.status_code == 200, (r.status_code, r.content)
        result = r.parsed
        assert isinstance(result, getattr(models, f"{prefix}PlayResult")), result
        if not seen["replayed"]:
            again = play_action.sync_detailed(gid, client=me, body=action, idempotency_key=key, if_match=etag)
            assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
            assert as_json(again.parsed) == as_json(result)
            seen["replayed"] = True
        played.append(action)
        seen["moves"] += 1
    final = envelope
    result_type, summary_type = getattr(models, f"{prefix}Result"), getattr(models, f"{prefix}Summary")
    assert isinstance(final.result, result_type), final.result  # typed, not a bare dict
    assert isinstance(final.result.summary, summary_type), final.result.summary  # and its summary too
    assert final.result.winners and len(final.result.scores) == len(seats)
    replay = get_replay.sync(gid, client=public)
    assert isinstance(replay, getattr(models, f"{prefix}Replay")), replay
    assert isinstance(replay.result, result_type) and replay.actions
    assert all(type(e.data).__name__ == f"{prefix}{e.type_}Data" for e in replay.events), replay.events
    seen["result"] = final.result
    return seen


@pytest.mark.parametrize("game", registry.names())
def test_a_generated_client_plays_a_whole_game(game: str, clients: dict[str, Generated], front_door: FrontDoor,
                                               worker: Path) -> None:
    seen = play_whole_game(game, clients[game], f"{front_door.url}/{game}")
    assert seen["moves"] > 0 and seen["replayed"], seen
    assert seen["stale"] is not None, f"{game}: no 412 was tried"
    for _ in range(2):  # a short game (Pig's) may end before an action listed earlier is refused
        if seen["conflict"] is not None:
            break
        seen["conflict"] = play_whole_game(game, clients[game], f"{front_door.url}/{game}")["conflict"]
    assert seen["conflict"] is not None, f"{game}: no illegal action came up to try the 409"
    assert seen["event_types"], f"{game}: no event read"


def test_the_game_loop_of_docs_clients_md_runs(clients: dict[str, Generated], front_door: FrontDoor, worker: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """docs/clients.md shows a generated client's whole game of Ludix: that very block runs."""
    text = (ROOT / "docs" / "clients.md").read_text()
    blocks = text.split("```python\n")
    assert len(blocks) == 2, "docs/clients.md: one python block expected"
    code = blocks[1].split("```", 1)[0]
    assert clients["ludix"].name == "ludix_client"  # the name the block imports
    monkeypatch.setenv("LUDIX_URL", f"{front_door.url}/ludix")
    exec(compile(code, "docs/clients.md", "exec"), {"__name__": "docs_clients_md"})
    assert "winners" in capsys.readouterr().out
