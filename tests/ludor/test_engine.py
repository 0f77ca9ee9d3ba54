"""Ludor's engine, one class per rule section (see services/ludor/RULES.md)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from ludor.bots import BOTS
from ludor.engine import (
    CULO,
    EXCHANGE,
    EXCHANGED_CARDS,
    HAND,
    NEUTRO,
    OVER,
    PLAY,
    PRESIDENTE,
    SECRETS,
    VICE_CULO,
    VICEPRESIDENTE,
    VIEW,
    VOTE,
    LudorEngine,
    LudorState,
    titles_for,
)
from ludor.hierarchy import best, build_deck, worst
from ludor.options import Deck, LudorOptions
from ludor.schemas import ACTION_SCHEMAS, OptionsSchema, ViewSchema
from ludoteca.core import codec
from ludoteca.core.errors import FieldValidationError, GameOverError, IllegalActionError, NotYourTurnError
from ludoteca.core.rng import Rng
from marshmallow import ValidationError

Table = Callable[..., LudorState]
Run = Callable[..., Any]

FILL = ["3C", "3E", "3B"]
"""Low cards that keep a seat in the round."""


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


class TestSetup:
    @pytest.mark.parametrize(("n", "sizes"), [(3, [17] * 3), (4, [13, 13, 13, 12]), (5, [11, 10, 10, 10, 10]),
                                              (6, [9, 9, 9, 8, 8, 8])])
    def test_all_51_cards_dealt_extras_after_the_dealer(self, engine: LudorEngine, n: int, sizes: list[int]) -> None:
        for seed in range(4):
            state = engine.new_game(["human"] * n, {}, Rng(f"{seed:064x}"))
            assert sorted(c for h in state.hands for c in h) == sorted(build_deck())
            assert [state.sizes[(state.dealer + 1 + i) % n] for i in range(n)] == sizes

    def test_forty_card_deck(self, engine: LudorEngine) -> None:
        state = engine.new_game(["human"] * 4, {"deck": "forty"}, Rng("ab" * 32))
        cards = [c for h in state.hands for c in h]
        assert len(cards) == 43 and not any(c[:-1] in ("8", "9") for c in cards if c[-1] in "OCEB")

    def test_the_first_round_is_announced_like_the_later_ones(self, engine: LudorEngine) -> None:
        """RoundStarted and each seat's CardsDealt (to it alone), as every later deal sends them."""
        state = engine.new_game(["human"] * 4, {}, Rng("ab" * 32))
        events = engine.opening_events(state)
        assert types(events) == ["RoundStarted"] + ["CardsDealt"] * 4
        assert events[0].data == {"round": 1, "dealer": state.dealer, "hand_counts": state.sizes}
        assert events[0].audience is None
        for seat, event in enumerate(events[1:]):
            assert event.audience == {seat} and event.data == {"seat": seat, "cards": list(state.hands[seat])}

    def test_holder_of_the_3_de_oros_leads_the_first_round(self, engine: LudorEngine) -> None:
        for seed in range(5):
            state = engine.new_game(["human"] * 5, {}, Rng(f"{seed + 7:064x}"))
            assert state.trick is not None and state.phase == PLAY
            assert "3O" in state.hands[state.trick.turn] and engine.to_act(state) == {state.trick.turn}

    @pytest.mark.parametrize("n", [2, 7])
    def test_three_to_six_seats(self, engine: LudorEngine, n: int) -> None:
        with pytest.raises(FieldValidationError):
            engine.new_game(["human"] * n, {}, Rng("ab" * 32))

    @pytest.mark.parametrize("options", [{"deck": "52"}, {"round_limit": 0}, {"straights": "yes"},
                                         {"exchange": "never"}, {"autoplim_plim": "x"}])
    def test_bad_options(self, engine: LudorEngine, options: dict[str, Any]) -> None:
        with pytest.raises(FieldValidationError):
            engine.new_game(["human"] * 3, options, Rng("ab" * 32))

    @pytest.mark.parametrize("options", [{"deck": "52"}, {"round_limit": 0}, {"round_limit": 101},
                                         {"straights": "yes"}, {"exchange": "never"}, {"autoplim_plim": "x"},
                                         {"colour": 1}])
    def test_the_options_schema_refuses_what_the_declaration_does_not_allow(self, options: dict[str, Any]) -> None:
        with pytest.raises(ValidationError):
            OptionsSchema().load(options)

    def test_the_options_are_declared_once(self, engine: LudorEngine) -> None:
        """The schema's defaults are the declaration's; the engine keeps the typed value."""
        loaded = OptionsSchema().load({})
        assert loaded == codec.dump(LudorOptions())
        state = engine.new_game(["human"] * 3, loaded, Rng("ab" * 32))
        assert state.options == LudorOptions() and state.options.deck is Deck.FULL
        assert engine.view(state, 0)["options"] == loaded


