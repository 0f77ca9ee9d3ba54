"""The examples of a game's OpenAPI document, made by its own engine (never written by hand, so
they cannot drift from the rules): a table of humans dealt from a fixed seed and its first move.

Deterministic (a fixed seed, ids, tokens and clock; the bots draw from seeded generators), so
the exported files stay as they are; built when a document is first rendered, not per app.
"""

from __future__ import annotations

from typing import Any

from ludoteca.engine import GameDefinition
from ludoteca.presenter import Presenter, is_visible, public_event, result_body
from ludoteca.record import GameRecord, Status
from ludoteca.rng import Rng, commitment
from ludoteca.service import _event_record

SEED = "5eed" * 16
GAME_ID = "9f3c2a7d41b0e856"
TOKEN = "kq3Vx0rN8eTz4bW1yH6uJ2mD5sLf9cPa7gXoEiRn0Yw"
CREATED_AT = 1764590400.0
NAMES = ("ana", "bo", "cy", "di", "ed", "flo", "gil", "hal")


def _record(d: GameDefinition, players: list[str], state: Any, status: Status, claimed: int) -> GameRecord:
    n = len(players)
    names = tuple(NAMES[i] if i < claimed else "" for i in range(n))
    hashes = tuple("x" if i < claimed else None for i in range(n))
    return GameRecord(id=GAME_ID, players=tuple(players), names=names, token_hashes=hashes, options={},
                      seed=SEED, seed_sha256=commitment(SEED), created_at=CREATED_AT, event_count=1,
                      status=status, state=d.engine.dump(state))


def operation_examples(d: GameDefinition) -> dict[str, dict[str, Any]]:
    """operationId -> {"request": body, "response": the main answer} (either may be absent)."""
    engine, presenter = d.engine, Presenter(d)
    options = dict(d.options_schema().load({}))
    n = engine.min_seats
    humans = ["human"] * n
    state = engine.new_game(humans, options, Rng(SEED))
    active = _record(d, humans, state, Status.ACTIVE, n)
    waiting = _record(d, humans, state, Status.WAITING, 1)
    seat = next((s for s in sorted(engine.to_act(state)) if engine.legal_actions(state, s)), 0)
    legal = engine.legal_actions(state, seat)
    envelope = presenter.envelope(n, active, seat, state)
    created = {"seq": 1, "version": 1, "type": "GameCreated", "audience": None,
               "data": {"seats": humans, "options": options, "seed_sha256": commitment(SEED)}}
    out: dict[str, dict[str, Any]] = {
        "createGame": {"request": {"seats": humans, "name": NAMES[0]},
                       "response": {"seat": 0, "token": TOKEN, "game": presenter.envelope(1, waiting, 0, state)}},
        "joinGame": {"request": {"seat": 1, "name": NAMES[1]},
                     "response": {"seat": 1, "token": TOKEN, "game": presenter.envelope(n, active, 1, state)}},
        "listGames": {"response": {"items": [{
            "id": GAME_ID, "version": 1, "created_at": CREATED_AT, "seats": n, "open_seats": list(range(1, n)),
            "players": humans, "options": options}], "page": 1, "page_size": 20, "total": 1}},
        "getGame": {"response": envelope},
        "listActions": {"response": {"version": n, "seat": seat, "status": "active", "actions": legal,
                                     "templates": engine.action_templates(state, seat)}},
        "getLeaderboard": {"response": {"players": [
            {"player": NAMES[0], "wins": 3, "played": 5, "win_rate": 0.6, "mean_score": 1.4},
            {"player": f"bot:{next(iter(d.bots))}", "wins": 2, "played": 5, "win_rate": 0.4, "mean_score": 0.9}]}},
        "getStats": {"response": {"games": 5, "shared_wins": 0, "seat_wins": {"0": 3, "1": 2}}},
    }
    if legal:
        action = legal[0]
        after, events = engine.apply(state, seat, action)
        records = [_event_record(2 + i, n + 1, e) for i, e in enumerate(events)]
        mine = [public_event(r) for r in records if is_visible(r, seat)]
        out["playAction"] = {"request": action, "response": {
            "action": action, "seat": seat, "events": mine,
            "game": presenter.envelope(n + 1, active, seat, after)}}
        out["getEvents"] = {"response": {"events": [public_event(created), *mine],
                                         "last_seq": max([1, *(e["seq"] for e in mine)])}}
        out["getReplay"] = {"summary": "The shape of a replay, shown on the example game after its first move "
                                       "(a real one opens at the end, with its `result`)", "response": {
            "id": GAME_ID, "game": d.name, "seed": SEED, "seed_sha256": commitment(SEED), "players": humans,
            "names": list(NAMES[:n]), "options": options,
            "actions": [{"version": n + 1, "seat": seat, "action": action}], "events": [created, *records],
            "final_state": engine.dump(after), "result": result_body(engine.result(after))}}
    return out
