"""What one seat knows during the play, read from its view only, and the hidden hands it may
imagine ("determinizations") for the expert bot's simulations.

A seat knows its own hand, the others' card counts, every card played this round, the trick on
the table, and the cards of its own exchange: a card it gave away that it has not seen played or
come back is still in the receiver's hand. Every other card not seen is equally likely to be in
any other hand, in proportion to the room left in it; what the others' passes tell
(:func:`set_passes`) makes some deals likelier than others (:func:`ludor.rollouts.pass_weight`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ludoteca.core import codec

from ludor.combos import KIND_NAMES, SET, Combo, Ruleset
from ludor.hierarchy import AS, POWER_OF, POWERS, RANK_NAMES, counts_of, deck_counts
from ludor.options import AutoplimPlim, Deck, LudorOptions
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


def set_passes(view: Mapping[str, Any]) -> list[Pass]:
    """This round's passes on a set below the 2s, with what each passer has played since: its
    hand when it passed is its hand now plus those cards (the expert's likelihood of a pass,
    :func:`ludor.rollouts.pass_class`, reads that hand)."""
    out: list[Pass] = []
    tricks = [*view["tricks"], *([view["trick"]] if view["trick"] else [])]
    for t in tricks:
        top: Combo | None = None
        for m in t["moves"]:
            if m["action"] == "pass":
                if top is not None and top.kind == SET and top.power <= AS:
                    out.append((m["seat"], top.power, top.size, [0] * POWERS))
                continue
            for seat, _, _, later in out:
                if seat == m["seat"]:
                    for c in m["cards"]:
                        later[POWER_OF[c]] += 1
            if m["combo"] is not None:
                top = combo_from_view(m["combo"])
    return out


def played_cards(view: Mapping[str, Any]) -> list[str]:
    """Every card played this round, in order."""
    tricks = [*view["tricks"], *([view["trick"]] if view["trick"] else [])]
    return [c for t in tricks for m in t["moves"] for c in m["cards"]]


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
                known.setdefault(e["receiver"], []).extend(
                    POWER_OF[c] for c in e["cards"] if c not in out_of_sight)
        unseen = deck_counts(options.deck is Deck.FORTY)
        for c in [*played, *hand]:
            unseen[POWER_OF[c]] -= 1
        for powers in known.values():
            for p in powers:
                unseen[p] -= 1
        passes = [p for p in set_passes(view) if p[0] != seat]
        return cls(seat, hand, counts_of(hand), list(view["hand_counts"]), trick_from_view(view["trick"]),
                   list(view["finished"]), bool(view["two_of_oros_played"]), options.rules,
                   options.autoplim_plim, known, unseen, list(view["players"]), passes)

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