class TestAnswering:
    """A trick opens with cards of one rank; answers have as many cards, of equal or higher rank."""

    def test_same_count_equal_or_higher(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["5O", "5C", "9O"], ["6O", "6C", "4O", "9C"], ["4C", "4E", "9E"], ["7O", "7C", "7E"]])
        state, _ = run(state, (0, "5O 5C"))
        for bad in ("6O", "4O 6O", "6O 6C 9C"):
            with pytest.raises(IllegalActionError) as err:
                engine.apply(state, 1, {"type": "play", "cards": bad.split()})
            assert {"type": "pass"} in err.value.extra["legal"]
        legal = engine.legal_actions(state, 1)
        assert legal == [{"type": "play", "cards": ["6O", "6C"]}, {"type": "pass"}]
        state, _ = run(state, (1, "6O 6C"))
        with pytest.raises(IllegalActionError):
            engine.apply(state, 2, {"type": "play", "cards": ["4C", "4E"]})
        state, _ = run(state, (2, "pass"), (3, "7O 7C"))
        assert state.trick is not None and state.trick.turn == 0

    @pytest.mark.parametrize(("options", "table_play", "answer", "message"), [
        ({}, "5O 5C", "6O", "the same number of cards (2 cards)"),
        ({}, "5O 5C", "4C 4E", "5 or higher is needed, not 4"),
        ({"straights": True}, "5O 6O 7O", "9O 9C 9E", "a straight is answered by a straight of 3 cards"),
        ({"straights": True}, "5O 5C 5E", "9O 10O 11O", "a set is answered by a set of 3 cards"),
    ])
    def test_the_refusal_says_what_is_wrong(self, engine: LudorEngine, table: Table, run: Run,
                                            options: dict[str, Any], table_play: str, answer: str,
                                            message: str) -> None:
        hands = [[*table_play.split(), "3O"], [*answer.split(), "3C"], ["4O", "4C", "4E", "3E", "3B"]]
        state, _ = run(table(hands, options=options), (0, table_play))
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 1, {"type": "play", "cards": answer.split()})
        assert message in err.value.detail

    def test_clockwise(self, table: Table, run: Run) -> None:
        state = table([["5O", *FILL[:1]], ["6O", "4O"], ["7O", "4C"], ["8O", "4E"]], leader=2)
        state, _ = run(state, (2, "7O"), (3, "8O"))
        assert state.trick is not None and state.trick.turn == 0

    def test_out_of_turn_play_is_409_not_your_turn(self, engine: LudorEngine, table: Table) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["7O", "4E"]])
        for seat, body in ((1, {"type": "play", "cards": ["6O"]}), (2, {"type": "pass"})):
            with pytest.raises(NotYourTurnError) as err:
                engine.apply(state, seat, body)
            assert err.value.status == 409


