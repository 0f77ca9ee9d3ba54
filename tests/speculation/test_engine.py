"""Speculation's rules, one class per section of the text (and of RULES.md)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from itertools import product
from typing import TYPE_CHECKING, Any

import pytest
from ludoteca.core.errors import FieldValidationError, GameOverError, IllegalActionError, NotYourTurnError
from speculation.board import FACES, TIER_SIZE, VALUE_CARDS, Board, Tier, value_of
from speculation.engine import MAX_ITEMS, GuessJoker, Phase, SpeculationEngine, State
from speculation.joker import ALL_GUESSES, HANDS, score

if TYPE_CHECKING:
    from conftest import Table


def dumped(engine: SpeculationEngine, state: State) -> str:
    return json.dumps(engine.dump(state), sort_keys=True)


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


class TestSetup:
    def test_layout_oracle(self) -> None:
        assert [f.card for f in FACES] == ["JC", "JS", "QC", "QS", "KC", "KS", "JK1"]
        assert [f.size for f in FACES] == [1, 1, 2, 2, 3, 3, 4]
        assert dict(TIER_SIZE) == {Tier.JACKS: 2, Tier.QUEENS: 4, Tier.KINGS: 6, Tier.JOKER: 4}
        assert Counter(value_of(c) for c in VALUE_CARDS) == {v: 2 for v in range(1, 11)}

    @pytest.mark.parametrize("seed", ["00" * 32, "ab" * 32, "5e" * 32])
    def test_each_board_is_the_owners_twenty_black_value_cards(self, table: Table, seed: str) -> None:
        state = table.new(seed=seed)
        for board in state.boards:
            assert [len(c) for c in board.cards] == [f.size for f in FACES]
            assert len(board.set_aside) == 4
            assert sorted(board.all_cards) == sorted(VALUE_CARDS)
            assert not any(f for face in board.found for f in face)

    def test_the_deal_follows_the_seed(self, table: Table, engine: SpeculationEngine) -> None:
        assert dumped(engine, table.new(seed="01" * 32)) == dumped(engine, table.new(seed="01" * 32))
        assert table.new(seed="01" * 32).boards != table.new(seed="02" * 32).boards
        boards = table.new(seed="03" * 32).boards
        assert boards[0] != boards[1]  # each player shuffles their own deck

    @pytest.mark.parametrize("players", [["human"], ["human"] * 3])
    def test_two_players(self, table: Table, players: list[str]) -> None:
        with pytest.raises(FieldValidationError):
            table.new(players)

    def test_bad_option(self, table: Table) -> None:
        with pytest.raises(FieldValidationError):
            table.new(options={"first_guesser": "coin"})


class TestClothing:
    @pytest.mark.parametrize(("items", "first"), [((5, 3), 0), ((2, 6), 1), ((0, 1), 1), ((MAX_ITEMS, 0), 0)])
    def test_most_items_guesses_first(self, table: Table, engine: SpeculationEngine,
                                      items: tuple[int, int], first: int) -> None:
        state = table.new()
        assert engine.to_act(state) == {0, 1} and state.phase is Phase.CLOTHING
        state, _ = engine.apply(state, 1, {"type": "report_clothing", "items": items[1]})
        state, events = engine.apply(state, 0, {"type": "report_clothing", "items": items[0]})
        assert types(events) == ["ClothingReported", "ClothingCompared", "FirstGuesserChosen"]
        assert (state.phase, state.guesser, state.first_guesser, state.decided_by) == \
            (Phase.GUESSING, first, first, "clothing")
        assert engine.to_act(state) == {first}

    def test_reports_are_sealed_until_both_are_in(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.new(), (0, {"type": "report_clothing", "items": 4}))
        assert engine.view(state, 0)["clothing"]["items"] == [4, None]
        assert engine.view(state, 1)["clothing"]["items"] == [None, None]
        assert engine.view(state, None)["clothing"] == {"reported": [True, False], "items": [None, None],
                                                        "tied": [], "decided_by": None}
        state = table.play(state, (1, {"type": "report_clothing", "items": 6}))
        assert engine.view(state, None)["clothing"]["items"] == [4, 6]

    def test_a_tie_starts_the_race_and_the_first_to_put_on_an_item_wins(
            self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.new(), (0, {"type": "report_clothing", "items": 5}),
                           (1, {"type": "report_clothing", "items": 5}))
        assert state.phase is Phase.RACE and engine.to_act(state) == {0, 1}
        assert engine.legal_actions(state, 1) == [{"type": "put_on_item"}]
        state, events = engine.apply(state, 1, {"type": "put_on_item"})
        assert types(events) == ["ItemPutOn", "FirstGuesserChosen"]
        assert (state.guesser, state.decided_by, state.items) == (1, "race", (5, 6))

    @pytest.mark.parametrize("bot", [0, 1])
    def test_bots_report_after_humans_and_never_win_a_race_against_one(
            self, table: Table, engine: SpeculationEngine, bot: int) -> None:
        players = ["human", "human"]
        players[bot] = "bot:expert"
        human = 1 - bot
        state = table.new(players)
        assert engine.to_act(state) == {human}
        assert engine.legal_actions(state, bot) == []
        with pytest.raises(NotYourTurnError):
            engine.apply(state, bot, {"type": "report_clothing", "items": 3})
        state = table.play(state, (human, {"type": "report_clothing", "items": 3}))
        assert engine.to_act(state) == {bot}
        state = table.play(state, (bot, {"type": "report_clothing", "items": 3}))
        assert state.phase is Phase.RACE and engine.to_act(state) == {human}
        with pytest.raises(NotYourTurnError):
            engine.apply(state, bot, {"type": "put_on_item"})

    def test_two_bots_race_alone(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.new(["bot:basic", "bot:random"]), (0, {"type": "report_clothing", "items": 2}),
                           (1, {"type": "report_clothing", "items": 2}))
        assert engine.to_act(state) == {0, 1}

    @pytest.mark.parametrize("items", [-1, MAX_ITEMS + 1, "3", 2.5, True, None])
    def test_counts_are_whole_numbers_in_range(self, table: Table, engine: SpeculationEngine, items: Any) -> None:
        state = table.new()
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, {"type": "report_clothing", "items": items})
        assert err.value.extra["legal"] == engine.legal_actions(state, 0)

    def test_random_option_skips_the_ritual(self, table: Table, engine: SpeculationEngine) -> None:
        firsts = {table.new(options={"first_guesser": "random"}, seed=f"{i:02x}" * 32).first_guesser
                  for i in range(12)}
        assert firsts == {0, 1}
        state = table.new(options={"first_guesser": "random"})
        assert state.phase is Phase.GUESSING and state.decided_by == "random"


class TestTierOrder:
    def test_jacks_then_queens_then_kings_then_joker(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.playing()
        seen = []
        for value in (5, 7, 2, 2, 3, 9, 1, 4, 6, 8, 10, 1):
            seen.append(engine.target(state, 0))
            state = table.play(state, (0, table.guess(value)))
        assert seen == [Tier.JACKS] * 2 + [Tier.QUEENS] * 4 + [Tier.KINGS] * 6
        assert engine.target(state, 0) is Tier.JOKER
        assert engine.target(state, 1) is Tier.JACKS  # each attack is separate

    def test_a_value_of_a_higher_tier_is_no_while_a_lower_one_stands(
            self, table: Table, engine: SpeculationEngine) -> None:
        state, events = engine.apply(table.playing(), 0, table.guess(2))  # 2 is under the queens only
        assert events[0].data == {"seat": 0, "tier": "jacks", "value": 2, "answer": "no"}
        assert state.guesser == 1

    def test_no_joker_guess_before_the_kings_are_down(self, table: Table, engine: SpeculationEngine) -> None:
        with pytest.raises(IllegalActionError):
            engine.apply(table.playing(), 0, table.joker(3, 4, 6, 9))

    def test_no_one_value_guess_at_the_joker(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(), 0)
        with pytest.raises(IllegalActionError, match="guess_joker"):
            engine.apply(state, 0, table.guess(3))

    def test_tier_cleared_and_face_downed_events(self, table: Table, engine: SpeculationEngine) -> None:
        state, events = engine.apply(table.playing(), 0, table.guess(5))
        assert types(events) == ["ValueGuessed", "FaceCardDowned"]
        assert events[1].data == {"seat": 1, "face": "JC"}
        state, events = engine.apply(state, 0, table.guess(7))
        assert types(events) == ["ValueGuessed", "FaceCardDowned", "TierCleared"]
        assert events[2].data == {"seat": 1, "tier": "jacks", "by": 0}


class TestDuplicates:
    def test_each_copy_needs_its_own_guess(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.playing(), (0, table.guess(5)), (0, table.guess(7)))  # queens: 2 2 | 3 9
        state, events = engine.apply(state, 0, table.guess(2))
        assert events[0].data["answer"] == "yes" and types(events) == ["ValueGuessed"]  # QC not down yet
        assert sum(state.boards[1].found[2]) == 1
        state, events = engine.apply(state, 0, table.guess(2))
        assert events[0].data["answer"] == "yes" and types(events) == ["ValueGuessed", "FaceCardDowned"]
        state, events = engine.apply(state, 0, table.guess(2))
        assert events[0].data["answer"] == "no" and state.guesser == 1

    def test_a_copy_in_another_tier_does_not_count(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.playing(), (0, table.guess(5)), (0, table.guess(7)))
        state, events = engine.apply(state, 0, table.guess(1))  # the 1s are under the kings
        assert events[0].data["answer"] == "no"

    @pytest.mark.parametrize("seed", ["00" * 32, "11" * 32, "22" * 32, "33" * 32])
    def test_which_copy_is_revealed_is_drawn_and_the_second_follows(
            self, table: Table, engine: SpeculationEngine, seed: str) -> None:
        state = table.play(table.playing(), (0, table.guess(5)), (0, table.guess(7)))
        state = replace(state, rng=type(state.rng)(seed))
        first, _ = engine.apply(state, 0, table.guess(2))
        second, _ = engine.apply(first, 0, table.guess(2))
        assert first.history[-1].card in ("2C", "2S")
        assert {first.history[-1].card, second.history[-1].card} == {"2C", "2S"}
        assert first.rng.counter == state.rng.counter + 1


class TestTurns:
    def test_yes_goes_again_no_passes(self, table: Table, engine: SpeculationEngine) -> None:
        state, _ = engine.apply(table.playing(), 0, table.guess(5))
        assert state.guesser == 0 and engine.to_act(state) == {0}
        state, events = engine.apply(state, 0, table.guess(1))
        assert types(events) == ["ValueGuessed", "TurnPassed"] and events[1].data == {"seat": 1}
        assert engine.to_act(state) == {1}
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 0, table.guess(7))

    def test_clearing_the_kings_keeps_the_turn_for_the_joker(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(), 0)
        assert state.guesser == 0
        assert {a["type"] for a in engine.legal_actions(state, 0)} == {"guess_joker"}

    def test_a_wrong_joker_guess_passes_the_turn(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(), 0)
        state, events = engine.apply(state, 0, table.joker(3, 4, 6, 10))
        assert types(events) == ["JokerGuessed", "TurnPassed"] and state.guesser == 1
        assert events[0].data == {"seat": 0, "values": [3, 4, 6, 10], "right": 3}


class TestJoker:
    HAND = (2, 2, 5, 9)

    @pytest.mark.parametrize(("guess", "right"), [
        ((2, 5, 5, 7), 2), ((2, 2, 2, 2), 2), ((9, 5, 2, 2), 4), ((1, 3, 4, 6), 0), ((2, 2, 5, 5), 3),
        ((9, 9, 9, 9), 1), ((5, 9, 1, 2), 3), ((2, 1, 1, 1), 1),
    ])
    def test_feedback_is_the_multiset_intersection(self, table: Table, engine: SpeculationEngine,
                                                   guess: tuple[int, ...], right: int) -> None:
        assert score(guess, self.HAND) == right
        state = table.clear_tiers(table.playing(board1=table.PAIRED_JOKER), 0)
        state, events = engine.apply(state, 0, table.joker(*guess))
        assert events[0].data["right"] == right
        assert state.history[-1].values == tuple(sorted(guess))

    def test_oracle_counts(self) -> None:
        assert (len(ALL_GUESSES), len(HANDS)) == (715, 615)
        assert sum(1 for h in HANDS if score(h, self.HAND) == 4) == 1

    def test_all_four_right_wins_and_reveals_everything(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(board1=table.PAIRED_JOKER), 0)
        state, events = engine.apply(state, 0, table.joker(9, 2, 5, 2))
        assert types(events) == ["JokerGuessed", "GameWon", "BoardsRevealed"]
        assert state.phase is Phase.OVER and engine.to_act(state) == frozenset()
        result = engine.result(state)
        assert result is not None and result.winners == (0,) and result.scores == (1.0, 0.0)
        assert result.summary["tier_guesses"] == [12, 0] and result.summary["joker_guesses"] == [1, 0]
        view = engine.view(state, 1)
        assert view["boards"][0]["set_aside"] == list(state.boards[0].set_aside)
        assert all(c["card"] is not None for b in view["boards"] for f in b["faces"] for c in f["cards"])
        with pytest.raises(GameOverError):
            engine.apply(state, 1, table.guess(5))

    def test_a_refusal_at_the_joker_counts_the_guesses_instead_of_listing_them(
            self, table: Table, engine: SpeculationEngine) -> None:
        for options, count in (({}, 715), ({"joker_guesses": "hands"}, 615)):
            state = table.clear_tiers(table.playing(options=options), 0)
            with pytest.raises(IllegalActionError) as err:
                engine.apply(state, 0, table.guess(3))
            assert "legal" not in err.value.extra and err.value.extra["legal_count"] == count
            assert f"{count} legal actions: GET /games/{{id}}/actions" in err.value.detail
        with pytest.raises(IllegalActionError) as err:  # a short list is still given in full
            engine.apply(table.playing(), 0, table.joker(3, 4, 6, 9))
        assert err.value.extra["legal"] == engine.legal_actions(table.playing(), 0)

    def test_hands_option_allows_only_possible_hands(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(options={"joker_guesses": "hands"}), 0)
        assert len(engine.legal_actions(state, 0)) == 615
        with pytest.raises(IllegalActionError, match="more than twice"):
            engine.apply(state, 0, table.joker(2, 2, 2, 5))
        any_state = table.clear_tiers(table.playing(), 0)
        assert len(engine.legal_actions(any_state, 0)) == 715


class TestActions:
    @pytest.mark.parametrize("action", [
        {}, None, [], "guess", {"type": "fly"}, {"type": "guess"}, {"type": "guess", "value": "5"},
        {"type": "guess", "value": True}, {"type": "guess", "value": 0}, {"type": "guess", "value": 11},
        {"type": "guess", "value": 5.0}, {"type": "report_clothing", "items": 3}, {"type": "put_on_item"},
    ])
    def test_malformed_or_out_of_phase_is_illegal_and_changes_nothing(
            self, table: Table, engine: SpeculationEngine, action: Any) -> None:
        state = table.playing()
        before = dumped(engine, state)
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, action)
        assert err.value.extra["legal"] == engine.legal_actions(state, 0)
        assert dumped(engine, state) == before

    @pytest.mark.parametrize("values", [[1, 2, 3], [1, 2, 3, 4, 5], "1234", [1, 2, 3, 11], [1, 2, 3, None],
                                        None, [1, 2, 3, True]])
    def test_malformed_joker_guesses(self, table: Table, engine: SpeculationEngine, values: Any) -> None:
        state = table.clear_tiers(table.playing(), 0)
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "guess_joker", "values": values})

    def test_out_of_turn_and_unknown_seats(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.playing()
        for seat in (1, 2, -1):
            assert engine.legal_actions(state, seat) == []
            with pytest.raises(NotYourTurnError):
                engine.apply(state, seat, table.guess(5))

    def test_every_legal_action_applies(self, table: Table, engine: SpeculationEngine) -> None:
        for state in (table.new(), table.playing(), table.clear_tiers(table.playing(), 0)):
            for seat in engine.to_act(state):
                for action in engine.legal_actions(state, seat):
                    engine.apply(state, seat, action)

    def test_apply_does_not_change_its_input(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.playing()
        before = dumped(engine, state)
        engine.apply(state, 0, table.guess(5))
        engine.apply(state, 0, table.guess(1))
        assert dumped(engine, state) == before


class TestView:
    def test_own_board_in_full_opponents_found_cards_only(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.playing(), (0, table.guess(5)))
        view = engine.view(state, 0)
        own = [c["card"] for f in view["boards"][0]["faces"] for c in f["cards"]]
        theirs = [c["card"] for f in view["boards"][1]["faces"] for c in f["cards"]]
        assert own == [c for face in state.boards[0].cards for c in face]
        assert theirs == ["5C"] + [None] * 15
        assert view["boards"][0]["set_aside"] == list(state.boards[0].set_aside)  # its owner's
        assert view["boards"][1]["set_aside"] is None and engine.view(state, None)["boards"][0]["set_aside"] is None
        dealt = sorted(c for face in state.boards[0].cards for c in face)
        assert sorted(view["boards"][0]["set_aside"]) == sorted(set(VALUE_CARDS) - set(dealt))  # known anyway
        assert view["boards"][1]["faces"][0]["down"] is True
        assert view["boards"][1]["target"] == "jacks"
        spectator = engine.view(state, None)
        assert [c["card"] for f in spectator["boards"][0]["faces"] for c in f["cards"]] == [None] * 16

    def test_the_record_mirrors_found_cards_in_red(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.playing(), (0, table.guess(5)), (0, table.guess(7)), (0, table.guess(2)),
                           (0, table.guess(2)))
        record = engine.view(state, 1)["records"][0]
        assert record["keeper"] == 0
        assert [f["card"] for f in record["faces"]] == ["JH", "JD", "QH", "QD", "KH", "KD", "JK2"]
        assert [f["cards"] for f in record["faces"][:3]] == [["5H"], ["7H"], ["2H", "2D"]]
        assert len(record["hand"]) == 16 and "2H" not in record["hand"] and "5D" in record["hand"]
        assert engine.view(state, 0)["records"][1]["hand"] == [
            f"{r}{s}" for r in ["A", *map(str, range(2, 11))] for s in "HD"]

    def test_history_of_guesses_and_answers(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.playing(), (0, table.guess(5)), (0, table.guess(3)))
        assert engine.view(state, None)["history"] == [
            {"seat": 0, "tier": "jacks", "values": [5], "answer": "yes", "card": "5C", "right": None},
            {"seat": 0, "tier": "jacks", "values": [3], "answer": "no", "card": None, "right": None},
        ]


class TestCodec:
    def test_round_trip(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.play(table.new(), (0, {"type": "report_clothing", "items": 2}),
                           (1, {"type": "report_clothing", "items": 2}), (1, {"type": "put_on_item"}))
        state = table.play(state, (1, table.guess(state.boards[0].tier_values(Tier.JACKS)[0])))
        data = json.loads(json.dumps(engine.dump(state)))
        assert engine.load(data) == state
        assert dumped(engine, engine.load(data)) == dumped(engine, state)

    def test_rigged_boards(self, table: Table) -> None:
        board = Board.from_values(table.STANDARD)
        assert [value_of(c) for face in board.cards for c in face] == list(table.STANDARD)
        with pytest.raises(ValueError):
            Board.from_values((1, 1, 1, *table.STANDARD[3:]))


class TestTypedActions:
    """A body is parsed once into a typed action (:data:`speculation.engine.ACTIONS`) and judged
    against the one statement of what a seat may post (``legal``); a refusal says why."""

    @pytest.mark.parametrize(("state_of", "body", "message"), [
        ("playing", {"type": "report_clothing", "items": 3},
         "'report_clothing' is not an action of the guessing phase."),
        ("playing", {"type": "fly"}, "'fly' is not an action of the guessing phase."),
        ("playing", {"value": 3}, "None is not an action of the guessing phase."),
        ("playing", [], "None is not an action of the guessing phase."),
        ("playing", {"type": ["guess"]}, "['guess'] is not an action of the guessing phase."),
        ("playing", {"type": "guess", "value": 11}, "'value' must be a card value from 1 to 10."),
        ("playing", {"type": "guess", "value": True}, "'value' must be a card value from 1 to 10."),
        ("playing", {"type": "guess", "value": 3, "card": "3C"}, "'guess' has no member 'card'."),
        ("playing", {"type": "guess_joker", "values": [1, 2, 3, 4]},
         "The joker can be guessed only once both kings are down."),
        ("joker", {"type": "guess", "value": 3},
         "The kings are down: guess the joker's four values (guess_joker)."),
        ("joker", {"type": "guess_joker", "values": [1, 2, 3]}, "'values' must be 4 card values from 1 to 10."),
        ("joker", {"type": "guess_joker", "values": [0, 2, 3, 4]}, "'values' must be 4 card values from 1 to 10."),
        ("joker", {"type": "guess_joker", "values": "1234"}, "'values' must be 4 card values from 1 to 10."),
        ("hands", {"type": "guess_joker", "values": [5, 2, 5, 5]},
         "No board holds a value more than twice (joker_guesses: hands)."),
        ("clothing", {"type": "report_clothing", "items": MAX_ITEMS + 1},
         "'items' must be a whole number from 0 to 30."),
        ("clothing", {"type": "put_on_item"}, "'put_on_item' is not an action of the clothing phase."),
    ])
    def test_a_refusal_says_why(self, table: Table, engine: SpeculationEngine, state_of: str, body: Any,
                                message: str) -> None:
        state = {"playing": lambda: table.playing(), "clothing": lambda: table.new(),
                 "joker": lambda: table.clear_tiers(table.playing(), 0),
                 "hands": lambda: table.clear_tiers(table.playing(options={"joker_guesses": "hands"}), 0)}[state_of]()
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, body)
        assert err.value.detail.startswith(message)

    def test_the_listing_is_the_legal_statement_and_parses_back(self, table: Table, engine: SpeculationEngine) -> None:
        for state in (table.new(), table.playing(), table.clear_tiers(table.playing(), 0),
                      table.clear_tiers(table.playing(options={"joker_guesses": "hands"}), 0)):
            legal = engine.legal(state, 0)
            bodies = engine.legal_actions(state, 0)
            assert [a.to_json() for a in legal.listed] == bodies
            assert [engine.actions.parse(b) for b in bodies] == list(legal.listed)
            assert engine.action_templates(state, 0) == []
            compact = engine.compact_listing(state, 0)
            assert compact == (([], [t.body for t in legal.templates]) if legal.templates else None)

    @pytest.mark.parametrize(("options", "repeats"), [({}, 4), ({"joker_guesses": "hands"}, 2)])
    def test_the_joker_template_admits_its_domain_in_any_order(
            self, table: Table, engine: SpeculationEngine, options: dict[str, Any], repeats: int) -> None:
        legal = engine.legal(table.clear_tiers(table.playing(options=options), 0), 0)
        (template,) = legal.templates
        listed = set(legal.listed)
        for values in product(range(0, 12), repeat=4):  # every order, and values out of range
            in_domain = all(1 <= v <= 10 for v in values) and max(Counter(values).values()) <= repeats
            assert template.admits(GuessJoker(values)) == in_domain == (GuessJoker(tuple(sorted(values))) in listed)
            assert (GuessJoker(values) in legal) == in_domain
        for size in (0, 3, 5):
            assert GuessJoker((1,) * size) not in legal

    def test_a_joker_guess_in_any_order_is_played_sorted(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(board1=table.PAIRED_JOKER), 0)
        sorted_state, sorted_events = engine.apply(state, 0, table.joker(2, 5, 9, 9))
        state, events = engine.apply(state, 0, table.joker(9, 2, 9, 5))
        assert events == sorted_events and dumped(engine, state) == dumped(engine, sorted_state)
        assert events[0].data == {"seat": 0, "values": [2, 5, 9, 9], "right": 3}
