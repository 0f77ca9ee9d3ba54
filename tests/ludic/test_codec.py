"""The state's codec (the shared one, :mod:`ludoteca.core.codec`) keeps the stored shape of the
hand-written codec it replaced (every golden final state: tests/shared/test_codec_games.py, for
every game; here a state in mid-round), and the state is frozen."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from ludic.engine import LudicEngine
from ludic.state import HintSource, LudicState, Phase, PlacedSet, StepKind

STORED = Path(__file__).parent / "data" / "stored_mid_round.json"
"""A state in mid-round (the game waiting on the Vexer's choice, steps queued, a hint given, a
set face down) as the hand-written codec dumped it, before the shared codec."""


def test_a_state_stored_by_the_former_codec_loads_and_dumps_back_unchanged(engine: LudicEngine) -> None:
    stored = json.loads(STORED.read_text())
    state = engine.load(stored)
    assert engine.dump(state) == stored
    assert json.dumps(engine.dump(state), sort_keys=True) == json.dumps(stored, sort_keys=True)
    rnd = state.round
    assert rnd is not None and state.phase is Phase.CHOOSE
    assert all(isinstance(k, int) for k in (*rnd.hands, *rnd.hints))
    assert rnd.steps[0].do in StepKind and any(not s.face_up for c in rnd.columns.values() for s in c)
    assert all(h.source in HintSource for hints in rnd.hints.values() for h in hints)


def test_a_state_stored_without_its_action_count_counts_from_zero(engine: LudicEngine) -> None:
    stored = json.loads(STORED.read_text())
    del stored["actions"]
    assert engine.load(stored).actions == 0


def test_the_state_is_frozen(engine: LudicEngine) -> None:
    state = engine.load(json.loads(STORED.read_text()))
    assert isinstance(state, LudicState) and state.round is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.phase = Phase.OVER  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.round.columns["obey"][0].face_up = False  # type: ignore[misc]
    assert isinstance(state.round.columns["obey"][0], PlacedSet) and isinstance(state.round.deck, tuple)