class TestJokers:
    def test_jokers_complete_sets_and_alone_rank_above_the_2s(self, engine: LudorEngine, table: Table,
                                                               run: Run) -> None:
        state = table([["7O", "JK1", "3O"], ["8O", "JK2", "4O"], ["2C", "2E", "5O"]])
        state, events = run(state, (0, "7O JK1"))
        assert events[0].data["combo"] == {"kind": "set", "rank": "7", "count": 2}
        state, events = run(state, (1, "8O JK2"))
        assert events[0].data["combo"] == {"kind": "set", "rank": "8", "count": 2}
        assert {"type": "play", "cards": ["2C", "2E"]} in engine.legal_actions(state, 2)

    def test_lone_joker_beats_a_2_and_jokers_pair_beats_pair_of_2s(self, engine: LudorEngine, table: Table,
                                                                   run: Run) -> None:
        state = table([["2C", "2E", "3O"], ["JK1", "JK2", "4O"], ["5O", "6O"]])
        state, _ = run(state, (0, "2C 2E"))
        assert {"type": "play", "cards": ["JK1", "JK2"]} in engine.legal_actions(state, 1)
        state = table([["2C", "3O"], ["JK1", "4O"], ["5O", "6O"]])
        state, events = run(state, (0, "2C"), (1, "JK1"))
        assert events[-1].data["combo"]["rank"] == "joker"
        state, _ = run(table([["JK1", "3O"], ["2C", "4O"], ["5O"]]), (0, "JK1"))
        with pytest.raises(IllegalActionError):  # a lone 2 does not answer a joker
            engine.apply(state, 1, {"type": "play", "cards": ["2C"]})


    def test_a_lone_joker_named_7_answers_a_7_with_a_plim(self, engine: LudorEngine, table: Table,
                                                          run: Run) -> None:
        state = table([["7O", "3O"], ["JK1", "4O"], ["8O", "5O"]])
        state, _ = run(state, (0, "7O"))
        legal = engine.legal_actions(state, 1)
        named = [a for a in legal if a.get("cards") == ["JK1"]]
        assert named == [{"type": "play", "cards": ["JK1"], "rank": r}
                         for r in ("7", "8", "9", "sota", "caballo", "rey", "as", "2")] + [
            {"type": "play", "cards": ["JK1"]}]
        state, events = run(state, (1, {"type": "play", "cards": ["JK1"], "rank": "7"}))
        played = events[0].data
        assert played["combo"] == {"kind": "set", "rank": "7", "count": 1} and played["plim"] is True
        assert events[1].type == "PlayerBlocked" and events[1].data["seat"] == 2

    def test_two_jokers_named_a_pair(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["9O", "9C", "3O"], ["JK1", "JK2", "4O"], ["10O", "10C", "5O"]])
        state, _ = run(state, (0, "9O 9C"), (1, {"type": "play", "cards": ["JK1", "JK2"], "rank": "sota"}))
        assert state.trick is not None and state.trick.top is not None
        assert {"type": "play", "cards": ["10O", "10C"]} in engine.legal_actions(state, 2)  # a PLIM on the named pair

    def test_naming_a_lead_and_what_may_not_be_named(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["JK1", "7O", "3O"], ["7C", "4O"], ["8O", "5O"]])
        with pytest.raises(IllegalActionError):  # jokers with other cards take their rank
            engine.apply(state, 0, {"type": "play", "cards": ["7O", "JK1"], "rank": "9"})
        with pytest.raises(FieldValidationError):  # not a rank jokers may take
            engine.apply(state, 0, {"type": "play", "cards": ["JK1"], "rank": "2_de_oros"})
        _, events = run(state, (0, {"type": "play", "cards": ["7O", "JK1"], "rank": "7"}))  # its own rank: fine
        assert events[0].data["combo"]["rank"] == "7"
        state, events = run(state, (0, {"type": "play", "cards": ["JK1"], "rank": "3"}))
        assert events[0].data["combo"] == {"kind": "set", "rank": "3", "count": 1}
        forty = table([["JK1", "3O"], ["7C", "4O"], ["10O", "5O"]], options={"deck": "forty"})
        with pytest.raises(IllegalActionError):
            engine.apply(forty, 0, {"type": "play", "cards": ["JK1"], "rank": "8"})


class TestPlim:
    """Matching the rank of the play underneath blocks the next player for the rest of the trick."""

    def test_plim_skips_the_next_player_for_the_trick(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["7O", "9O", *FILL[:1]], ["7C", "4O"], ["8O", "4C"], ["10O", "4E"]])
        state, events = run(state, (0, "7O"), (1, "7C"))
        assert events[-2].data["plim"] is True and events[-1].type == "PlayerBlocked"
        assert events[-1].data == {"seat": 2, "by": 1}
        assert state.trick is not None and state.trick.turn == 3 and state.trick.blocked == {2}
        assert engine.legal_actions(state, 2) == []
        state, _ = run(state, (3, "10O"), (0, "pass"))
        assert state.trick is not None and state.trick.turn == 1  # seat 2 skipped again
        state, events = run(state, (1, "pass"))
        assert events[-2].type == "TrickWon" and events[-2].data["seat"] == 3
        assert state.trick is not None and state.trick.blocked == set()  # lifted on the next trick

    def test_plim_on_the_last_contender_wins_the_trick(self, table: Table, run: Run) -> None:
        state = table([["7O", "4O"], ["8O", "4C"], ["7C", "4E"]])
        state, events = run(state, (0, "7O"), (1, "pass"), (2, "7C"))
        assert types(events)[-4:] == ["CardsPlayed", "PlayerBlocked", "TrickWon", "TrickStarted"]
        assert state.trick is not None and state.trick.leader == 2

    def test_pairs_and_joker_plims(self, table: Table, run: Run) -> None:
        state = table([["9O", "9C", "4O"], ["9E", "JK1", "4C"], ["10O", "4E"], ["11O", "3O"]])
        state, events = run(state, (0, "9O 9C"), (1, "9E JK1"))
        assert events[0].data["plim"] is False and events[1].data["plim"] is True
        assert state.trick is not None and state.trick.blocked == {2}


