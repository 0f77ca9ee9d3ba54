"""What the exchange's rules tell the expert (``ludor.knowledge.exchange_bounds``) and the deals
that respect it (``ludor.rollouts._deal_bounded``, the expert's ``Style.exchange``).

The Culo (Vice-culo) gives his best cards: the Presidente (Vicepresidente) that got them knows
every card the giver kept is below the worst of them. With the automatic exchange the Presidente
(Vicepresidente) gives back his worst: the Culo (Vice-culo) knows every card that seat kept is
above the best of them; with ``exchange: choose`` he knows nothing. "Best" and "worst" are the
engine's order (power, then suit: Oros < Copas < Espadas < Bastos)."""

from __future__ import annotations

import random
from collections import Counter
from math import comb, prod
from typing import Any

import numpy as np
import pytest
from ludor import rollouts as fast
from ludor.bots import BOTS
from ludor.engine import OVER, PLAY, LudorEngine, LudorState
from ludor.greedy import candidates
from ludor.hierarchy import AS, JOKER, POWERS, TWO, build_deck, counts_of
from ludor.knowledge import Knowledge, exchange_bounds
from ludor.simulation import Style, search
from ludoteca.core.rng import Rng

# Four seats: 0 Vice-culo, 1 Culo, 2 Presidente, 3 Vicepresidente.
TITLES = ["vice_culo", "culo", "presidente", "vicepresidente"]
GIFTS = {(1, 2): ["JK2", "1C"], (2, 1): ["3O", "4E"], (0, 3): ["2B"], (3, 0): ["3C"]}


def view(seat: int, exchange: str = "automatic", titles: list[str] | None = TITLES,
         legs: dict[tuple[int, int], list[str]] = GIFTS) -> dict[str, Any]:
    """The parts of a view the bounds read: this seat's view of the transfers of an exchange."""
    return {"seat": seat, "titles": titles,
            "options": {"straights": False, "deck": "full", "round_limit": None, "exchange": exchange,
                        "autoplim_plim": "match"},
            "exchange": [{"giver": g, "receiver": r, "count": len(cards),
                          "cards": list(cards) if seat in (g, r) else None} for (g, r), cards in legs.items()]}


UNSEEN = [c for c in build_deck() if c not in {"JK2", "1C", "3O", "4E", "2B", "3C", "7O", "7C"}]
"""Every card but the exchange's and two sevens (played, say)."""


