"""The expert's search: determinized Monte Carlo over the compiled rollouts of
:mod:`ludor.rollouts`.

From what its seat knows (:class:`ludor.knowledge.Knowledge`), the expert deals the unseen cards
at random among the other hands, moves each deal towards the likely ones by swaps of cards under
the likelihood of the others' passes and plays (:data:`PASS_LIKELIHOOD`,
:data:`ludor.rollouts.PLAY_FACTORS`; ``resample``, ``plays``; with ``resample`` 0 it weighs each
deal by that likelihood instead, and ``infer`` off reads no pass), tries every candidate move
(:func:`ludor.greedy.candidates`) on that same deal, lets everyone play on to the end of the
round, and scores its finishing position.
In those rollouts the seats the table lists as ``bot:random`` play at random, the other expert
bots as the expert of before plays, with a random move now and then (:data:`ludor.rollouts.NOISY`;
``noise`` off: :data:`ludor.rollouts.SPENDER`; ``model`` off: greedy),
every other seat (humans included, and the expert itself) greedy. Deals are drawn in batches
until the simulation budget or the time cap is spent, every candidate still in the running on
every deal; a candidate clearly worse than the best (its mean shortfall, deal by deal, over
:data:`PRUNE_Z` standard errors) leaves the running, its share of the budget going to the others,
and the search stops when one is left (``prune``; ``focus``, the budget's second half on the two
best so far, measured worse and is off); the candidate with the best weighted mean wins (ties: the
first, i.e. the cheapest). The parts that differ from the expert of before are
named in :class:`Style`. Out of turn, holding the Autoplim, it weighs putting it
down now against waiting the same way (:func:`interrupt`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

import numpy as np

from ludor import rollouts as fast
from ludor.greedy import AUTOPLIM_MOVE, NONE, PASS, Choice, autoplim_choice, candidates
from ludor.hierarchy import POWERS
from ludor.knowledge import Knowledge

DEALS_PER_BATCH = 8
FINALISTS = 2
PRUNE_Z = 3.0
"""``Style.prune``: a candidate whose mean shortfall to the best, paired deal by deal, exceeds this
many standard errors is simulated no more (:func:`_survivors`)."""
PRUNE_AFTER = 32
"""... and not before this many deals, then every :data:`PRUNE_EVERY` deals."""
PRUNE_EVERY = 16
FIRST_BONUS = 1.0
"""The first place's bonus in the reward (1 for the Presidente down to 0 for the Culo, plus this
for the first), as before: a bonus of 2 measured no better (RULES.md section 12)."""
PASS_LIKELIHOOD = np.array([
    [0.058, 0.095, 0.030, 0.026, 0.241, 0.977],
    [0.096, 0.115, 0.117, 0.122, 0.200, 0.957],
])
"""The chance that a hand of each class (:data:`ludor.rollouts.PASS_CLASSES`) passes on a single
(row 0) or on a set of two or more (row 1), fitted on the passes of today's expert over
simulated games (``tests/bench/bench_ludor_bots.py --fit-passes``)."""
NO_LIKELIHOOD = np.ones_like(PASS_LIKELIHOOD)
"""Every deal alike (``Style.infer`` off: the expert of before, ``expert-v1``)."""


def _moves(options: list[Choice]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    kinds = {PASS: fast.M_PASS, AUTOPLIM_MOVE: fast.M_AUTOPLIM, NONE: fast.M_NONE}
    moves = np.array([kinds.get(c.kind, fast.M_PLAY) for c in options], dtype=np.int64)
    takes = np.array([c.take if c.take is not None else (0,) * POWERS for c in options], dtype=np.int64)
    declares = np.array([c.plim for c in options], dtype=np.bool_)
    named = np.array([-1 if c.named is None else c.named for c in options], dtype=np.int64)
    return moves, takes, declares, named


WAIT = Choice(NONE)
"""The Autoplim's holder, out of turn, lets the round go on (:func:`interrupt`)."""


