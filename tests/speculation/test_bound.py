"""The declared bound (RULES.md section 6): endless hopeless guesses end at the action bound."""

from __future__ import annotations

from typing import TYPE_CHECKING

from speculation.board import Tier, value_of
from speculation.engine import MAX_GUESSES, RITUAL_ACTIONS, Phase, SpeculationEngine, State

if TYPE_CHECKING:
    from conftest import Table


def hopeless(state: State, seat: int) -> int:
    """A value on no card of the tier ``seat`` attacks (asked again and again: always "no")."""
    board = state.boards[1 - seat]
    there = {value_of(board.card_at(s)) for s in board.slots(board.target)}
    return next(v for v in range(1, 11) if v not in there)


def repeat_hopeless(engine: SpeculationEngine, state: State) -> tuple[State, int]:
    played = 0
    while state.phase is not Phase.OVER:
        seat = min(engine.to_act(state))
        state, events = engine.apply(state, seat, {"type": "guess", "value": hopeless(state, seat)})
        played += 1
    assert events[-2].type == "ActionBoundReached" and events[-1].type == "BoardsRevealed"
    return state, played


def test_repeated_hopeless_guesses_end_in_a_shared_win_at_the_bound(engine: SpeculationEngine, table: Table) -> None:
    state = table.new()
    state = table.play(state, (0, {"type": "report_clothing", "items": 5}),
                       (1, {"type": "report_clothing", "items": 3}))
    state, played = repeat_hopeless(engine, state)
    assert played + 2 == engine.max_actions({}, 2) == RITUAL_ACTIONS + MAX_GUESSES
    assert len(state.history) == MAX_GUESSES + 1 and state.winner is None
    result = engine.result(state)
    assert result is not None and result.winners == (0, 1) and result.scores == (0.5, 0.5)
    assert result.summary["bound"] == {"reached": "actions", "limit": RITUAL_ACTIONS + MAX_GUESSES}
    assert result.summary["found"] == [0, 0] and result.summary["winner"] is None
    assert engine.view(state, 0)["boards"][1]["set_aside"] is not None  # everything shown at the end
    assert engine.load(engine.dump(state)) == state


def test_at_the_bound_more_cards_found_wins(engine: SpeculationEngine, table: Table) -> None:
    state = table.playing(guesser=1)
    board = state.boards[0]
    first_jack = value_of(board.card_at(next(iter(board.slots(Tier.JACKS)))))
    state = table.play(state, (1, table.guess(first_jack)))
    state, _ = repeat_hopeless(engine, state)
    result = engine.result(state)
    assert result is not None and result.winners == (1,) and result.scores == (0.0, 1.0)
    assert result.summary["found"] == [0, 1] and result.summary["bound"]["reached"] == "actions"


def test_a_won_game_names_no_bound(engine: SpeculationEngine, table: Table) -> None:
    state = table.clear_tiers(table.playing(), 0)
    joker = sorted(value_of(state.boards[1].card_at(s)) for s in state.boards[1].slots(Tier.JOKER))
    state = table.play(state, (0, table.joker(*joker)))
    result = engine.result(state)
    assert result is not None and result.winners == (0,) and result.summary["bound"] is None
    assert "found" not in result.summary