class TestBoundsFromTheView:
    def test_the_presidente_bounds_the_culo_below_his_worst_gift(self) -> None:
        caps = exchange_bounds(view(2), UNSEEN)
        unseen = counts_of(UNSEEN)
        assert list(caps) == [1]
        assert caps[1][:AS] == unseen[:AS]  # every plain card below the As
        assert caps[1][AS] == 1  # of the As only the de Oros is below the As de Copas
        assert caps[1][TWO:] == [0] * (POWERS - TWO)  # no 2, joker, Autoplim or 2 de Oros

    def test_the_culo_bounds_the_presidente_above_his_best_give_back(self) -> None:
        caps = exchange_bounds(view(1), UNSEEN)
        unseen = counts_of(UNSEEN)
        assert list(caps) == [2]
        assert caps[2][0] == 0  # no 3 (the 3 de Oros came back; 3C is seen)
        assert caps[2][1] == 1  # of the 4s only the 4 de Bastos is above the 4 de Espadas
        assert caps[2][2:] == unseen[2:]

    def test_the_vice_pair_bounds_each_other(self) -> None:
        unseen = counts_of(UNSEEN)
        vice = exchange_bounds(view(3), UNSEEN)
        assert list(vice) == [0]
        assert vice[0][:JOKER] == unseen[:JOKER]  # the 2 de Copas and de Espadas are below the de Bastos
        assert vice[0][JOKER:] == [0] * (POWERS - JOKER)  # the 2 de Oros is above every card but none
        vice_culo = exchange_bounds(view(0), UNSEEN)
        assert list(vice_culo) == [3]
        assert vice_culo[3][0] == 2  # the 3 de Espadas and de Bastos are above the 3 de Copas
        assert vice_culo[3][1:] == unseen[1:]

    def test_with_the_choose_exchange_only_the_givers_gifts_tell(self) -> None:
        assert exchange_bounds(view(1, "choose"), UNSEEN) == {}
        assert exchange_bounds(view(0, "choose"), UNSEEN) == {}
        assert exchange_bounds(view(2, "choose"), UNSEEN) == exchange_bounds(view(2), UNSEEN)
        assert exchange_bounds(view(3, "choose"), UNSEEN) == exchange_bounds(view(3), UNSEEN)

    def test_before_the_give_back_the_culo_knows_nothing(self) -> None:
        legs = {(1, 2): ["JK2", "1C"]}
        assert exchange_bounds(view(1, "choose", legs=legs), UNSEEN) == {}
        assert list(exchange_bounds(view(2, "choose", legs=legs), UNSEEN)) == [1]

    def test_no_titles_no_trade_no_bound(self) -> None:
        assert exchange_bounds(view(2, titles=None, legs={}), UNSEEN) == {}
        five = ["vice_culo", "culo", "presidente", "vicepresidente", "neutro"]
        assert exchange_bounds(view(4, titles=five), UNSEEN) == {}
        three = ["neutro", "culo", "presidente"]
        legs = {(1, 2): ["JK2", "1C"], (2, 1): ["3O", "4E"]}
        assert list(exchange_bounds(view(2, titles=three, legs=legs), UNSEEN)) == [1]
        assert exchange_bounds(view(0, titles=three, legs=legs), UNSEEN) == {}


def positions(engine: LudorEngine, seed: str, n: int, exchange: str) -> list[LudorState]:
    """Every position of a game's second round, greedy bots playing."""
    players = ["bot:greedy"] * n
    state = engine.new_game(players, {"round_limit": 2, "exchange": exchange}, Rng(seed))
    rng = random.Random(seed)
    out = []
    while state.phase != OVER:
        seat = min(engine.to_act(state))
        if state.round == 2 and state.phase == PLAY:
            out.append(state)
        state, _ = engine.apply(state, seat, BOTS["greedy"](engine.view(state, seat),
                                                             engine.legal_actions(state, seat), rng))
    return out


