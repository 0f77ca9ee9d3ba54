"""The examples of a game's OpenAPI document, made by its own engine (never written by hand, so
they cannot drift from the rules): a table of humans dealt from a fixed seed and its first move.
``POST /games``'s example is a game against the game's basic bot, which starts at once, so that
"Try it out" on it and then on a move (whose example is the first move of a table) plays, where a
table of humans would wait for a second player and refuse the move (409, not started).

Deterministic (a fixed seed, ids, tokens and clock; the bots draw from seeded generators), so
the exported files stay as they are; built when a document is first rendered, not per app.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ludoteca.core.engine import GameDefinition
from ludoteca.core.rng import Rng, commitment
from ludoteca.service_layer import events as records
from ludoteca.service_layer import seats
from ludoteca.service_layer.numbering import for_viewer, number, viewer
from ludoteca.service_layer.presenter import Presenter, result_body
from ludoteca.service_layer.record import GameRecord, Status

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


def _ticket(n: int, options: dict[str, Any], bot: str, game: dict[str, Any] | None) -> dict[str, Any]:
    """A matchmaking ticket, waiting (``game`` None) or matched."""
    return {"ticket": "3b9e51c07a2d4f6e8c1b0a9d7e5f3c21", "status": "waiting" if game is None else "matched",
            "seats": n, "options": options, "created_at": CREATED_AT, "waited": 0.0 if game is None else 4.2,
            "fill_with_bots": {"level": bot[len(seats.BOT_PREFIX):], "after_seconds": 60}, "game": game}


def operation_examples(d: GameDefinition) -> dict[str, dict[str, Any]]:
    """operationId -> {"request": body, "response": the main answer} (either may be absent)."""
    engine, presenter = d.engine, Presenter(d)
    options = dict(d.options_schema().load({}))
    n = engine.min_seats
    humans = ["human"] * n
    state = engine.new_game(humans, options, Rng(SEED))
    active = _record(d, humans, state, Status.ACTIVE, n)
    seat = next((s for s in sorted(engine.to_act(state)) if engine.legal_actions(state, s)), 0)
    legal = engine.legal_actions(state, seat)
    envelope = presenter.envelope(n, active, seat, state)
    created = records.records(1, 1, [records.game_created(humans, options, commitment(SEED))])
    bot = seats.bot(d.basic_bot or next(iter(d.bots)))
    versus = ["human"] + [bot] * (n - 1)  # against the basic bot: the game starts at once
    versus_state = engine.new_game(versus, options, Rng(SEED))
    versus_record = dataclasses.replace(_record(d, versus, versus_state, Status.ACTIVE, 1),
                                        names=(NAMES[0], *versus[1:]))
    out: dict[str, dict[str, Any]] = {
        "createGame": {"request": {"seats": versus, "name": NAMES[0]},
                       "response": {"seat": 0, "token": TOKEN,
                                    "game": presenter.envelope(1, versus_record, 0, versus_state)}},
        "joinGame": {"request": {"seat": 1, "name": NAMES[1]},
                     "response": {"seat": 1, "token": TOKEN, "game": presenter.envelope(n, active, 1, state)}},
        "listGames": {"response": {"items": [{
            "id": GAME_ID, "version": 1, "created_at": CREATED_AT, "seats": n, "open_seats": list(range(1, n)),
            "players": humans, "options": options}], "page": 1, "page_size": 20, "total": 1}},
        "getGame": {"response": envelope},
        "listActions": {"response": presenter.actions(n, active.status, seat, state)},
        "getLeaderboard": {"response": {"players": [
            {"player": NAMES[0], "wins": 3, "played": 5, "win_rate": 0.6, "mean_score": 1.4},
            {"player": seats.bot(next(iter(d.bots))), "wins": 2, "played": 5, "win_rate": 0.4, "mean_score": 0.9}],
            "rated": [{"player_id": "5f2b9c0e8d7a4b1c9e3f6a2d4c8b7e10", "name": NAMES[0], "played": 4,
                       "rating": {"mu": 28.1, "sigma": 6.9, "ordinal": 7.4}}]}},
        "leaveGame": {"request": {"bot": bot[len(seats.BOT_PREFIX):]}, "response": {
            "seat": n - 1, "bot": bot[len(seats.BOT_PREFIX):],
            "game": presenter.envelope(n + 1, active.with_seat_left(n - 1, bot[len(seats.BOT_PREFIX):]), None, state)}},
        "requestMatch": {"request": {"seats": n, "options": options,
                                     "fill_with_bots": {"level": bot[len(seats.BOT_PREFIX):], "after_seconds": 60}},
                         "response": _ticket(n, options, bot, None)},
        "getMatch": {"response": _ticket(n, options, bot, {"id": GAME_ID, "seat": 0,
                                                         "url": f"https://ludoteca.example/{d.name}/games/{GAME_ID}"})},
        "cancelMatch": {"response": {**_ticket(n, options, bot, None), "status": "cancelled"}},
        "getStats": {"response": {"games": 5, "shared_wins": 0, "seat_wins": {"0": 3, "1": 2}}},
    }
    if legal:
        action = legal[0]
        after, events = engine.apply(state, seat, action)
        written = created + records.records(2, n + 1, events)
        told = for_viewer(number(written, (0,) * (n + 1))[0], viewer(seat))  # the seat's numbers
        out["playAction"] = {"request": action, "response": {
            "action": action, "seat": seat, "events": told[1:],
            "game": presenter.envelope(n + 1, active, seat, after),
            "next": presenter.next_actions(n + 1, active.status, seat, after)}}
        out["getEvents"] = {"response": {"events": told, "last_seq": told[-1]["seq"]}}
        out["getReplay"] = {"summary": "The shape of a replay, shown on the example game after its first move "
                                       "(a real one opens at the end, with its `result`)", "response": {
            "id": GAME_ID, "game": d.name, "seed": SEED, "seed_sha256": commitment(SEED), "players": humans,
            "names": list(NAMES[:n]), "options": options,
            "actions": [{"version": n + 1, "seat": seat, "action": action}],
            "events": [e.to_doc() for e in written],
            "final_state": engine.dump(after), "result": result_body(engine.result(after))}}
    return out