@dataclass(frozen=True)
class Style:
    """How the expert searches: every part on is today's expert (the default), :data:`V1` the
    expert of before (the benchmark's baseline, ``expert-v1``)."""

    infer: bool = True
    """Weigh the deals by the likelihood of the others' passes (:data:`PASS_LIKELIHOOD`)."""
    focus: bool = False
    """Spend the second half of the budget on the :data:`FINALISTS` best candidates so far (off:
    it measured worse than every candidate on every deal, RULES.md section 12)."""
    model: bool = True
    """Play the other expert bots in the rollouts as the expert of before plays
    (:data:`ludor.rollouts.SPENDER`, or as ``searcher`` and ``noise`` say), not greedy."""
    first: float = FIRST_BONUS
    """The first place's bonus in the reward (:func:`ladder`)."""
    searcher: bool = False
    """With ``model``: play them as :data:`ludor.rollouts.SEARCHER` (their leads and answers as
    their play shows them too), not :data:`ludor.rollouts.SPENDER`."""
    own: bool = False
    """Play its own seat's later moves in the rollouts as the searchers play
    (:data:`ludor.rollouts.SPENDER`), not greedy."""
    plays: float = 1.0
    """Weigh the deals by the likelihood of the others' plays too (:func:`ludor.rollouts.play_weight`),
    raised to this power (0: plays are not read; 1: the likelihood as fitted; between, tempered:
    each factor counts less, so fewer deals count for next to nothing)."""
    resample: int = 30
    """Instead of weighing each uniform deal by the likelihood of the passes (and plays), move it
    towards the likely deals by this many Metropolis swaps of cards between the others
    (:func:`ludor.rollouts.resample`) and count it as any other (0: weigh, as before)."""
    prune: bool = True
    """Stop simulating a candidate once it is clearly worse than the best (:func:`_survivors`):
    its share of the budget goes to the others, and the search stops when one is left."""
    noise: bool = True
    """With ``model``: play them as :data:`ludor.rollouts.NOISY` (the random bot's move now and
    then), not :data:`ludor.rollouts.SPENDER`: a model the search cannot lean on too hard, so what
    the plays tell of the cards turns into first places (issue 26; RULES.md section 12)."""
    wide: bool = False
    """Lead any undominated play (part of a rank's set, a set with jokers added, a straight), not
    only each rank's whole set (:func:`ludor.greedy.candidates`)."""
    exchange: bool = False
    """Deal each seat whose hand this round's exchange bounds only cards the bound allows it
    (:attr:`ludor.knowledge.Knowledge.bounds`, :func:`ludor.rollouts._deal_bounded`): what the
    Culo kept is below the best cards he gave, what the Presidente kept above those he gave back."""


TODAY = Style()
V1 = Style(infer=False, focus=False, model=False, plays=0.0, resample=0, prune=False, noise=False)


def search(k: Knowledge, rng: random.Random, rollouts: int, seconds: float, style: Style = TODAY) -> Choice:
    """The candidate with the best mean reward over at most ``rollouts`` simulations (at least
    one deal) or ``seconds``, searched in ``style``."""
    options = candidates(k.counts, k.trick, k.rules, k.plim_on, style.wide)
    if len(options) == 1:
        return options[0]
    return _best(k, options, rng, rollouts, seconds, style)


def interrupt(k: Knowledge, rng: random.Random, rollouts: int, seconds: float, style: Style = TODAY) -> Choice:
    """Out of turn, holding the Autoplim with a play on the table: put it down now (declaring the
    PLIM) or wait (:data:`WAIT`), whichever simulates better."""
    return _best(k, [WAIT, autoplim_choice(k.trick, k.plim_on)], rng, rollouts, seconds,
                 replace(style, focus=False))


def _best(k: Knowledge, options: list[Choice], rng: random.Random, rollouts: int, seconds: float,
          style: Style) -> Choice:
    """The candidate of best weighted mean reward (:func:`_scores`; ties: the first)."""
    return options[int(np.argmax(_scores(k, options, rng, rollouts, seconds, style)))]