class TestPassing:
    def test_the_leader_must_play(self, engine: LudorEngine, table: Table) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["7O", "4E"]])
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "pass"})
        assert {"type": "pass"} not in engine.legal_actions(state, 0)

    def test_a_player_who_passed_is_out_of_the_trick(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["5O", "9O", "4O"], ["6O", "10O", "4C"], ["7O", "4E"], ["8O", "3O"]])
        state, _ = run(state, (0, "5O"), (1, "pass"), (2, "7O"), (3, "8O"), (0, "9O"))
        assert state.trick is not None and state.trick.turn == 2 and state.trick.passed == {1}
        assert engine.legal_actions(state, 1) == []

    def test_trick_closes_when_all_others_pass_and_its_winner_leads(self, table: Table, run: Run) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["7O", "4E"], ["8O", "3O"]])
        state, events = run(state, (0, "5O"), (1, "6O"), (2, "pass"), (3, "pass"), (0, "pass"))
        assert types(events)[-2:] == ["TrickWon", "TrickStarted"]
        assert state.trick is not None and (state.trick.leader, state.trick.turn, state.trick.top) == (1, 1, None)
        assert state.tricks[-1].winner == 1 and state.tricks[-1].closed_by == "passes"

    def test_a_winner_out_of_cards_hands_the_lead_on(self, table: Table, run: Run) -> None:
        state = table([["4O", "4C"], ["5O", "6O"], ["12O", "3O"], ["7O", "3C"]])
        state, _events = run(state, (0, "4O 4C"), (1, "pass"), (2, "pass"), (3, "pass"))
        assert state.finished == (0,)
        assert state.trick is not None and state.trick.leader == 1


class TestTwoOfOros:
    def test_on_any_trick_whatever_the_count_and_its_player_leads(self, table: Table, run: Run) -> None:
        state = table([["5O", "5C", "5E", "4O"], ["2O", "6O"], ["7O", "4C"]])
        state, events = run(state, (0, "5O 5C 5E"), (1, "2O"))
        assert events[-2].data == {"seat": 1, "closed_by": "two_of_oros"}
        assert state.trick is not None and (state.trick.leader, state.trick.top) == (1, None)

    def test_leading_with_it_wins_at_once(self, table: Table, run: Run) -> None:
        state = table([["2O", "4O"], ["6O", "4C"], ["7O", "4E"]])
        state, events = run(state, (0, "2O"))
        assert types(events) == ["CardsPlayed", "TrickWon", "TrickStarted"]
        assert state.trick is not None and state.trick.leader == 0

    def test_it_is_played_alone(self, engine: LudorEngine, table: Table) -> None:
        state = table([["2O", "2C", "4O"], ["6O", "4C"], ["7O", "4E"]])
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "play", "cards": ["2O", "2C"]})


