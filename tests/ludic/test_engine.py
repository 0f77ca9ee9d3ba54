"""The engine, one test class per section of the rules (RULES.md), with arranged cards.

Default round (fixture ``start``): 3 seats, seat 0 is the Vexer, Seekers 1 then 2; the 'obey'
initial set is the queen of diamonds over the 4 of clubs, the 'break' one the jack of clubs over
the 3 of diamonds; the rule is "the top card is red".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest
from ludic.engine import LudicEngine
from ludic.state import LudicState, Phase, PlacedSet, SetKind
from ludic.universe import BREAK, OBEY, CardType, all_cards, card_type, deck_pile, hintbook_pile
from ludoteca.core.errors import FieldValidationError, GameOverError, IllegalActionError, NotYourTurnError
from ludoteca.core.rng import Rng

SEED = "1dc0" * 16
Start = Callable[..., LudicState]
Conserved = Callable[[LudicState], list[str]]
HANDS = {1: ["2C", "5D", "7C", "8D"], 2: ["9C", "10D", "6C", "6D"]}
DECK = ["2D", "5C", "7D", "8C"]


def rig(state: LudicState, hands: dict[int, list[str]] | None = None, deck: Sequence[str] | None = None,
        obey: Sequence[tuple[str, str]] = (), broken: Sequence[tuple[str, str]] = ()) -> LudicState:
    """The state with its round put in a position (cards are not conserved: for phase tests only)."""
    rnd = state.round
    assert rnd is not None
    placed = {OBEY: obey, BREAK: broken}
    columns = {c: (*sets, *(PlacedSet(t, b, SetKind.QUERY, 1) for t, b in placed[c]))
               for c, sets in rnd.columns.items()}
    rnd = replace(rnd, columns=columns, hands={**rnd.hands, **{s: tuple(h) for s, h in (hands or {}).items()}},
                  deck=rnd.deck if deck is None else tuple(deck))
    return replace(state, round=rnd)


def act(engine: LudicEngine, state: LudicState, seat: int, **action: object) -> tuple[LudicState, list[str]]:
    new, events = engine.apply(state, seat, action)
    return new, [e.type for e in events]


class TestSetup:
    @pytest.mark.parametrize("seats", [2, 6])
    def test_three_to_five_players(self, engine: LudicEngine, seats: int) -> None:
        with pytest.raises(FieldValidationError):
            engine.new_game(["human"] * seats, {}, Rng(SEED))

    def test_piles_hold_one_black_and_one_red_suit_each(self) -> None:
        for pile in (deck_pile(), hintbook_pile()):
            assert sorted(card_type(c).index for c in pile) == list(range(24))
        assert sorted(deck_pile() + hintbook_pile()) == sorted(all_cards())
        assert not any(c.startswith("A") for c in all_cards())

    @pytest.mark.parametrize("seats", [3, 4, 5])
    def test_a_round_deals_hands_of_four_and_two_initial_sets(self, engine: LudicEngine, seats: int,
                                                               cards_in_play: Conserved) -> None:
        state = engine.new_game(["human"] * seats, {}, Rng(SEED))
        for seat in range(seats):
            state, _ = engine.apply(state, seat, {"type": "cut"})
        while state.phase == "cut":
            seat = min(engine.to_act(state))
            state, _ = engine.apply(state, seat, {"type": "cut"})
        rnd = state.round
        assert rnd is not None and state.phase == "rule"
        assert sorted(rnd.hands) == [s for s in range(seats) if s != state.vexer]
        assert all(len(h) == 4 for h in rnd.hands.values())
        assert len(rnd.deck) == 24 - 4 * (seats - 1) - 4
        assert sorted(rnd.hintbook) == sorted(hintbook_pile())
        initial = [c for col in rnd.columns.values() for s in col for c in (s.top, s.bottom)]
        assert set(initial) <= set(deck_pile())
        assert cards_in_play(state) == sorted(all_cards())
        assert engine.to_act(state) == {state.vexer}


class TestCut:
    def test_low_card_is_the_first_vexer_and_the_token_goes_left(self, engine: LudicEngine) -> None:
        state = engine.new_game(["human"] * 4, {}, Rng(SEED))
        assert engine.to_act(state) == {0, 1, 2, 3}
        for seat, card in enumerate(["9C", "3D", "KC", "5C"]):
            state = replace(state, cut_deck=(card,))
            state, _ = engine.apply(state, seat, {"type": "cut"})
        assert (state.vexer, state.token) == (1, 2)
        assert state.phase == "rule"

    def test_a_tie_for_low_card_is_cut_again_by_the_tied_players(self, engine: LudicEngine) -> None:
        state = engine.new_game(["human"] * 3, {}, Rng(SEED))
        for seat, card in enumerate(["2C", "2D", "9C"]):
            state = replace(state, cut_deck=(card,))
            state, events = engine.apply(state, seat, {"type": "cut"})
        assert [e.type for e in events][-1] == "CutTied"
        assert engine.to_act(state) == {0, 1}
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 2, {"type": "cut"})
        for seat, card in ((0, "5C"), (1, "3C")):
            state = replace(state, cut_deck=(card,))
            state, _ = engine.apply(state, seat, {"type": "cut"})
        assert (state.vexer, state.token) == (1, 2)

    def test_each_player_cuts_once(self, engine: LudicEngine) -> None:
        state, _ = engine.apply(engine.new_game(["human"] * 3, {}, Rng(SEED)), 0, {"type": "cut"})
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 0, {"type": "cut"})


class TestRule:
    def test_only_the_vexer_writes_the_rule(self, engine: LudicEngine, start: Start) -> None:
        state = start(None)
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 1, {"type": "write_rule", "rule": "the top card is red"})

    @pytest.mark.parametrize(("rule", "reason"), [
        ("the high card is red", "ambiguous"),
        ("the top card is a red king, queen or jack", "ambiguous"),
        ("the bottom card is red", "illegal"),
        ("the top card is purple", "syntax"),
    ])
    def test_an_ambiguous_or_illegal_rule_is_refused(self, engine: LudicEngine, start: Start, rule: str,
                                                     reason: str) -> None:
        state = start(None)
        with pytest.raises(FieldValidationError) as caught:
            engine.apply(state, 0, {"type": "write_rule", "rule": rule})
        assert caught.value.extra["rule_error"]["reason"] == reason
        assert (caught.value.slug == "ambiguous-rule") == (reason == "ambiguous")
        assert state.phase == "rule"

    def test_a_refused_rule_comes_with_the_nearest_wording(self, engine: LudicEngine, start: Start) -> None:
        state = start(None)
        with pytest.raises(FieldValidationError) as caught:
            engine.apply(state, 0, {"type": "write_rule", "rule": "the top card is a king or a qeen"})
        error = caught.value.extra["rule_error"]
        assert error["suggestion"] == "the top card is a king or a queen"
        assert "the nearest wording the language accepts" in error["message"]

    def test_the_vexer_may_turn_the_initial_sets(self, engine: LudicEngine, start: Start) -> None:
        state = start(None)
        state, _ = act(engine, state, 0, type="write_rule", rule="the bottom card is red", turn_obey=True,
                       turn_break=True)
        rnd = state.round
        assert rnd is not None
        assert (rnd.initial(OBEY).top, rnd.initial(OBEY).bottom) == ("4C", "QD")
        assert (rnd.initial(BREAK).top, rnd.initial(BREAK).bottom) == ("3D", "JC")

    def test_turning_can_be_switched_off(self, engine: LudicEngine, start: Start) -> None:
        state = start(None, options={"turn_initial_sets": False})
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "write_rule", "rule": "the bottom card is red", "turn_obey": True})

    def test_play_starts_to_the_vexers_left(self, engine: LudicEngine, start: Start) -> None:
        state = start(seats=4, vexer=2)
        assert engine.to_act(state) == {3}
        assert state.round is not None and state.round.rule == "the top card is red"


class TestQueries:
    def test_a_query_is_placed_by_the_server_and_two_cards_are_dealt(self, engine: LudicEngine,
                                                                     start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state, events = act(engine, state, 1, type="query", top="5D", bottom="2C")
        rnd = state.round
        assert rnd is not None
        assert [(s.top, s.bottom, s.kind) for s in rnd.columns[OBEY]][-1] == ("5D", "2C", "query")
        assert rnd.hands[1] == ("7C", "8D", "2D", "5C")
        assert "SetQueried" in events and "CardsDealt" in events
        assert engine.to_act(state) == {2}
        state, _ = act(engine, state, 2, type="query", top="9C", bottom="10D")
        assert state.round is not None and state.round.columns[BREAK][-1].top == "9C"
        assert engine.to_act(state) == {1}

    def test_turns_go_around_skipping_the_vexer(self, engine: LudicEngine, start: Start) -> None:
        state = start(seats=5, vexer=3)
        order = []
        for _ in range(5):
            seat = min(engine.to_act(state))
            order.append(seat)
            hand = state.round.hands[seat] if state.round else []
            state, _ = act(engine, state, seat, type="play", top=hand[0], bottom=hand[1], column=OBEY)
            if state.phase == "guess":
                state, _ = act(engine, state, seat, type="pass")
        assert order == [4, 0, 1, 2, 4]

    @pytest.mark.parametrize("action", [
        {"type": "query", "top": "KC", "bottom": "2C"},
        {"type": "query", "top": "2C", "bottom": "2C"},
        {"type": "query", "top": 3, "bottom": None},
        {"type": "query"},
        {"type": "fly"},
        {},
    ])
    def test_bad_queries_are_illegal_and_list_what_is_legal(self, engine: LudicEngine, start: Start,
                                                           action: dict[str, object]) -> None:
        state = start(hands=HANDS, deck=DECK)
        with pytest.raises(IllegalActionError) as caught:
            engine.apply(state, 1, action)
        assert {"type": "draw"} not in caught.value.extra["legal"]
        assert len(caught.value.extra["legal"]) == 12 + 24

    def test_no_query_once_the_deck_is_out(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = rig(state, deck=[])
        with pytest.raises(IllegalActionError):
            engine.apply(state, 1, {"type": "query", "top": "5D", "bottom": "2C"})
        assert {a["type"] for a in engine.legal_actions(state, 1)} == {"play"}


class TestPlays:
    def test_a_correct_play_gets_two_cards_and_a_chance_to_guess(self, engine: LudicEngine,
                                                                start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state, _events = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        assert state.phase == "guess" and engine.to_act(state) == {1}
        assert state.round is not None and len(state.round.hands[1]) == 4
        assert engine.legal_actions(state, 1) == [{"type": "pass"}]
        assert engine.action_templates(state, 1) == [{"type": "guess", "rule": "<rule>"}]
        state, _ = act(engine, state, 1, type="pass")
        assert state.phase == "turn" and engine.to_act(state) == {2}

    def test_a_wrong_play_is_moved_to_the_right_column_and_gets_no_cards(self, engine: LudicEngine,
                                                                        start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state, _ = act(engine, state, 1, type="play", top="2C", bottom="5D", column=OBEY)
        rnd = state.round
        assert rnd is not None
        assert (rnd.columns[BREAK][-1].top, rnd.columns[BREAK][-1].kind) == ("2C", "misplay")
        assert rnd.hands[1] == ("7C", "8D") and rnd.deck == (*DECK, *rnd.deck[4:])
        assert engine.to_act(state) == {2}

    def test_pass_and_draw_only_with_fewer_than_four_cards(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        with pytest.raises(IllegalActionError):
            engine.apply(state, 1, {"type": "draw"})
        state, _ = act(engine, state, 1, type="play", top="2C", bottom="5D", column=OBEY)
        state, _ = act(engine, state, 2, type="query", top="9C", bottom="10D")
        assert {"type": "draw"} in engine.legal_actions(state, 1)
        state, _ = act(engine, state, 1, type="draw")
        assert state.round is not None and len(state.round.hands[1]) == 4

    def test_an_empty_handed_seeker_draws_while_the_deck_lasts(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = rig(state, hands={1: []})
        assert engine.legal_actions(state, 1) == [{"type": "draw"}]

    def test_a_play_to_no_column_is_illegal(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        with pytest.raises(IllegalActionError):
            engine.apply(state, 1, {"type": "play", "top": "5D", "bottom": "2C", "column": "left"})


class TestGuesses:
    def _after_correct_play(self, engine: LudicEngine, start: Start, **kwargs: object) -> LudicState:
        state = start(hands=HANDS, deck=DECK, **kwargs)
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        return state

    def test_an_equivalent_guess_wins_the_round(self, engine: LudicEngine, start: Start) -> None:
        state = self._after_correct_play(engine, start)
        state, events = act(engine, state, 1, type="guess", rule="it is not the case that the top card is black")
        last = state.rounds[-1]
        assert last["ended_by"] == "guess" and last["guesser"] == 1 and last["rule"] == "the top card is red"
        assert "RoundEnded" in events and state.vexer == 1 and state.phase == "rule"

    def test_a_visible_contradicting_set_is_pointed_to_first(self, engine: LudicEngine, start: Start) -> None:
        state = self._after_correct_play(engine, start)
        state, events = act(engine, state, 1, type="guess", rule="the top card is a face card")
        rnd = state.round
        assert rnd is not None
        assert "HintPointed" in events
        assert [(h.source, h.top, h.bottom, h.obeys) for h in rnd.hints[1]] == [("column", "5D", "2C", True)]
        assert len(rnd.hintbook) == 24 and engine.to_act(state) == {2}

    def test_otherwise_a_hint_is_built_from_the_hintbook(self, engine: LudicEngine, start: Start,
                                                         cards_in_play: Conserved) -> None:
        state = self._after_correct_play(engine, start)
        state, events = engine.apply(state, 1, {"type": "guess",
                                                "rule": "the top card is red or the bottom card is a king"})
        rnd = state.round
        assert rnd is not None
        hint = rnd.hints[1][0]
        assert hint.source == "hintbook" and not hint.obeys
        assert not card_type(hint.top).red and card_type(hint.bottom).rank == 13
        assert len(rnd.hintbook) == 22 and hint.top not in rnd.hintbook
        assert cards_in_play(state) == sorted(all_cards())
        private = next(e for e in events if e.type == "HintReceived")
        assert private.audience == {1}
        assert "top" not in next(e for e in events if e.type == "HintGiven").data

    def test_a_hint_no_hintbook_can_build_goes_on_a_slip(self, engine: LudicEngine, start: Start) -> None:
        state = self._after_correct_play(engine, start)
        guess = "the top card is red and not (the top card is a red 2 and the bottom card is a red 2)"
        state, _ = act(engine, state, 1, type="guess", rule=guess)
        rnd = state.round
        assert rnd is not None
        hint = rnd.hints[1][0]
        assert hint.source == "slip" and hint.obeys
        assert card_type(hint.top) == card_type(hint.bottom) == CardType(2, True)
        assert hint.top != hint.bottom and len(rnd.hintbook) == 24

    def test_the_vexer_may_choose_the_counterexample(self, engine: LudicEngine, start: Start) -> None:
        state = self._after_correct_play(engine, start, options={"vexer_choices": True})
        state, _ = act(engine, state, 1, type="guess", rule="the top card is red or the bottom card is a king")
        assert state.phase == "choose" and engine.to_act(state) == {0}
        options = engine.legal_actions(state, 0)
        assert len(options) == 12 * 2 - 1 and all(o["type"] == "choose_hint" for o in options)
        assert engine.view(state, 1)["pending"] == {"kind": "hint", "seat": 1, "options": None}
        state, _ = engine.apply(state, 0, options[5])
        rnd = state.round
        assert rnd is not None
        assert (rnd.hints[1][0].top, rnd.hints[1][0].bottom) == (options[5]["top"], options[5]["bottom"])
        assert engine.to_act(state) == {2}

    @pytest.mark.parametrize(("guess", "reason"), [
        ("the high card is red", "ambiguous"), ("the top card is a black 7 or 8", "ambiguous"),
        ("the top card is", "syntax")])
    def test_an_unclear_guess_is_sent_back(self, engine: LudicEngine, start: Start, guess: str,
                                          reason: str) -> None:
        state = self._after_correct_play(engine, start)
        with pytest.raises(FieldValidationError) as caught:
            engine.apply(state, 1, {"type": "guess", "rule": guess})
        assert caught.value.extra["rule_error"]["reason"] == reason
        assert (caught.value.slug == "ambiguous-rule") == (reason == "ambiguous")
        assert state.phase == "guess"

    def test_no_guess_outside_the_guessing_moments(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        with pytest.raises(IllegalActionError):
            engine.apply(state, 1, {"type": "guess", "rule": "the top card is red"})


class TestMaximumSize:
    FULL = [("5D", "2C"), ("7D", "8C"), ("9D", "10C"), ("KD", "6C")]

    def test_the_oldest_set_after_the_initial_one_is_flipped(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands={1: ["2D", "5C", "8D", "7C"], 2: ["9C", "10D", "6D", "JD"]}, deck=["3C", "4D"])
        state = rig(state, obey=self.FULL)
        state, events = act(engine, state, 1, type="query", top="2D", bottom="5C")
        rnd = state.round
        assert rnd is not None
        assert "SetFlipped" in events
        assert [s.face_up for s in rnd.columns[OBEY]] == [True, False, True, True, True, True]
        assert len(rnd.face_up(OBEY)) == 5 and rnd.columns[OBEY][-1].top == "2D"
        view = engine.view(state, 2)
        assert view["columns"][OBEY][1] == {"face_up": False, "initial": False, "top": None, "bottom": None,
                                            "kind": None, "seat": None}

    def test_the_vexer_may_choose_which_set_to_flip(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands={1: ["2D", "5C", "8D", "7C"], 2: ["9C", "10D", "6D", "JD"]}, deck=["3C", "4D"],
                      options={"vexer_choices": True})
        state = rig(state, obey=self.FULL)
        state, _ = act(engine, state, 1, type="query", top="2D", bottom="5C")
        assert state.phase == "choose" and engine.to_act(state) == {0}
        options = engine.legal_actions(state, 0)
        assert [(o["top"], o["bottom"]) for o in options] == self.FULL
        state, _ = engine.apply(state, 0, options[2])
        rnd = state.round
        assert rnd is not None
        assert [s.face_up for s in rnd.columns[OBEY]] == [True, True, True, False, True, True]
        assert engine.to_act(state) == {2}
        with pytest.raises(IllegalActionError):
            engine.apply(state, 2, {"type": "choose_flip", "column": OBEY, "top": "5D", "bottom": "2C"})


class TestDeckExhausted:
    def test_only_plays_and_seekers_without_cards_are_skipped(self, engine: LudicEngine, start: Start) -> None:
        state = start(seats=4, hands=HANDS | {3: ["2D", "5C", "7D", "8C"]}, deck=[])
        state = rig(state, hands={2: []}, deck=[])
        state, _ = act(engine, state, 1, type="play", top="2C", bottom="5D", column=OBEY)
        assert engine.to_act(state) == {3}

    def test_when_every_seeker_is_out_of_cards_the_last_phase_begins(self, engine: LudicEngine,
                                                                      start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = rig(state, hands={1: ["5D", "2C"], 2: []}, deck=[])
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, _ = act(engine, state, 1, type="pass")
        assert state.phase == "final" and engine.to_act(state) == {2}
        assert engine.view(state, 2)["last_phase"] is True

    def test_a_pass_in_the_last_phase_flips_one_set_per_column_then_a_hint(self, engine: LudicEngine,
                                                                            start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = rig(state, hands={1: [], 2: []}, deck=[], obey=[("5D", "2C")], broken=[("2S", "5H")])
        state = replace(state, phase=Phase.FINAL)
        state, events = act(engine, state, 1, type="pass")
        rnd = state.round
        assert rnd is not None
        assert events.count("SetFlipped") == 2 and len(rnd.hints[1]) == 1
        assert [len(rnd.face_up(c)) for c in (OBEY, BREAK)] == [1, 1]
        assert engine.to_act(state) == {2}

    def test_flipping_an_initial_set_ends_the_round_with_no_points(self, engine: LudicEngine,
                                                                   start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = rig(state, hands={1: [], 2: []}, deck=[], obey=[("5D", "2C")])
        state = replace(state, phase=Phase.FINAL)
        state, _events = act(engine, state, 1, type="guess", rule="the top card is a face card")
        last = state.rounds[-1]
        assert last["ended_by"] == "flip" and last["points"] == 0 and last["rule"] == "the top card is red"
        assert last["zero_reason"] == "an initial set was flipped"
        assert (state.vexer, state.token) == (1, 2)
        assert state.phase == "rule"


class TestScoring:
    def test_the_vexer_scores_the_face_up_sets(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = rig(state, broken=[("2S", "5H"), ("7S", "8H")])
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, _ = act(engine, state, 1, type="guess", rule="the top card is red")
        assert state.rounds[-1]["points"] == 5 and state.scores == (5, 0, 0)

    def test_no_points_when_a_column_holds_only_its_initial_set(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, _ = act(engine, state, 1, type="guess", rule="the top card is red")
        assert state.rounds[-1]["points"] == 0
        assert state.rounds[-1]["zero_reason"] == "a column holds nothing but its initial set"

    @pytest.mark.parametrize(("short", "before", "ludic"), [(False, 10, True), (False, 9, False),
                                                            (True, 6, True), (True, 5, False)])
    def test_a_player_becomes_ludic_at_15_points_or_11_in_a_short_game(
            self, engine: LudicEngine, start: Start, short: bool, before: int, ludic: bool) -> None:
        state = start(hands=HANDS, deck=DECK, options={"short_game": short})
        state = replace(state, scores=(before, 0, 0))
        state = rig(state, broken=[("2S", "5H"), ("7S", "8H")])
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, events = act(engine, state, 1, type="guess", rule="the top card is red")
        assert (0 in state.ludic) is ludic and ("PlayerBecameLudic" in events) is ludic
        assert state.phase == "rule"

    def test_a_ludic_player_who_becomes_vexer_again_wins(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state = replace(state, ludic=(1,), scores=(0, 16, 0))
        state = rig(state, hands={1: [], 2: []}, deck=[])
        state = replace(state, phase=Phase.FINAL)
        state, events = act(engine, state, 1, type="pass")
        assert state.phase == "over" and state.winners == (1,) and "GameWon" in events
        result = engine.result(state)
        assert result is not None and result.winners == (1,)
        with pytest.raises(GameOverError):
            engine.apply(state, 1, {"type": "pass"})

    def test_the_guesser_holding_the_token_passes_it_on(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, _ = act(engine, state, 1, type="guess", rule="the top card is red")
        assert (state.vexer, state.token) == (1, 2)

    def test_the_round_limit_ends_the_game_with_the_highest_scores(self, engine: LudicEngine,
                                                                   start: Start) -> None:
        state = start(hands=HANDS, deck=DECK, options={"round_limit": 1})
        state = rig(state, broken=[("2S", "5H")])
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, _ = act(engine, state, 1, type="guess", rule="the top card is red")
        assert state.phase == "over" and state.winners == (0,) and engine.to_act(state) == frozenset()


class TestViews:
    def test_what_each_seat_sees(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        vexer, seeker, spectator = engine.view(state, 0), engine.view(state, 1), engine.view(state, None)
        assert vexer["rule"] == "the top card is red" and seeker["rule"] is None and spectator["rule"] is None
        assert seeker["hand"] == HANDS[1] and vexer["hand"] is None and spectator["hand"] is None
        assert seeker["hand_counts"] == [0, 4, 4]
        assert seeker["columns"][OBEY][0] == {"face_up": True, "initial": True, "top": "QD", "bottom": "4C",
                                              "kind": "initial", "seat": None}
        assert seeker["role"] == "seeker" and vexer["role"] == "vexer" and spectator["role"] == "spectator"
        assert "rng" not in str(seeker) and DECK[0] not in str(seeker)

    def test_the_rule_is_revealed_when_the_round_ends(self, engine: LudicEngine, start: Start) -> None:
        state = start(hands=HANDS, deck=DECK)
        state, _ = act(engine, state, 1, type="play", top="5D", bottom="2C", column=OBEY)
        state, _ = act(engine, state, 1, type="guess", rule="the top card is red")
        assert engine.view(state, 2)["rounds"][-1]["rule"] == "the top card is red"
