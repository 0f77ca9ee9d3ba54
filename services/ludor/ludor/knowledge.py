"""What one seat knows during the play, read from its view only, and the hidden hands it may
imagine ("determinizations") for the expert bot's simulations.

A seat knows its own hand, the others' card counts, every card played this round, the trick on
the table, and the cards of its own exchange: a card it gave away that it has not seen played or
come back is still in the receiver's hand. What the exchange's rules force bounds the hands of
its other seat (:func:`exchange_bounds`): the Culo (Vice-culo) gave his best cards, so what he
kept is below the worst of them; with the automatic exchange the Presidente (Vice) gave back his
worst, so what he kept is above the best of them. Every other card not seen is equally likely to
be in any other hand, in proportion to the room left in it; what the others' passes tell
(:func:`set_passes`) makes some deals likelier than others (:func:`ludor.rollouts.pass_weight`), and
so may what they chose to play (:func:`set_plays`, :func:`ludor.rollouts.play_weight`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ludoteca.core import codec

from ludor.combos import KIND_NAMES, SET, TWO_OF_OROS_PLAY, Combo, Ruleset
from ludor.engine import TRADES
from ludor.hierarchy import AS, POWER_OF, POWERS, RANK_NAMES, TWO, build_deck, counts_of, sort_key
from ludor.options import AutoplimPlim, Deck, Exchange, LudorOptions
from ludor.trick import Trick


def combo_from_view(data: Mapping[str, Any]) -> Combo:
    return Combo(KIND_NAMES.index(data["kind"]), RANK_NAMES.index(data["rank"]), int(data["count"]))


def trick_from_view(data: Mapping[str, Any]) -> Trick:
    top = data["top"]
    return Trick(data["leader"], data["turn"], None if top is None else combo_from_view(top),
                 data["last_player"], frozenset(data["passed"]), frozenset(data["blocked"]))


Pass = tuple[int, int, int, list[int]]
"""A seat's pass on a set: (seat, the set's power, its size, the cards the seat has played since,
as counts per power)."""


def _moves(view: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], Combo | None]]:
    """This round's moves in order, each with the play it faced (None: it led the trick)."""
    for t in [*view["tricks"], *([view["trick"]] if view["trick"] else [])]:
        top: Combo | None = None
        for m in t["moves"]:
            yield m, top
            if m["action"] != "pass" and m["combo"] is not None:
                top = combo_from_view(m["combo"])


def _played_since(later: list[int], seat: int, move: Mapping[str, Any]) -> None:
    """Count ``move``'s cards in ``later`` if ``seat`` played them."""
    if move["seat"] == seat:
        for c in move["cards"]:
            later[POWER_OF[c]] += 1


def _below_the_twos(top: Combo | None) -> bool:
    return top is not None and top.kind == SET and top.power <= AS


def set_passes(view: Mapping[str, Any]) -> list[Pass]:
    """This round's passes on a set below the 2s, with what each passer has played since: its
    hand when it passed is its hand now plus those cards (the expert's likelihood of a pass,
    :func:`ludor.rollouts.pass_class`, reads that hand)."""
    out: list[Pass] = []
    for m, top in _moves(view):
        if m["action"] == "pass":
            if top is not None and _below_the_twos(top):
                out.append((m["seat"], top.power, top.size, [0] * POWERS))
            continue
        for seat, _, _, later in out:
            _played_since(later, seat, m)
    return out


Play = tuple[int, int, int, int, int, list[int]]
"""A seat's play that tells something of the rest of its hand: (seat, what it was
(:data:`LEAD`, :data:`NATURAL` or :data:`CONTROL`), the power and size of the set it answered
(-1, 0 for a lead), the power it played (-1 for a control answer), the cards it has played since,
as counts per power)."""
LEAD, NATURAL, CONTROL = 0, 1, 2
"""A lead of a plain rank (below the 2s, no joker); a natural answer to a set below the 2s (plain
cards only); an answer to such a set with 2s, jokers or the 2 de Oros (the same numbers as
:mod:`ludor.rollouts`)."""


def set_plays(view: Mapping[str, Any]) -> list[Play]:
    """This round's leads of a plain rank and answers to a set below the 2s, with what each
    player has played since (its hand when it played is its hand now plus those cards): the
    expert's likelihood of a play (:func:`ludor.rollouts.play_weight`) reads which lower ranks
    that hand held and did not play."""
    out: list[Play] = []
    for m, top in _moves(view):
        if m["action"] == "pass":
            continue
        for seat, *_, later in out:
            _played_since(later, seat, m)
        if m["combo"] is None:
            continue
        combo = combo_from_view(m["combo"])
        plain = max(POWER_OF[c] for c in m["cards"]) < TWO
        if top is None and combo.kind == SET and plain:
            out.append((m["seat"], LEAD, -1, 0, combo.power, [0] * POWERS))
        elif top is not None and _below_the_twos(top) and combo.kind in (SET, TWO_OF_OROS_PLAY):
            what, played = (NATURAL, combo.power) if plain and combo.kind == SET else (CONTROL, -1)
            out.append((m["seat"], what, top.power, top.size, played, [0] * POWERS))
    return out


def played_cards(view: Mapping[str, Any]) -> list[str]:
    """Every card played this round, in order."""
    tricks = [*view["tricks"], *([view["trick"]] if view["trick"] else [])]
    return [c for t in tricks for m in t["moves"] for c in m["cards"]]