class TestAutoplim:
    """Its holder may play it at any moment; it clears the table; only the 2 de Oros beats it."""

    def test_out_of_turn_clears_the_table(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["5O", "9O", "4O"], ["6O", "4C"], ["7O", "4E"], ["Autoplim", "8O", "3O"]])
        state, _ = run(state, (0, "5O"), (1, "pass"))
        assert {"type": "play_autoplim", "declare_plim": False} in engine.legal_actions(state, 3)
        state, events = run(state, (3, "autoplim"))
        assert events[0].type == "AutoplimPlayed" and events[0].data["out_of_turn"] is True
        trick = state.trick
        assert trick is not None and trick.passed == set() and trick.last == 3 and trick.turn == 0
        assert trick.top is not None and engine.legal_actions(state, 0) == [{"type": "pass"}]
        state, events = run(state, (0, "pass"), (1, "pass"), (2, "pass"))
        assert events[-2].data["seat"] == 3 and state.trick is not None and state.trick.leader == 3

    def test_only_the_2_de_oros_beats_it(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["5O", "JK1", "4O"], ["2O", "4C"], ["7O", "4E"], ["Autoplim", "8O", "3O"]])
        state, _ = run(state, (0, "5O"), (1, "pass"), (3, "autoplim"))
        assert engine.legal_actions(state, 0) == [{"type": "pass"}]
        state, _ = run(state, (0, "pass"))
        assert engine.legal_actions(state, 1) == [{"type": "play", "cards": ["2O"]}, {"type": "pass"}]
        state, events = run(state, (1, "2O"))
        assert events[-2].data == {"seat": 1, "closed_by": "two_of_oros"}

    def test_closes_at_once_once_the_2_de_oros_is_out(self, table: Table, run: Run) -> None:
        state = table([["2O", "5O", "4O"], ["6O", "4C"], ["7O", "4E"], ["Autoplim", "8O", "3O"]])
        state, events = run(state, (0, "2O"), (0, "5O"), (3, "autoplim"))
        assert types(events)[-3:] == ["AutoplimPlayed", "TrickWon", "TrickStarted"]
        assert events[-2].data == {"seat": 3, "closed_by": "autoplim"}

    def test_after_passing_and_as_a_lead(self, table: Table, run: Run) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["Autoplim", "7O", "4E"]])
        state, events = run(state, (0, "5O"), (1, "pass"), (2, "pass"))
        assert state.trick is not None and state.trick.leader == 0
        state, events = run(state, (2, "autoplim"))
        assert events[0].data["out_of_turn"] is True and state.trick is not None and state.trick.turn == 0

    def test_others_out_of_turn_get_409(self, engine: LudorEngine, table: Table) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["Autoplim", "7O", "4E"]])
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 1, {"type": "play_autoplim", "declare_plim": False})
        with pytest.raises(IllegalActionError):  # in turn without it
            engine.apply(state, 0, {"type": "play_autoplim", "declare_plim": False})

    def test_not_outside_the_play(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["5O"], ["6O", "Autoplim"], ["3O"]])
        state, _ = run(state, (0, "5O"), (1, "6O"), (2, "pass"))
        assert state.phase == PLAY and state.trick is not None and state.trick.turn == 1
        state, _ = run(state, (1, "autoplim"))
        assert state.phase == VOTE
        with pytest.raises(IllegalActionError):
            engine.apply(state, 1, {"type": "play_autoplim", "declare_plim": False})

    PLIM_CASES = [
        # (option, hand of seat 1 (the seat whose turn it is; it holds the 2 de Oros), barred?)
        ("match", ["7E", "7B", "2O"], True),
        ("match", ["7E", "JK1", "2O"], True),
        ("match", ["7E", "9O", "2O"], False),
        ("always", ["9O", "10O", "2O"], True),
    ]

    @pytest.mark.parametrize(("option", "hand", "barred"), PLIM_CASES)
    def test_plim_clause_out_of_turn(self, engine: LudorEngine, table: Table, run: Run, option: str,
                                     hand: list[str], barred: bool) -> None:
        state = table([["7O", "7C", "4O"], hand, ["5E", "4E"], ["Autoplim", "8O", "3O"]],
                      options={"autoplim_plim": option})
        state, events = run(state, (0, "7O 7C"), (3, "autoplim plim"))
        played = next(e.data for e in events if e.type == "AutoplimPlayed")
        assert played == {"seat": 3, "out_of_turn": True, "declared_plim": True, "target": 1}
        assert [e.audience for e in events if e.type == "PlayerBarred"] == ([{1}] if barred else [])
        assert state.trick is not None and state.trick.blocked == set()
        assert state.trick.barred == (1 if barred else None)
        state, _ = run(state, (0, "pass"))
        assert state.trick is not None and state.trick.turn == 1  # barred or not, he keeps his turn
        two = {"type": "play", "cards": ["2O"]}
        assert (two in engine.legal_actions(state, 1)) is not barred
        if barred:
            assert engine.legal_actions(state, 1) == [{"type": "pass"}]
            with pytest.raises(IllegalActionError):
                engine.apply(state, 1, two)

    def test_whether_the_plim_bit_is_the_targets_secret(self, engine: LudorEngine, table: Table,
                                                         run: Run) -> None:
        """Bitten or not, everyone but the target reads the same views and events."""
        seen = {}
        for hand in (["7E", "7B", "2O"], ["7E", "9O", "2O"]):
            state = table([["7O", "7C", "4O"], hand, ["5E", "4E"], ["Autoplim", "8O", "3O"]])
            state, events = run(state, (0, "7O 7C"), (3, "autoplim plim"))
            seen[hand[1]] = ([engine.view(state, s)["trick"] for s in (0, 2, 3, None)],
                             [(e.type, e.data) for e in events if e.visible_to(0)])
            assert engine.view(state, 1)["trick"]["barred"] == (1 if hand[1] == "7B" else None)
        assert seen["7B"] == seen["9O"]

    def test_plim_clause_in_turn_targets_the_next_seat(self, table: Table, run: Run) -> None:
        state = table([["7O", "7C", "4O"], ["Autoplim", "4C"], ["7E", "7B", "2O"], ["8O", "3O"]])
        state, events = run(state, (0, "7O 7C"), (1, "autoplim plim"))
        played = next(e.data for e in events if e.type == "AutoplimPlayed")
        assert played["target"] == 2
        assert state.trick is not None and state.trick.barred == 2 and state.trick.turn == 2

    def test_plim_clause_off_or_nothing_underneath(self, engine: LudorEngine, table: Table, run: Run) -> None:
        hands = [["7O", "4O"], ["7E", "4C"], ["Autoplim", "3O"]]
        state = table(hands, options={"autoplim_plim": "off"})
        state, _ = run(state, (0, "7O"))
        assert {"type": "play_autoplim", "declare_plim": True} not in engine.legal_actions(state, 2)
        with pytest.raises(IllegalActionError):
            engine.apply(state, 2, {"type": "play_autoplim", "declare_plim": True})
        with pytest.raises(IllegalActionError):
            engine.apply(table(hands), 2, {"type": "play_autoplim", "declare_plim": True})


