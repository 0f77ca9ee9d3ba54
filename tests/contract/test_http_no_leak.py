"""No leak through any HTTP route, for every registered game (Flask test client, real Redis).

Every seat of an all-human game is claimed and the game is played with random listed actions.
At each step, for every seat and a spectator, against the state read from the store:

- ``GET /games/{id}``: its ``state`` is exactly the engine's view for the caller's seat, its ETag
  only the version (``"<n>"``; ``If-None-Match`` gives 304 with no body);
- ``GET .../actions``: exactly the caller's legal actions and templates;
- ``GET .../events`` (and long-polls with ``wait``): exactly the events whose audience includes
  the caller, in order, without the audience, numbered from the caller's side (1, 2, 3, ...: no
  gap tells of an event written for another; ``test_numbering.py`` checks every number);
- ``POST .../actions``: the mover's response holds its own view and its own events; a refused
  move (409) lists under ``legal`` only the caller's legal actions;
- the lobby, creation and join responses: nothing but the caller's own token;

and in no response before the end: the secret seed, a token hash, or another seat's token. What
each seat may not know in the state itself is checked by the engine contract's twins on the same
stored states (a seat's view, actions and error bodies do not change when those secrets do).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from api_client import Api
from contract.playing import GAMES, canonical, check_views, random_action
from contract.twins import private_events
from ludoteca.service_layer import registry

STEPS = 40
LONG_POLL_EVERY = 6
ETAG = re.compile(r'^"(\d+)"$')


class Watch:
    """Every response body read before the end, to search for secrets once all are known."""

    def __init__(self) -> None:
        self.bodies: list[tuple[int | None, str]] = []

    def add(self, seat: int | None, data: Any) -> None:
        self.bodies.append((seat, data if isinstance(data, str) else json.dumps(data)))


def roundtrip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def visible(records: list[dict[str, Any]], seat: int | None, before: list[dict[str, Any]] | None = None
            ) -> list[dict[str, Any]]:
    """The events of ``records`` ``seat`` may see, numbered as it sees them: on from its events
    among ``before`` (the records written earlier), without gaps (``test_numbering.py``)."""
    first = len(visible(before, seat)) + 1 if before else 1
    mine = [r for r in records if r["audience"] is None or (seat is not None and seat in r["audience"])]
    return [{"seq": n, **{k: r[k] for k in ("version", "type", "data")}} for n, r in enumerate(mine, first)]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", GAMES)
def test_no_route_leaks_anything_a_caller_may_not_know(game: str, client_factory: Any) -> None:
    definition = registry.game(game)
    engine = definition.engine
    api = Api(client_factory(game))
    service = api.c.application.extensions["ludoteca"]["service"]
    n = min(engine.max_seats, max(engine.min_seats, 3))
    rnd = random.Random(f"contract-http-{game}")
    watch = Watch()

    status, created, headers = api.call("POST", "/games", body={"seats": ["human"] * n, "name": "first"})
    assert status == 201, created
    gid, tokens = created["game"]["id"], [created["token"]]
    watch.add(0, created)
    assert ETAG.match(headers["ETag"]) and int(ETAG.match(headers["ETag"])[1]) == created["game"]["version"]
    stored = service.store.load(gid)
    assert created["game"]["state"] == roundtrip(engine.view(engine.load(stored.doc["state"]), 0))

    status, lobby, _ = api.call("GET", "/games?page_size=100")
    assert status == 200
    watch.add(None, lobby)
    mine = [item for item in lobby["items"] if item["id"] == gid]
    assert mine and set(mine[0]) <= {"id", "version", "created_at", "seats", "open_seats", "players", "options"}

    for seat in range(1, n):
        status, joined = api.join(gid, name=f"p{seat}")
        assert status == 201 and joined["seat"] == seat, joined
        tokens.append(joined["token"])
        watch.add(seat, joined)
        state = engine.load(service.store.load(gid).doc["state"])
        assert joined["game"]["state"] == roundtrip(engine.view(state, seat))

    seats: list[int | None] = [None, *range(n)]
    token_of = {None: None, **dict(enumerate(tokens))}
    steps = 0
    while True:
        stored = service.store.load(gid)
        state = engine.load(stored.doc["state"])
        records = [rec for _, rec in service.store.events_after(gid, 0, count=1_000_000)]
        over = engine.result(state) is not None
        if over or steps >= STEPS:
            break
        check_views(definition, state, n, rnd)  # the stored state: views do not depend on secrets
        for seat in seats:
            token = token_of[seat]
            status, body, headers = api.call("GET", f"/games/{gid}", token)
            assert status == 200
            watch.add(seat, body)
            assert headers["ETag"] == f'"{stored.version}"' and body["version"] == stored.version
            assert body["you"] == seat and body["state"] == roundtrip(engine.view(state, seat))
            resp = api.c.get(f"/games/{gid}", headers={"If-None-Match": headers["ETag"],
                                                       **({"Authorization": f"Bearer {token}"} if token else {})})
            assert resp.status_code == 304 and resp.data == b"" and resp.headers["ETag"] == headers["ETag"]
            status, page, _ = api.call("GET", f"/games/{gid}/events?after=0", token)
            assert status == 200
            watch.add(seat, page)
            assert page["events"] == visible(records, seat)[: len(page["events"])]
            if seat is None:
                status, body, _ = api.call("GET", f"/games/{gid}/actions")
                assert status == 401
                continue
            status, listed, headers = api.call("GET", f"/games/{gid}/actions", token)
            assert status == 200 and headers["ETag"] == f'"{stored.version}"'
            watch.add(seat, listed)
            compact = getattr(engine, "compact_listing", lambda state, seat: None)(state, seat)
            actions, templates = compact or (engine.legal_actions(state, seat), engine.action_templates(state, seat))
            assert listed["actions"] == roundtrip(actions) and listed["templates"] == roundtrip(templates)
            if compact is not None:  # the full list, on demand
                status, full, _ = api.call("GET", f"/games/{gid}/actions?expand=true", token)
                assert status == 200 and full["actions"] == roundtrip(engine.legal_actions(state, seat))
                assert full["templates"] == roundtrip(engine.action_templates(state, seat))
            # A refused move: another seat's listed action, or an old one, never this seat's own.
            own = roundtrip(engine.legal_actions(state, seat))
            others = [a for s in range(n) if s != seat for a in roundtrip(engine.legal_actions(state, s))]
            probe = next((a for a in rnd.sample(others, min(5, len(others))) if a not in own), None)
            if probe is not None and probe["type"] not in {t["type"] for t in listed["templates"]}:
                status, problem, _ = api.play(gid, token, probe)
                watch.add(seat, problem)
                assert status in (409, 422), (status, problem)
                if "legal" in problem:
                    assert problem["legal"] == own, "a 409 lists someone else's legal actions"
        # The move, by one seat to act.
        seat = rnd.choice(sorted(engine.to_act(state)))
        action = random_action(definition, state, seat, rnd)
        status, played, headers = api.play(gid, tokens[seat], action, If_Match=f'"{stored.version}"')
        assert status == 200, (action, played)
        watch.add(seat, played)
        assert ETAG.match(headers["ETag"]) and played["game"]["version"] == int(ETAG.match(headers["ETag"])[1])
        after = service.store.load(gid)
        new_state = engine.load(after.doc["state"])
        new_records = [rec for _, rec in service.store.events_after(gid, 0, count=1_000_000)]
        for r in new_records:
            if r["type"] in private_events(game):
                assert r["audience"] is not None and len(r["audience"]) < n, f"{r['type']} stored for everyone"
        assert played["game"]["state"] == roundtrip(engine.view(new_state, seat))
        fresh = [r for r in new_records if r["seq"] > (records[-1]["seq"] if records else 0)]
        assert played["events"] == visible(fresh, seat, records)
        if steps % LONG_POLL_EVERY == 0:
            for watcher in seats:
                last = len(visible(records, watcher))  # the watcher's own last number
                status, page, _ = api.call("GET", f"/games/{gid}/events?after={last}&wait=1", token_of[watcher])
                assert status == 200
                watch.add(watcher, page)
                expected = visible(fresh, watcher, records)
                assert page["events"] == expected[: len(page["events"])]
                assert all(e["seq"] > last for e in page["events"])
        steps += 1

    stored = service.store.load(gid)
    seed = stored.doc["seed"]
    hashes = [h for h in stored.doc["token_hashes"] if h]
    assert len(hashes) == n and len(seed) >= 32
    for seat, text in watch.bodies:
        assert seed not in text, f"the secret seed reached seat {seat}"
        for h in hashes:
            assert h not in text, f"a token hash reached seat {seat}"
        for other, token in enumerate(tokens):
            if other != seat:
                assert token not in text, f"seat {other}'s token reached seat {seat}"
    assert canonical(watch.bodies[0]) != ""  # something was read