def exchange_bounds(view: Mapping[str, Any], unseen: list[str]) -> dict[int, list[int]]:
    """What this round's exchange, as the rules make it (RULES.md section 7), tells of the hand
    of this seat's partner in it: for that seat, how many of the ``unseen`` cards (their codes) of
    each power it may hold. The engine picks "the best" and "the worst" cards by
    :func:`ludor.hierarchy.sort_key` (power, then suit); so, by that same order:

    - the Presidente (Vicepresidente) received the Culo's (Vice-culo's) best cards: every card the
      giver kept is below the worst of them (whatever the ``exchange`` option: that leg is
      always automatic);
    - the Culo (Vice-culo) got back the Presidente's (Vicepresidente's) worst cards: with the
      automatic exchange only, every card that seat kept is above the best of them.

    Cards played since are public and out of ``unseen``; the cards of the exchange that the
    partner still holds are known (:attr:`Knowledge.known`), not bounded."""
    seat = view["seat"]
    titles = view["titles"]
    if titles is None:
        return {}
    automatic = codec.load(LudorOptions, view["options"]).exchange is Exchange.AUTOMATIC
    legs = {(e["giver"], e["receiver"]): e["cards"] for e in view["exchange"] if e["cards"]}
    out: dict[int, list[int]] = {}
    for giver_title, receiver_title, _ in TRADES:
        giver, receiver = (titles.index(t) if t in titles else None for t in (giver_title, receiver_title))
        if giver is None or receiver is None:
            continue
        if seat == receiver and (giver, receiver) in legs:
            bound = min(sort_key(c) for c in legs[giver, receiver])
            out[giver] = counts_of(c for c in unseen if sort_key(c) < bound)
        elif seat == giver and automatic and (receiver, giver) in legs:
            bound = max(sort_key(c) for c in legs[receiver, giver])
            out[receiver] = counts_of(c for c in unseen if sort_key(c) > bound)
    return out


@dataclass
class Knowledge:
    seat: int
    hand: list[str]
    counts: list[int]
    sizes: list[int]
    trick: Trick
    finished: list[int]
    two_of_oros_played: bool
    rules: Ruleset
    plim_mode: AutoplimPlim
    known: dict[int, list[int]]
    """Powers of cards known to be in another seat's hand."""
    unseen: list[int]
    """Counts per power of the other cards in the others' hands."""
    players: list[str]
    """Each seat's kind: ``human`` or ``bot:<level>`` (public)."""
    passes: list[Pass] = field(default_factory=list)
    """The other seats' passes on sets this round (:func:`set_passes`)."""
    plays: list[Play] = field(default_factory=list)
    """The other seats' leads and answers to sets this round (:func:`set_plays`)."""
    bounds: dict[int, list[int]] = field(default_factory=dict)
    """For a seat whose hand this round's exchange bounds (:func:`exchange_bounds`), how many of
    the unseen cards of each power it may hold (only bounds the hand's room can meet)."""

    @property
    def n(self) -> int:
        return len(self.sizes)

    @property
    def plim_on(self) -> bool:
        return self.plim_mode is not AutoplimPlim.OFF

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Knowledge:
        seat = view["seat"]
        options = codec.load(LudorOptions, view["options"])
        hand = list(view["hand"])
        played = played_cards(view)
        out_of_sight = set(played) | set(hand)
        known: dict[int, list[int]] = {}
        for e in view["exchange"]:
            if e["giver"] == seat and e["cards"]:
                held = [c for c in e["cards"] if c not in out_of_sight]
                known.setdefault(e["receiver"], []).extend(POWER_OF[c] for c in held)
                out_of_sight.update(held)
        unseen_cards = [c for c in build_deck(options.deck is Deck.FORTY) if c not in out_of_sight]
        unseen = counts_of(unseen_cards)
        sizes = list(view["hand_counts"])
        bounds = {s: caps for s, caps in exchange_bounds(view, unseen_cards).items()
                  if sum(caps) >= sizes[s] - len(known.get(s, ()))}
        passes = [p for p in set_passes(view) if p[0] != seat]
        plays = [p for p in set_plays(view) if p[0] != seat]
        return cls(seat, hand, counts_of(hand), sizes, trick_from_view(view["trick"]),
                   list(view["finished"]), bool(view["two_of_oros_played"]), options.rules,
                   options.autoplim_plim, known, unseen, list(view["players"]), passes, plays, bounds)

    def sample(self, rng: random.Random) -> list[list[int]]:
        """Every seat's hand as counts: its own as it is, the others dealt at random from the
        unseen cards (after the cards known to be there; every deal alike: the expert weighs them
        by its passes' likelihood, :func:`ludor.rollouts.pass_weight`)."""
        pool = [p for p in range(POWERS) for _ in range(self.unseen[p])]
        rng.shuffle(pool)
        hands = []
        at = 0
        for s in range(self.n):
            if s == self.seat:
                hands.append(list(self.counts))
                continue
            hand = [0] * POWERS
            for p in self.known.get(s, ()):
                hand[p] += 1
            room = self.sizes[s] - sum(hand)
            for p in pool[at:at + room]:
                hand[p] += 1
            at += room
            hands.append(hand)
        return hands