def finish_round(engine: LudorEngine, state: LudorState) -> LudorState:
    """Play the round out: every seat in turn plays its first legal action."""
    while state.phase == PLAY:
        assert state.trick is not None
        seat = state.trick.turn
        state, _ = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    return state


class TestTitles:
    @pytest.mark.parametrize(("n", "titles"), [
        (3, (PRESIDENTE, NEUTRO, CULO)),
        (4, (PRESIDENTE, VICEPRESIDENTE, VICE_CULO, CULO)),
        (5, (PRESIDENTE, VICEPRESIDENTE, NEUTRO, VICE_CULO, CULO)),
        (6, (PRESIDENTE, VICEPRESIDENTE, NEUTRO, NEUTRO, VICE_CULO, CULO)),
    ])
    def test_titles_by_finishing_order(self, engine: LudorEngine, n: int, titles: tuple[str, ...]) -> None:
        assert titles_for(n) == titles
        state = finish_round(engine, engine.new_game(["human"] * n, {}, Rng(f"{n:064x}")))
        order = state.rounds[-1].order
        assert sorted(order) == list(range(n))
        assert [state.titles[s] for s in order] == list(titles)
        assert [state.points[s] for s in order] == list(range(n - 1, -1, -1))

    def test_round_ends_when_one_player_has_cards(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["3O"], ["4O", "5O"], ["6O"]])
        state, events = run(state, (0, "3O"), (1, "4O"), (2, "6O"))
        assert state.phase == VOTE and state.finished == (0, 2, 1) and state.leftover == ("5O",)
        assert state.titles == (PRESIDENTE, CULO, NEUTRO) and state.points == (2, 0, 1)
        assert "RoundEnded" in types(events) and state.hands == ((), (), ())


def after_round(engine: LudorEngine, table: Table, n: int, options: dict[str, Any] | None = None,
                players: list[str] | None = None) -> LudorState:
    """A game in its vote phase after a round that seat 0 won, seat 1 second ... seat n-1 last."""
    hands = [[f"{3 + i}O"] for i in range(n - 1)] + [["12O", "12C"]]
    state = table(hands, options=options, players=players)
    for seat in range(n - 1):
        state, _ = engine.apply(state, seat, {"type": "play", "cards": hands[seat]})
    assert state.finished == tuple(range(n))
    return state


def vote(engine: LudorEngine, state: LudorState, *ends: bool) -> tuple[LudorState, list[Any]]:
    """Seats 0, 1 ... vote in turn until the vote is decided."""
    events: list[Any] = []
    for seat, end in enumerate(ends):
        if state.phase != VOTE:
            break
        state, new = engine.apply(state, seat, {"type": "vote", "end": end})
        events.extend(new)
    return state, events


def dealt(events: list[Any]) -> dict[int, list[str]]:
    return {e.data["seat"]: e.data["cards"] for e in events if e.type == "CardsDealt"}