def _scores(k: Knowledge, options: list[Choice], rng: random.Random, rollouts: int, seconds: float,
            style: Style) -> np.ndarray:
    """Each candidate's weighted mean reward (-inf: it left the running). Every candidate still
    in the running sees every deal (so they stay comparable, deal by deal). With ``style.prune``, a candidate clearly
    worse than the best leaves the running (:func:`_survivors`), and the search stops when one is
    left; with ``style.focus``, once half the budget is spent on every candidate alike, the rest
    goes to the :data:`FINALISTS` best so far."""
    n = k.n
    moves, takes, declares, named = _moves(options)
    known = np.zeros((n, POWERS), dtype=np.int64)
    for seat, powers in k.known.items():
        for p in powers:
            known[seat, p] += 1
    allowed = np.full((n, POWERS), -1, dtype=np.int64)
    for seat, caps in (k.bounds.items() if style.exchange else ()):
        allowed[seat] = caps
    passes = np.array([e[:3] for e in k.passes], dtype=np.int64).reshape(-1, 3)
    later = np.array([e[3] for e in k.passes], dtype=np.int64).reshape(-1, POWERS)
    likelihood = PASS_LIKELIHOOD if style.infer else NO_LIKELIHOOD
    read = k.plays if style.plays > 0 else []
    factors = fast.PLAY_FACTORS ** style.plays
    plays = np.array([e[:5] for e in read], dtype=np.int64).reshape(-1, 5)
    plays_later = np.array([e[5] for e in read], dtype=np.int64).reshape(-1, POWERS)
    trick = k.trick
    t0 = fast.trick_array(trick.leader, trick.turn, trick.top, trick.last,
                          k.two_of_oros_played, len(k.finished))
    passed = np.array([s in trick.passed for s in range(n)], dtype=np.bool_)
    blocked = np.array([s in trick.blocked for s in range(n)], dtype=np.bool_)
    finished = np.array([*k.finished, *[-1] * (n - len(k.finished))], dtype=np.int64)
    run, run_index = fast.run_arrays(k.rules.run)
    sizes = np.array(k.sizes, dtype=np.int64)
    own = np.array(k.counts, dtype=np.int64)
    unseen = np.array(k.unseen, dtype=np.int64)
    model = fast.SEARCHER if style.searcher else fast.NOISY if style.noise else fast.SPENDER
    me = model if style.own else fast.GREEDY
    policies = np.array([_policy(kind, style.model, model) if seat != k.seat else me
                         for seat, kind in enumerate(k.players)], dtype=np.int64)
    worth = ladder(n, style.first)
    batch = max(1, min(DEALS_PER_BATCH, rollouts // len(options)))
    most = max(1, rollouts // batch) * batch  # no more deals than that, whatever the pruning leaves
    rewards = np.zeros((most, len(options)), dtype=np.float64)
    weights = np.zeros(most, dtype=np.float64)
    active = np.arange(len(options))
    deadline = time.perf_counter() + seconds
    spent = dealt = 0
    while True:
        part = np.zeros((batch, len(active)), dtype=np.float64)
        fast.evaluate(k.seat, own, sizes, unseen, known, allowed, passes, later, likelihood, plays, plays_later,
                      factors, t0, passed, blocked, finished, moves[active], takes[active], declares[active],
                      named[active], batch, rng.getrandbits(31), k.rules.straights, run, run_index,
                      fast.PLIM_MODES[k.plim_mode], policies, worth, style.resample, part,
                      weights[dealt:dealt + batch])
        rewards[dealt:dealt + batch, active] = part
        dealt += batch
        spent += batch * len(active)
        if style.focus and len(active) > FINALISTS and 2 * spent >= rollouts:
            means = _means(rewards[:dealt], weights[:dealt])
            active = np.sort(active[np.argsort(-means[active], kind="stable")[:FINALISTS]])
        elif style.prune and len(active) > 1 and dealt >= PRUNE_AFTER and dealt % PRUNE_EVERY == 0:
            active = _survivors(rewards[:dealt], weights[:dealt], active)
        if (len(active) == 1 or dealt + batch > most or spent + batch * len(active) > rollouts
                or time.perf_counter() > deadline):
            break
    out = np.full(len(options), -np.inf)
    out[active] = _means(rewards[:dealt], weights[:dealt])[active]
    return out


def scores(k: Knowledge, rng: random.Random, rollouts: int, seconds: float,
           style: Style = TODAY) -> tuple[list[Choice], np.ndarray]:
    """The candidates in turn and the weighted mean reward the search gives each (-inf: left
    the running), as :func:`search` weighs them (the benchmark's ``--regret`` reads them)."""
    options = candidates(k.counts, k.trick, k.rules, k.plim_on, style.wide)
    return options, _scores(k, options, rng, rollouts, seconds, style)


def _survivors(rewards: np.ndarray, weights: np.ndarray, active: np.ndarray) -> np.ndarray:
    """The candidates of ``active`` (all simulated on every deal so far) not clearly worse than
    the best of them: a candidate goes when its weighted mean shortfall to the best, deal by deal
    (both played on the same deals), exceeds :data:`PRUNE_Z` standard errors of that shortfall."""
    total = weights.sum()
    if total <= 0:
        return active
    means = weights @ rewards[:, active] / total
    best = rewards[:, active[int(np.argmax(means))]]
    gaps = best[:, None] - rewards[:, active]
    gap = weights @ gaps / total
    se = np.sqrt((weights ** 2) @ (gaps - gap) ** 2) / total
    keep: np.ndarray = active[~(gap > PRUNE_Z * se)]
    return keep


def ladder(n: int, first: float) -> np.ndarray:
    """1 for the Presidente down to 0 for the Culo, and ``first`` more for the first place."""
    out = (n - 1 - np.arange(n)) / (n - 1)
    out[0] += first
    return np.asarray(out, dtype=np.float64)


def _policy(kind: str, model: bool, searchers: int = fast.SPENDER) -> int:
    """How the rollouts play another seat: ``bot:random`` at random; with ``model``, an expert
    bot as ``searchers`` (the style's model of them: :data:`ludor.rollouts.NOISY` today); every
    other seat greedy."""
    if kind == "bot:random":
        return fast.RANDOM
    if model and kind.startswith("bot:expert"):
        return searchers
    return fast.GREEDY


def _means(rewards: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each candidate's weighted mean reward over the deals (rows) (-1: no deal could explain the
    passes). Only a candidate played on every deal so far (still active) is read from it."""
    total = weights.sum()
    if total <= 0:
        return np.full(rewards.shape[1], -1.0)
    return np.asarray(weights @ rewards / total, dtype=np.float64)


def warm_up() -> float:
    """Compile the rollouts (or load them from numba's disk cache) with one small search; returns
    the seconds it took. ``python -m ludor.simulation build`` does it ahead of the first game."""
    from ludoteca.core.rng import Rng

    from ludor.engine import LudorEngine

    start = time.perf_counter()
    engine = LudorEngine()
    state = engine.new_game(["human"] * 4, {}, Rng("00" * 32))
    seat = min(engine.to_act(state))
    search(Knowledge.from_view(engine.view(state, seat)), random.Random(0), 50, 1.0)
    return time.perf_counter() - start


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["build"]:
        sys.exit("usage: python -m ludor.simulation build")
    print(f"ludor rollouts ready in {warm_up():.1f} s")
