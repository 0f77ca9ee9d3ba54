"""What each game keeps secret, as a perturbation: ``twin(state, seat, rnd)`` is the same game with
everything ``seat`` (``None``: a spectator) may not know changed. The contract suite checks that
a seat's view, legal actions, templates and error bodies are the same in both.

Every game gets the generic twin (another RNG: the seed and the counter are never anyone's to
know before the end); a game whose state holds more secrets (hands, a rule, hidden boards) adds
its own perturbation here. This is the only per-game knowledge of ``tests/contract``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ludoteca.core.engine import GameDefinition
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry

Twin = Callable[[Any, int | None, random.Random], Any]


def other_rng(rnd: random.Random) -> Rng:
    return Rng(f"{rnd.getrandbits(256):064x}", rnd.randrange(1000))


def generic_twin(definition: GameDefinition, state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The same state with another RNG (through the codec, so it works for any engine)."""
    data = definition.engine.dump(state)
    if "rng" in data:
        data = {**data, "rng": other_rng(rnd).dump()}
    return definition.engine.load(data)


def _ludic(state: Any, seat: int | None, rnd: random.Random) -> Any:
    """Other Seekers' hands and the deck dealt differently, the cut deck reordered, and (for
    anyone but the Vexer) another rule. (The hintbook is no secret: its cards are the pile's
    less the hints given, and the Vexer builds hints from it.)"""
    rng = other_rng(rnd)
    cut_deck = list(state.cut_deck)
    rnd.shuffle(cut_deck)
    other = replace(state, rng=rng, cut_deck=tuple(cut_deck))
    rr = other.round
    if rr is None:
        return other
    owners = [s for s in rr.hands if s != seat]
    pool = [c for s in owners for c in rr.hands[s]] + list(rr.deck)
    rnd.shuffle(pool)
    hands = dict(rr.hands)
    for s in owners:
        size = len(rr.hands[s])
        hands[s], pool = tuple(pool[:size]), pool[size:]
    rr = replace(rr, hands=hands, deck=tuple(pool))
    if seat != rr.vexer and rr.rule is not None:
        rr = replace(rr, rule="a twin's rule: the top card is red", rule_obey=format(rnd.getrandbits(576), "x"))
    return replace(other, round=rr)


def _ludor(state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The other hands redealt among themselves (same sizes), the Culo's leftover, the others'
    exchanges, whether the Autoplim's PLIM barred another seat, and the RNG."""
    from ludor.hierarchy import build_deck, sorted_cards

    others = [s for s in range(state.n) if s != seat]
    pool = [c for s in others for c in state.hands[s]] + list(state.leftover)
    rnd.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        size = len(hands[s])
        hands[s], pool = tuple(sorted_cards(pool[:size])), pool[size:]
    deck = build_deck()
    exchange = tuple(e if seat in (e.giver, e.receiver) else replace(e, cards=tuple(rnd.sample(deck, len(e.cards))))
                     for e in state.exchange)
    trick = state.trick
    if trick is not None and trick.barred is not None and trick.barred != seat:  # did another's PLIM bite?
        trick = replace(trick, barred=rnd.choice([None, trick.barred]))
    return replace(state, hands=tuple(hands), leftover=tuple(pool), rng=other_rng(rnd), exchange=exchange,
                   trick=trick)


def shuffle_hidden(board: Any, rnd: random.Random) -> Any:
    """The same Speculation board with its hidden cards (unfound and set aside) dealt differently."""
    from speculation.board import Board

    places = [(i, p) for i, face in enumerate(board.found) for p, f in enumerate(face) if not f]
    hidden = [board.cards[i][p] for i, p in places] + list(board.set_aside)
    rnd.shuffle(hidden)
    cards = [list(face) for face in board.cards]
    for (i, p), card in zip(places, hidden, strict=False):
        cards[i][p] = card
    return Board(tuple(tuple(c) for c in cards), board.found, tuple(hidden[len(places):]))


def _speculation(state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The boards ``seat`` does not own with their hidden cards (unfound and set aside) dealt
    differently, sealed clothing reports changed, and the RNG."""
    from speculation.engine import SEATS, Phase

    if state.phase is Phase.OVER:
        return state
    boards = tuple(b if s == seat else shuffle_hidden(b, rnd) for s, b in enumerate(state.boards))
    items = list(state.items)
    if state.phase is Phase.CLOTHING:
        items = [c if s == seat or c is None else rnd.randrange(31) for s, c in enumerate(items)]
    assert tuple(SEATS) == (0, 1)
    return replace(state, boards=boards, items=tuple(items), rng=other_rng(rnd))


SPECIFIC: dict[str, Twin] = {"ludic": _ludic, "ludor": _ludor, "speculation": _speculation}

def private_events(game: str) -> frozenset[str]:
    """Event types that carry a secret, whose audience is never everyone: the game's own
    declaration (``GameDefinition.tests.private_events``; none: it tells everything it tells to
    anyone)."""
    return registry.game(game).tests.private_events


def twin(definition: GameDefinition, state: Any, seat: int | None, rnd: random.Random) -> Any:
    specific = SPECIFIC.get(definition.name)
    if specific is None:
        return generic_twin(definition, state, seat, rnd)
    return specific(state, seat, rnd)