class TestExchange:
    @pytest.mark.parametrize("n", [3, 4, 5, 6])
    def test_automatic(self, engine: LudorEngine, table: Table, n: int) -> None:
        state = after_round(engine, table, n)
        state, events = vote(engine, state, *[False] * n)
        hands = dealt(events)
        pres, culo = 0, n - 1
        expected = {s: list(h) for s, h in hands.items()}
        pairs = [(culo, pres, 2)] + ([(n - 2, 1, 1)] if n >= 4 else [])
        for giver, receiver, k in pairs:
            gift = best(expected[giver], k)
            expected[giver] = [c for c in expected[giver] if c not in gift]
            expected[receiver] += gift
            back = worst(expected[receiver], k)
            expected[receiver] = [c for c in expected[receiver] if c not in back]
            expected[giver] += back
        assert {s: sorted(h) for s, h in expected.items()} == {s: sorted(h) for s, h in enumerate(state.hands)}
        given = [e for e in events if e.type == "CardsGiven"]
        assert [(e.data["giver"], e.data["receiver"]) for e in given] == [
            p for g, r, _ in pairs for p in ((g, r), (r, g))]
        assert all(e.audience == {e.data["giver"], e.data["receiver"]} for e in given)
        assert all(e.audience is None for e in events if e.type == "CardsExchanged")
        assert state.phase == PLAY and state.trick is not None and state.trick.leader == culo
        assert state.round == 2

    def test_the_deal_favours_no_title(self, engine: LudorEngine, table: Table) -> None:
        """The dealer (after whom the cards left over go) is drawn every round: the same RNG deals
        the same hand sizes to the same seats whatever the titles, and over 200 deals the Culo
        gets the short hand about a quarter of the time (50 expected, sd 6.1), not always."""
        state = after_round(engine, table, 4)
        short = 0
        for i in range(200):
            base = replace(state, rng=Rng(f"{i:064x}"))
            dealt_sizes = []
            for titles in ((PRESIDENTE, VICEPRESIDENTE, VICE_CULO, CULO),
                           (CULO, VICE_CULO, VICEPRESIDENTE, PRESIDENTE)):
                after, _ = vote(engine, replace(base, titles=titles), False, False, False, False)
                dealt_sizes.append((after.dealer, after.sizes))
            assert dealt_sizes[0] == dealt_sizes[1]
            short += dealt_sizes[0][1][3] == 12  # seat 3 is the Culo in the first titles
        assert 25 <= short <= 75, short

    def test_only_the_two_players_see_the_cards(self, engine: LudorEngine, table: Table) -> None:
        state, _ = vote(engine, after_round(engine, table, 4), False, False, False, False)
        for seat in range(4):
            for t in engine.view(state, seat)["exchange"]:
                assert (t["cards"] is not None) == (seat in (t["giver"], t["receiver"]))
        assert all(t["cards"] is None and t["count"] in (1, 2) for t in engine.view(state, None)["exchange"])

    def test_choose_what_to_give_back(self, engine: LudorEngine, table: Table) -> None:
        state, _ = vote(engine, after_round(engine, table, 4, {"exchange": "choose"}), False, False, False)
        assert state.phase == EXCHANGE and engine.to_act(state) == {0, 1}
        assert len(engine.legal_actions(state, 0)) == 15 * 14 // 2  # 13 dealt + 2 received
        assert all(len(a["cards"]) == 1 for a in engine.legal_actions(state, 1))
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "give_back", "cards": list(state.hands[0][:1])})
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 3, {"type": "give_back", "cards": list(state.hands[3][:2])})
        strongest = best(state.hands[0], 2)
        state, _events = engine.apply(state, 0, {"type": "give_back", "cards": strongest})
        assert all(c in state.hands[3] for c in strongest) and state.phase == EXCHANGE
        state, _ = engine.apply(state, 1, {"type": "give_back", "cards": list(state.hands[1][-1:])})
        assert state.phase == PLAY and state.trick is not None and state.trick.leader == 3
        assert sorted(map(len, state.hands)) == [12, 13, 13, 13]


class TestVote:
    def test_a_majority_ends_the_game(self, engine: LudorEngine, table: Table) -> None:
        state = after_round(engine, table, 4)
        assert engine.to_act(state) == {0, 1, 2, 3}
        state, _ = vote(engine, state, True, True)
        assert state.phase == VOTE and engine.to_act(state) == {2, 3}
        state, events = engine.apply(state, 2, {"type": "vote", "end": True})
        assert state.phase == OVER and types(events)[-2:] == ["VoteDecided", "GameEnded"]
        result = engine.result(state)
        assert result is not None and result.winners == (0,) and result.scores == (3.0, 2.0, 1.0, 0.0)
        with pytest.raises(GameOverError):
            engine.apply(state, 3, {"type": "vote", "end": True})
        assert engine.to_act(state) == frozenset() and engine.legal_actions(state, 3) == []

    def test_a_tie_plays_on(self, engine: LudorEngine, table: Table) -> None:
        state, events = vote(engine, after_round(engine, table, 4), True, False, True, False)
        assert state.phase == PLAY and state.round == 2
        assert [e.data for e in events if e.type == "VoteDecided"] == [
            {"end": False, "votes": [True, False, True, False]}]

    def test_decided_as_soon_as_ending_is_out_of_reach(self, engine: LudorEngine, table: Table) -> None:
        state, _ = vote(engine, after_round(engine, table, 3), False, False)
        assert state.phase == PLAY and state.round == 2

    def test_one_vote_each_and_humans_first(self, engine: LudorEngine, table: Table) -> None:
        state = after_round(engine, table, 4, players=["bot:greedy", "human", "bot:random", "human"])
        assert engine.to_act(state) == {1, 3}
        state, _ = engine.apply(state, 1, {"type": "vote", "end": False})
        with pytest.raises(IllegalActionError):
            engine.apply(state, 1, {"type": "vote", "end": True})
        state, _ = engine.apply(state, 3, {"type": "vote", "end": True})
        assert engine.to_act(state) == {0, 2}

    def test_humans_who_split_play_on_whatever_the_bots(self, engine: LudorEngine, table: Table) -> None:
        """A majority of all seats ends the game: two humans split 1-1, so the bots (who go
        along with the humans' majority) make no majority to end out of it."""
        state = after_round(engine, table, 4, players=["human", "human", "bot:greedy", "bot:expert"])
        state, _ = vote(engine, state, True, False)
        for seat in (2, 3):
            ballot = BOTS["greedy" if seat == 2 else "expert"](
                engine.view(state, seat), engine.legal_actions(state, seat), random.Random(seat))
            if state.phase == VOTE:
                state, _ = engine.apply(state, seat, ballot)
        assert state.phase == PLAY and state.round == 2

    def test_round_limit(self, engine: LudorEngine, table: Table) -> None:
        state = after_round(engine, table, 3, {"round_limit": 1})
        assert state.phase == OVER and engine.result(state) is not None