@pytest.mark.parametrize("exchange", ["automatic", "choose"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_hand_the_engine_deals_meets_the_bounds(engine: LudorEngine, n: int, exchange: str) -> None:
    """In real games, at every position of the second round and from every seat, the hidden part
    of each bounded hand is within its bound; both trading seats bound their partner with the
    automatic exchange, only the receivers of the best cards with ``choose``."""
    bounded = Counter[str]()
    for seed in ("a1" * 32, "b2" * 32):
        for state in positions(engine, seed, n, exchange):
            for seat in range(n):
                k = Knowledge.from_view(engine.view(state, seat))
                for other, caps in k.bounds.items():
                    hidden = counts_of(state.hands[other])
                    for p in k.known.get(other, []):
                        hidden[p] -= 1
                    assert all(hidden[p] <= caps[p] for p in range(POWERS)), (seat, other, caps, hidden)
                    assert all(caps[p] <= k.unseen[p] for p in range(POWERS))
                    bounded[state.titles[seat]] += 1
    receivers = {"presidente", "vicepresidente"} if n > 3 else {"presidente"}
    givers = {"culo", "vice_culo"} if n > 3 else {"culo"}
    assert receivers <= set(bounded)
    assert (givers & set(bounded) == givers) is (exchange == "automatic")
    assert givers & set(bounded) in (set(), givers)
    assert "neutro" not in bounded


def draws(unseen: list[int], allowed: list[list[int]], room: list[int], me: int, times: int) -> list[np.ndarray]:
    """``times`` deals of :func:`ludor.rollouts._deal_bounded` (the powers beyond the lists: none)."""
    pad = [0] * (POWERS - len(unseen))
    u = np.array([*unseen, *pad], dtype=np.int64)
    a = np.array([[*row, *pad] if row[0] >= 0 else [-1] * POWERS for row in allowed], dtype=np.int64)
    r = np.array(room, dtype=np.int64)
    fast.seed(np.int64(7))
    out = []
    for _ in range(times):
        hands = np.zeros((len(room), POWERS), dtype=np.int64)
        assert fast._deal_bounded(u, a, hands, r, np.int64(me))
        out.append(hands)
    return out


def test_the_bounded_deals_are_uniform_among_those_meeting_the_bound() -> None:
    """Brute force on a small deal: seat 1 may hold only some of the cards; the frequency of each
    (seat 1's hand, seat 2's hand) is the exact chance when seat 1's hand is uniform among the
    hands the bound allows and the others' uniform among the cards left."""
    unseen, allowed1, room = [2, 2, 2, 2], [1, 2, 1, 0], [0, 3, 2, 3]
    times = 20_000
    seen = Counter[tuple[tuple[int, ...], tuple[int, ...]]]()
    for hands in draws(unseen, [[-1], allowed1, [-1], [-1]], room, 0, times):
        assert hands[0].sum() == 0 and list(hands.sum(axis=1)) == room
        assert list(hands.sum(axis=0)[:4]) == unseen
        assert all(hands[1, p] <= allowed1[p] for p in range(4))
        seen[tuple(hands[1, :4]), tuple(hands[2, :4])] += 1

    def chance(one: tuple[int, ...], two: tuple[int, ...]) -> float:
        left = [u - h for u, h in zip(unseen, one, strict=True)]
        return (prod(comb(a, h) for a, h in zip(allowed1, one, strict=True)) / comb(sum(allowed1), room[1])
                * prod(comb(x, h) for x, h in zip(left, two, strict=True)) / comb(sum(left), room[2]))

    hands1 = [h for h in np.ndindex(*(a + 1 for a in allowed1)) if sum(h) == room[1]]
    cases = [(h1, h2) for h1 in hands1 for h2 in np.ndindex(3, 3, 3, 3) if sum(h2) == room[2]
             and chance(h1, h2) > 0]
    assert set(seen) == set(cases)
    for case in cases:
        p = chance(*case)
        assert abs(seen[case] / times - p) < 5 * (p * (1 - p) / times) ** 0.5, case


def test_a_bound_that_cannot_be_met_is_refused() -> None:
    u = np.array([2, 2, *[0] * (POWERS - 2)], dtype=np.int64)
    a = np.full((3, POWERS), -1, dtype=np.int64)
    a[1] = 0
    a[1, 0] = 1
    hands = np.zeros((3, POWERS), dtype=np.int64)
    assert not fast._deal_bounded(u, a, hands, np.array([0, 2, 2], dtype=np.int64), np.int64(0))


def test_the_deals_of_a_real_position_meet_its_bounds(engine: LudorEngine) -> None:
    """From the Presidente's and the Culo's views of a real position, every deal keeps the
    bounded seat within its bound, and the search with ``Style.exchange`` plays a legal move."""
    state = positions(engine, "c3" * 32, 4, "automatic")[0]
    for title in ("presidente", "culo"):
        seat = state.titles.index(title)
        k = Knowledge.from_view(engine.view(state, seat))
        (other, caps), = k.bounds.items()
        known = counts_of([])
        for p in k.known.get(other, []):
            known[p] += 1
        room = [0 if s == seat else k.sizes[s] - (sum(known) if s == other else 0) for s in range(4)]
        allowed = [caps if s == other else [-1] for s in range(4)]
        for hands in draws(k.unseen, allowed, room, seat, 500):
            assert all(hands[other, p] <= caps[p] for p in range(POWERS))
            assert list(hands.sum(axis=0)) == k.unseen
        choice = search(k, random.Random(0), 200, 1.0, Style(exchange=True))
        assert choice in candidates(k.counts, k.trick, k.rules, k.plim_on)
