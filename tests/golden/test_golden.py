"""The golden corpus replays identically (issue 12, item 7): behaviour does not change.

Every recorded game (:mod:`golden.corpus`) is replayed through the engine from its seed, seats,
options and actions; at every step every seat's view, the spectator's view, the events (with
their audiences), who is to act, the legal actions and templates and the result must hash as
recorded, and the result and the final dump must equal the recorded ones in full. They replay
once more as the service plays them, every action applied to the state loaded back from its dump. The corpus
must also cover the game: every phase of its view schema, every bot level, every action type.

A failure names the game, the recorded game, the first steps that differ and the parts that
differ. Regenerate (``make golden``) only for an intended change of behaviour.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from golden.corpus import FIGURES, canonical, path_of, read, replay
from ludoteca.service_layer import registry
from marshmallow import validate

GAMES = [g for g in registry.names() if path_of(g).exists()]


def recorded_games() -> list[Any]:
    return [pytest.param(game, i, id=f"{game}-{g['label']}") for game in GAMES for i, g in enumerate(read(game))]


def test_every_registered_game_has_a_corpus() -> None:
    missing = [g for g in registry.names() if g not in GAMES]
    assert not missing, f"no golden corpus for {missing}: run `make golden`"


@pytest.mark.parametrize(("game", "index"), recorded_games())
def test_a_recorded_game_replays_identically(game: str, index: int) -> None:
    recorded = read(game)[index]
    started = time.perf_counter()
    state, mismatches, last = replay(game, recorded)
    figures = FIGURES[game]
    figures[0] += 1
    figures[1] += len(recorded["steps"])
    figures[2] += time.perf_counter() - started
    assert not mismatches, f"{game} {recorded['label']}: {len(mismatches)} steps differ, first: " + "; ".join(
        f"step {m.step} after {m.action}: {', '.join(m.parts)}" for m in mismatches[:5])
    assert len(recorded["steps"]) == len(recorded["actions"]) + 1
    assert canonical(last["turn"]["result"]) == canonical(recorded["result"]), "the result differs"
    engine = registry.game(game).engine
    assert canonical(engine.dump(state)) == canonical(recorded["dump"]), "the final dump differs"
    assert engine.result(state) is not None, "a recorded game replays to its end"


@pytest.mark.parametrize("game", GAMES)
def test_the_recorded_games_replay_identically_through_the_codec(game: str) -> None:
    """As the service plays them: each action applied to the state loaded back from its dump."""
    engine = registry.game(game).engine
    for recorded in read(game):
        state, mismatches, _ = replay(game, recorded, via_codec=True)
        assert not mismatches, f"{game} {recorded['label']} through the codec: first differing step " \
                               f"{mismatches[0].step} after {mismatches[0].action}: {', '.join(mismatches[0].parts)}"
        assert canonical(engine.dump(state)) == canonical(recorded["dump"])


def phases_of(game: str) -> set[str]:
    field = registry.game(game).view_schema().fields.get("phase")
    if field is None:
        return set()
    return {c for v in field.validators if isinstance(v, validate.OneOf) for c in v.choices}


@pytest.mark.parametrize("game", GAMES)
def test_the_corpus_covers_every_phase_bot_level_and_action_type(game: str) -> None:
    definition = registry.game(game)
    games = read(game)
    levels = {p.partition(":")[2] for g in games for p in g["play"] if p.startswith("bot:")}
    assert levels == set(definition.bots), f"bot levels never played: {set(definition.bots) - levels}"
    types = {a["type"] for g in games for _, a in g["actions"]}
    assert types == set(definition.action_schemas), f"actions never played: {set(definition.action_schemas) - types}"
    seen = {phase for g in games for phase in g["phases"]}  # the spectator's, checked by the replays
    missing = phases_of(game) - seen
    assert not missing, f"phases never reached: {missing}"