class TestMalformed:
    @pytest.mark.parametrize("body", [
        {}, {"type": "fly"}, {"type": 3}, {"type": "play", "cards": ["5O", "5O"]},
        {"type": "play", "cards": ["ZZ"]}, {"type": "play", "cards": ["6O"]},
        {"type": "vote", "end": True}, {"type": "give_back", "cards": ["5O"]},
    ])
    def test_illegal_never_a_crash(self, engine: LudorEngine, table: Table, body: dict[str, Any]) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["Autoplim", "4E"]])
        before = engine.dump(state)
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, body)
        assert err.value.status == 409 and isinstance(err.value.extra["legal"], list)
        assert engine.dump(state) == before

    @pytest.mark.parametrize(("seat", "body", "field"), [
        (2, {"type": "play_autoplim", "declare_plim": "yes"}, "declare_plim"),
        (2, {"type": "play_autoplim", "declare_plim": 0}, "declare_plim"),
        (0, {"type": "play"}, "cards"), (0, {"type": "play", "cards": "5O"}, "cards"),
        (0, {"type": "play", "cards": []}, "cards"), (0, {"type": "play", "cards": [5]}, "cards"),
        (0, {"type": "play", "cards": [["5O"]]}, "cards"),
    ])
    def test_a_field_of_the_wrong_type_is_422_as_over_http(self, engine: LudorEngine, table: Table, seat: int,
                                                           body: dict[str, Any], field: str) -> None:
        """The engine judges a body's types as the action schemas do (422), not as an illegal move."""
        state = table([["5O", "4O"], ["6O", "4C"], ["Autoplim", "4E"]])
        before = engine.dump(state)
        with pytest.raises(FieldValidationError) as err:
            engine.apply(state, seat, body)
        assert err.value.status == 422 and list(err.value.extra["errors"]) == [field]
        assert engine.dump(state) == before
        with pytest.raises(ValidationError) as schema_err:
            ACTION_SCHEMAS[body["type"]]().load(body)
        assert field in schema_err.value.messages

    def test_a_vote_of_the_wrong_type_is_422(self, engine: LudorEngine, table: Table) -> None:
        state = after_round(engine, table, 3)
        for end in ("yes", 1, None):
            with pytest.raises(FieldValidationError):
                engine.apply(state, 0, {"type": "vote", "end": end})

    def test_not_a_mapping_and_no_such_seat(self, engine: LudorEngine, table: Table) -> None:
        state = table([["5O", "4O"], ["6O", "4C"], ["7O", "4E"]])
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, ["play"])  # type: ignore[arg-type]
        with pytest.raises(IllegalActionError):
            engine.apply(state, 5, {"type": "pass"})
        assert engine.legal_actions(state, 9) == []


def test_points_accumulate_over_rounds(engine: LudorEngine) -> None:
    state = engine.new_game(["human"] * 4, {"round_limit": 3}, Rng("cd" * 32))
    while state.phase != OVER:
        if state.phase == VOTE:
            state, _ = vote(engine, state, False, False, False, False)
        state = finish_round(engine, state)
    assert len(state.rounds) == 3 and sum(state.points) == 3 * 6
    positions = Counter(p for r in state.rounds for p in r.order)
    assert set(positions.values()) == {3}


class TestViewDeclaration:
    """RULES.md section 10 (what each seat sees): the view is :data:`VIEW`, read through :data:`SECRETS`."""

    def test_the_view_is_exactly_the_declared_parts_in_order(self, engine: LudorEngine) -> None:
        state = engine.new_game(["human"] * 4, {}, Rng("ab" * 32))
        names = [part.name for part in VIEW]
        assert names == list(ViewSchema().fields)
        for seat in [*range(4), None]:
            assert list(engine.view(state, seat)) == names

    def test_a_hand_is_its_holders_alone(self, engine: LudorEngine) -> None:
        state = engine.new_game(["human"] * 4, {}, Rng("ab" * 32))
        for seat in range(4):
            assert engine.view(state, seat)["hand"] == list(state.hands[seat])
            assert [HAND.may_see(state, seat, owner) for owner in range(4)] == [owner == seat for owner in range(4)]
        assert engine.view(state, None)["hand"] == []
        assert HAND in SECRETS and EXCHANGED_CARDS in SECRETS
