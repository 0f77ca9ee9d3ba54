"""Compiled rollouts for the expert bot (numba): many random deals of the unseen cards, each
candidate move tried on every deal, the rest of the round played greedy by everyone.

This is the engine's round (:mod:`ludor.trick`, :mod:`ludor.combos`) and the greedy policy
(:func:`ludor.greedy.greedy`) rewritten over arrays, because the expert needs thousands of
simulated rounds per second. Tests hold it to the engine: an all-greedy round simulated here ends
in the same finishing order as the same deal played through the engine by the greedy bot.

Array layouts: a hand is 15 counts (one per power, :mod:`ludor.hierarchy`); the trick and round
scalars live in one int64 array ``t`` (indices below); ``passed``/``blocked`` are per-seat flags.
Compiled functions are cached on disk by numba (``cache=True``, in ``__pycache__`` or
``$NUMBA_CACHE_DIR``), so a process compiles at most once. A constant passed to another compiled
function goes as ``np.int64(...)`` / ``np.bool_(...)``: a bare one (a module constant, ``-1``,
``True``) is typed as a literal and numba compiles the callee once more for it (35 compilations of
the first build became 27, its CPU 0.82 of before).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

# Powers and kinds (the same numbers as ludor.hierarchy / ludor.combos).
TWO, JOKER, AUTOPLIM, TWO_OF_OROS, POWERS = 11, 12, 13, 14, 15
SET, STRAIGHT, AUTOPLIM_PLAY, TWO_OF_OROS_PLAY = 0, 1, 2, 3
# Moves (M_NONE: a candidate that is no move, see evaluate).
M_PLAY, M_PASS, M_AUTOPLIM, M_NONE = 0, 1, 2, 3
# The Autoplim's PLIM clause.
PLIM_MODES = {"match": 0, "always": 1, "off": 2}
P_MATCH, P_ALWAYS, P_OFF = 0, 1, 2
# Closings.
C_OPEN, C_PASSES, C_TWO_OF_OROS, C_AUTOPLIM = -1, 0, 1, 2
# How a seat is modelled in the rollouts: the greedy bot, the random bot, or the expert of before
# as its play shows it (greedy that spends its control cards on answers, :data:`SPEND_CONTROL`),
# with its leads and answers as fitted too (SEARCHER), or with a random move now and then (NOISY).
GREEDY, RANDOM, SPENDER, SEARCHER, NOISY = 0, 1, 2, 3, 4
NOISE = 0.15
"""The :data:`NOISY` model: :data:`SPENDER`, except that each move is the random bot's with this
chance (a model the search cannot lean on too hard: the searchers do not play as any model says)."""
SPEND_CONTROL = 0.8
"""How often the expert, with no natural answer to a set but an answer with 2s, jokers or the
2 de Oros, plays it (where greedy passes): 79% of such turns over simulated games of today's
expert (``tests/bench/bench_ludor_bots.py --fit-passes``)."""
LEAD_LOWEST = 0.6
"""The :data:`SEARCHER` model's leads: walking its plain ranks up from the lowest, it leads each
with this chance (the last one surely): expert-v1 led its lowest plain rank 61% of the time, the
next 23%, the third 9%, a higher one 8% (427 leads over 10 games of 4 rounds of four expert-v1)."""
ANSWER_LOWEST = 0.8
"""The :data:`SEARCHER` model's answers to a set with natural answers: walking them up from the
lowest, it plays each with this chance (expert-v1: the lowest 69% of such turns, the next 9%, a
higher one 6%, passed 8%, control cards or the Autoplim 7%, over 902 turns)."""
PASS_NATURAL = 0.08
"""How often the :data:`SEARCHER` model passes holding a natural answer to a set."""
# The trick/round array.
LEADER, TURN, TOP_KIND, TOP_POWER, TOP_SIZE, LAST, WINNER, CLOSED, TWO_PLAYED, N_FINISHED, OVER = range(11)
T_SIZE = 11
ENDGAME_PLAIN_CARDS = 3


def trick_array(leader: int, turn: int, top: Sequence[int] | None, last: int | None,
                two_of_oros_played: bool, n_finished: int) -> np.ndarray:
    t = np.full(T_SIZE, -1, dtype=np.int64)
    t[LEADER], t[TURN], t[LAST] = leader, turn, -1 if last is None else last
    if top is not None:
        t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE] = top
    t[TWO_PLAYED], t[N_FINISHED], t[OVER] = int(two_of_oros_played), n_finished, 0
    return t


def run_arrays(run: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The straight ranks and, per power, its index among them (-1: not in straights)."""
    index = np.full(POWERS, -1, dtype=np.int64)
    for i, p in enumerate(run):
        index[p] = i
    return np.array(run, dtype=np.int64), index


# -- combinations ------------------------------------------------------------------------------
@njit(cache=True)
def classify(take, straights, run, run_index):  # type: ignore[no-untyped-def]
    """(kind, power, size) of a play, kind -1 when it is none (see ludor.combos.classify)."""
    total = 0
    for p in range(POWERS):
        total += take[p]
    if total == 0 or take[AUTOPLIM] > 0:
        return -1, 0, 0
    if take[TWO_OF_OROS] > 0:
        if total == 1:
            return TWO_OF_OROS_PLAY, TWO_OF_OROS, 1
        return -1, 0, 0
    first, last, distinct = -1, -1, 0
    for p in range(JOKER):
        if take[p] > 0:
            if first < 0:
                first = p
            last = p
            distinct += 1
    if distinct == 0:
        return SET, JOKER, total
    if distinct == 1:
        return SET, first, total
    if not straights or total < 3:
        return -1, 0, 0
    for p in range(JOKER):
        if take[p] > 0 and (take[p] != 1 or run_index[p] < 0):
            return -1, 0, 0
    lo, hi = run_index[first], run_index[last]
    gaps = hi - lo + 1 - distinct
    if gaps > take[JOKER]:
        return -1, 0, 0
    extra = take[JOKER] - gaps
    top = min(hi + extra, len(run) - 1)
    if lo - (extra - (top - hi)) < 0:
        return -1, 0, 0
    return STRAIGHT, run[top], total


@njit(cache=True)
def answers(tk, tp, ts, k, p, s):  # type: ignore[no-untyped-def]
    if k == TWO_OF_OROS_PLAY or k == AUTOPLIM_PLAY or tk < 0:  # noqa: SIM109 (plain numba)
        return True
    return k == tk and s == ts and p >= tp


@njit(cache=True)
def is_plim(tk, tp, ts, k, p, s):  # type: ignore[no-untyped-def]
    return tk >= 0 and k == tk and p == tp and s == ts and (k == SET or k == STRAIGHT)  # noqa: SIM109


@njit(cache=True)
def _straight_take(hand, run, a, length, skip_mask, take):  # type: ignore[no-untyped-def]
    """Fill ``take`` with the window run[a:a+length]: held ranks as naturals (except those in
    ``skip_mask``), jokers for the others. Returns False if it needs more jokers than held or
    keeps fewer than two naturals."""
    take[:] = 0
    kept = 0
    jokers = 0
    for i in range(length):
        p = run[a + i]
        if hand[p] > 0 and not (skip_mask >> i) & 1:
            take[p] = 1
            kept += 1
        else:
            jokers += 1
    take[JOKER] = jokers
    return kept >= 2 and jokers <= hand[JOKER]


@njit(cache=True)
def can_match(hand, k, p, s, straights, run, run_index):  # type: ignore[no-untyped-def]
    """Could ``hand`` play exactly (k, p, s)? (ludor.combos.can_match)"""
    if k == SET:  # jokers alone may be named any rank
        if p == JOKER:
            return hand[JOKER] >= s
        return hand[p] + hand[JOKER] >= s
    if k != STRAIGHT or not straights:
        return False
    take = np.zeros(POWERS, dtype=np.int64)
    for a in range(len(run) - s + 1):
        for mask in range(1 << s):
            bits = 0
            for i in range(s):
                bits += (mask >> i) & 1
            if bits > hand[JOKER]:
                continue
            if _straight_take(hand, run, a, s, mask, take):
                kk, pp, ss = classify(take, straights, run, run_index)
                if kk == k and pp == p and ss == s:
                    return True
    return False


@njit(cache=True)
def _answer_list(hand, tk, tp, ts, straights, run, run_index, takes, powers):  # type: ignore[no-untyped-def]
    """The undominated answers to the top (not the 2 de Oros), lowest first, into ``takes`` and
    ``powers``; returns their number (ludor.greedy._answers)."""
    m = 0
    jokers = hand[JOKER]
    if tk == SET:
        for p in range(tp, JOKER):
            n = hand[p]
            if n > 0 and n + jokers >= ts:
                takes[m, :] = 0
                takes[m, p] = min(n, ts)
                takes[m, JOKER] = ts - takes[m, p]
                powers[m] = p
                m += 1
        if jokers >= ts:
            takes[m, :] = 0
            takes[m, JOKER] = ts
            powers[m] = JOKER
            m += 1
    elif tk == STRAIGHT and straights:
        take = np.zeros(POWERS, dtype=np.int64)
        for a in range(len(run) - ts + 1):
            if not _straight_take(hand, run, a, ts, np.int64(0), take):
                continue
            k, p, s = classify(take, straights, run, run_index)
            if k < 0 or not answers(tk, tp, ts, k, p, s):
                continue
            dup = False
            for j in range(m):
                same = True
                for q in range(POWERS):
                    if takes[j, q] != take[q]:
                        same = False
                        break
                if same:
                    dup = True
                    break
            if not dup:
                takes[m, :] = take
                powers[m] = p
                m += 1
        _sort_answers(takes, powers, np.int64(m))
    return m


@njit(cache=True)
def _before(takes, powers, i, j):  # type: ignore[no-untyped-def]
    if powers[i] != powers[j]:
        return powers[i] < powers[j]
    for q in range(POWERS):
        if takes[i, q] != takes[j, q]:
            return takes[i, q] < takes[j, q]
    return False


@njit(cache=True)
def _sort_answers(takes, powers, m):  # type: ignore[no-untyped-def]
    """Insertion sort by (power, take), the order of ludor.combos.plays."""
    row = np.zeros(POWERS, dtype=np.int64)
    for i in range(1, m):
        j = i
        while j > 0 and _before(takes, powers, j, j - 1):
            row[:] = takes[j]
            takes[j, :] = takes[j - 1]
            takes[j - 1, :] = row
            powers[j], powers[j - 1] = powers[j - 1], powers[j]
            j -= 1


# -- the trick ---------------------------------------------------------------------------------
@njit(cache=True)
def next_contender(t, after, sizes, passed, blocked):  # type: ignore[no-untyped-def]
    n = len(sizes)
    for i in range(1, n + 1):
        s = (after + i) % n
        if s != t[LAST] and sizes[s] > 0 and not passed[s] and not blocked[s]:
            return s
    return -1


@njit(cache=True)
def next_with_cards(seat, sizes, include_self):  # type: ignore[no-untyped-def]
    n = len(sizes)
    for i in range(0 if include_self else 1, n):
        s = (seat + i) % n
        if sizes[s] > 0:
            return s
    return -1


@njit(cache=True)
def _advance(t, after, sizes, passed, blocked):  # type: ignore[no-untyped-def]
    nxt = next_contender(t, after, sizes, passed, blocked)
    if nxt < 0:
        t[WINNER], t[CLOSED] = t[LAST], C_PASSES
    else:
        t[TURN] = nxt


@njit(cache=True)
def _wins_by_plim(seat, sizes, passed, blocked):  # type: ignore[no-untyped-def]
    contenders = 0
    for s in range(len(sizes)):
        if s != seat and sizes[s] > 0 and not passed[s] and not blocked[s]:
            contenders += 1
    return contenders <= 1


# -- the greedy policy ---------------------------------------------------------------------------
@njit(cache=True)
def _unit(take, power, k):  # type: ignore[no-untyped-def]
    take[:] = 0
    take[power] = k


@njit(cache=True)
def _set_answer(hand, p, ts, take):  # type: ignore[no-untyped-def]
    """``take``: the answer of power ``p`` to a set of ``ts`` (``p`` first, jokers for the rest)."""
    take[:] = 0
    if p == JOKER:
        take[JOKER] = ts
    else:
        take[p] = min(hand[p], ts)
        take[JOKER] = ts - take[p]


@njit(cache=True)
def _greedy_set(hand, t, seat, sizes, passed, blocked, declare, plain, sure, take, spend):  # type: ignore[no-untyped-def]
    """:func:`greedy`'s answer to a set on the table, straight from the hand: the same choice as
    walking :func:`_answer_list` (powers ``tp`` to the 2s that the jokers complete, then jokers
    alone), without building the list. ``spend``: a control answer is played as in the endgame
    (the :data:`SPENDER` model) rather than kept."""
    tp, ts = t[TOP_POWER], t[TOP_SIZE]
    jokers = hand[JOKER]
    own = (tp < JOKER and hand[tp] > 0 and hand[tp] + jokers >= ts) or (tp == JOKER and jokers >= ts)
    if own and _wins_by_plim(seat, sizes, passed, blocked):  # the answer of the top's own power: PLIM
        _set_answer(hand, tp, ts, take)
        return M_PLAY, False
    for p in range(tp, JOKER):  # the lowest answer without 2s or jokers
        if p != TWO and hand[p] >= ts:
            _set_answer(hand, p, ts, take)
            return M_PLAY, False
    if sure:
        return M_AUTOPLIM, declare
    if plain <= ENDGAME_PLAIN_CARDS or spend:
        for p in range(tp, JOKER):  # the lowest answer of all
            if hand[p] > 0 and hand[p] + jokers >= ts:
                _set_answer(hand, p, ts, take)
                return M_PLAY, False
        if jokers >= ts:
            _set_answer(hand, np.int64(JOKER), ts, take)
            return M_PLAY, False
        if hand[TWO_OF_OROS] > 0:
            _unit(take, np.int64(TWO_OF_OROS), np.int64(1))
            return M_PLAY, False
    return M_PASS, False


@njit(cache=True)
def greedy(hand, t, seat, sizes, passed, blocked, straights, run, run_index, plim_on,  # type: ignore[no-untyped-def]
           take, takes, powers, spend=False):
    """ludor.greedy.greedy: returns (move, declare PLIM); a play's cards go in ``take``.
    ``spend``: answer a set with control cards (see :func:`_greedy_set`)."""
    tk, tp, ts = t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE]
    k, p, s = classify(hand, straights, run, run_index)
    if k >= 0 and answers(tk, tp, ts, k, p, s):
        take[:] = hand
        return M_PLAY, False
    total = sizes[seat]
    declare = plim_on and tk >= 0
    has_autoplim = hand[AUTOPLIM] > 0
    if has_autoplim and total == 1:
        return M_AUTOPLIM, declare
    plain = total - hand[TWO] - hand[JOKER] - hand[AUTOPLIM] - hand[TWO_OF_OROS]
    sure = has_autoplim and (t[TWO_PLAYED] > 0 or hand[TWO_OF_OROS] > 0)
    if tk < 0:
        if plain > 0:
            for q in range(JOKER):
                if hand[q] > 0:
                    _unit(take, q, hand[q])
                    return M_PLAY, False
        if hand[TWO_OF_OROS] > 0:
            _unit(take, np.int64(TWO_OF_OROS), np.int64(1))
            return M_PLAY, False
        if sure:
            return M_AUTOPLIM, declare
        if hand[TWO] > 0:
            _unit(take, np.int64(TWO), hand[TWO])
            return M_PLAY, False
        if hand[JOKER] > 0:
            _unit(take, np.int64(JOKER), hand[JOKER])
            return M_PLAY, False
        return M_AUTOPLIM, declare
    if tk == SET:
        return _greedy_set(hand, t, seat, sizes, passed, blocked, declare, plain, sure, take, spend)
    m = _answer_list(hand, tk, tp, ts, straights, run, run_index, takes, powers)
    if _wins_by_plim(seat, sizes, passed, blocked):
        for i in range(m):
            if powers[i] == tp and is_plim(tk, tp, ts, tk, powers[i], ts):
                take[:] = takes[i]
                return M_PLAY, False
    for i in range(m):
        if takes[i, TWO] == 0 and takes[i, JOKER] == 0:
            take[:] = takes[i]
            return M_PLAY, False
    if sure:
        return M_AUTOPLIM, declare
    if plain <= ENDGAME_PLAIN_CARDS:
        if m > 0:
            take[:] = takes[0]
            return M_PLAY, False
        if hand[TWO_OF_OROS] > 0:
            _unit(take, np.int64(TWO_OF_OROS), np.int64(1))
            return M_PLAY, False
    return M_PASS, False


@njit(cache=True)
def searcher(hand, t, seat, sizes, passed, blocked, straights, run, run_index, plim_on,  # type: ignore[no-untyped-def]
             take, takes, powers):
    """The searchers as their play shows them (the :data:`SEARCHER` model): :func:`greedy` that
    spends its control cards (:data:`SPEND_CONTROL`), leads a higher plain rank than its lowest
    now and then (:data:`LEAD_LOWEST`), and answers a set with a higher natural answer than its
    lowest (:data:`ANSWER_LOWEST`), or passes (:data:`PASS_NATURAL`), now and then."""
    tk, tp, ts = t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE]
    k, p, s = classify(hand, straights, run, run_index)
    if k >= 0 and answers(tk, tp, ts, k, p, s):
        take[:] = hand
        return M_PLAY, False
    if tk < 0:
        last = -1
        for q in range(TWO):
            if hand[q] > 0:
                last = q
        for q in range(TWO):
            if hand[q] > 0 and (q == last or np.random.random() < LEAD_LOWEST):
                _unit(take, q, hand[q])
                return M_PLAY, False
    elif tk == SET and tp <= AS:
        natural = -1
        for q in range(tp, TWO):
            if hand[q] >= ts:
                natural = q
        own = hand[tp] > 0 and hand[tp] + hand[JOKER] >= ts
        if natural >= 0 and not (own and _wins_by_plim(seat, sizes, passed, blocked)):
            if np.random.random() < PASS_NATURAL:
                return M_PASS, False
            for q in range(tp, TWO):
                if hand[q] >= ts and (q == natural or np.random.random() < ANSWER_LOWEST):
                    _set_answer(hand, q, ts, take)
                    return M_PLAY, False
    spend = tk == SET and np.random.random() < SPEND_CONTROL
    return greedy(hand, t, seat, sizes, passed, blocked, straights, run, run_index, plim_on, take, takes, powers,
                  spend)


@njit(cache=True)
def seed(value):  # type: ignore[no-untyped-def]
    """Seed the compiled code's own random generator (numba keeps it apart from numpy's)."""
    np.random.seed(value)


@njit(cache=True)
def _choose(n, k):  # type: ignore[no-untyped-def]
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


@njit(cache=True)
def random_move(hand, t, straights, run, run_index, plim_on, take, takes, powers):  # type: ignore[no-untyped-def]
    """The ``random`` bot: uniform over the legal action bodies, so a set counts once per choice of
    its suits and jokers (exact for sets; an answer to a straight counts once). Returns (move,
    declare PLIM); a play's cards go in ``take``."""
    tk, tp, ts = t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE]
    jokers = hand[JOKER]
    weight = 1
    for draw in range(2):  # first count the bodies, then walk to the drawn one
        total = 0 if draw == 0 else np.random.randint(weight)
        seen = 0
        if tk < 0 or tk == SET:
            lo = 0 if tk < 0 else tp
            for p in range(lo, JOKER + 1):
                n = hand[p] if p < JOKER else 0
                for kn in range(0 if p == JOKER else 1, n + 1):
                    for kj in range(jokers + 1):
                        size = kn + kj
                        if size == 0 or (tk == SET and size != ts):
                            continue
                        seen += _choose(n, kn) * _choose(jokers, kj)
                        if draw == 1 and seen > total:
                            take[:] = 0
                            if p < JOKER:
                                take[p] = kn
                            take[JOKER] = kj
                            return M_PLAY, False
        elif tk == STRAIGHT:
            m = _answer_list(hand, tk, tp, ts, straights, run, run_index, takes, powers)
            for i in range(m):
                seen += 1
                if draw == 1 and seen > total:
                    take[:] = takes[i]
                    return M_PLAY, False
        if hand[TWO_OF_OROS] > 0:
            seen += 1
            if draw == 1 and seen > total:
                _unit(take, np.int64(TWO_OF_OROS), np.int64(1))
                return M_PLAY, False
        if hand[AUTOPLIM] > 0:
            seen += 1
            if draw == 1 and seen > total:
                return M_AUTOPLIM, False
            if plim_on and tk >= 0:
                seen += 1
                if draw == 1 and seen > total:
                    return M_AUTOPLIM, True
        if tk >= 0:
            seen += 1
        weight = seen
    return M_PASS, False


# -- the round -----------------------------------------------------------------------------------
@njit(cache=True)
def apply(hands, sizes, t, passed, blocked, finished, seat, move, take, declare,  # type: ignore[no-untyped-def]
          straights, run, run_index, plim_mode, named):
    """One move (ludor.engine's _play / _pass / _play_autoplim and _after_move); ``named``: the
    rank named for jokers played alone (-1: Joker)."""
    n = len(sizes)
    hand = hands[seat]
    if move == M_PASS:
        passed[seat] = True
        _advance(t, seat, sizes, passed, blocked)
    elif move == M_AUTOPLIM:
        tk, tp, ts = t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE]
        hand[AUTOPLIM] -= 1
        sizes[seat] -= 1
        target = -1
        if declare:
            target = t[TURN] if seat != t[TURN] else next_with_cards(seat, sizes, np.bool_(False))
        block = -1
        if target >= 0 and tk >= 0 and plim_mode != P_OFF and (
                plim_mode == P_ALWAYS or can_match(hands[target], tk, tp, ts, straights, run, run_index)):
            block = target
        passed[:] = False
        blocked[:] = False
        t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE], t[LAST] = AUTOPLIM_PLAY, AUTOPLIM, 1, seat
        if block >= 0:
            blocked[block] = True
        if t[TWO_PLAYED] > 0:
            t[WINNER], t[CLOSED] = seat, C_AUTOPLIM
        else:
            _advance(t, seat, sizes, passed, blocked)
    else:
        k, p, s = classify(take, straights, run, run_index)
        if named >= 0 and k == SET and p == JOKER:
            p = named
        for q in range(POWERS):
            hand[q] -= take[q]
        sizes[seat] -= s
        plim = is_plim(t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE], k, p, s)
        t[TOP_KIND], t[TOP_POWER], t[TOP_SIZE], t[LAST] = k, p, s, seat
        if k == TWO_OF_OROS_PLAY:
            t[TWO_PLAYED] = 1
            t[WINNER], t[CLOSED] = seat, C_TWO_OF_OROS
        else:
            if plim:
                b = next_contender(t, seat, sizes, passed, blocked)
                if b >= 0:
                    blocked[b] = True
            _advance(t, seat, sizes, passed, blocked)
    if sizes[seat] == 0 and not _has_finished(finished, t[N_FINISHED], seat):
        finished[t[N_FINISHED]] = seat
        t[N_FINISHED] += 1
    active = 0
    for s in range(n):
        if sizes[s] > 0:
            active += 1
    if active <= 1:
        for s in range(n):
            if sizes[s] > 0:
                finished[t[N_FINISHED]] = s
                t[N_FINISHED] += 1
        t[OVER] = 1
    elif t[CLOSED] != C_OPEN:
        leader = next_with_cards(t[WINNER], sizes, np.bool_(True))
        t[LEADER], t[TURN] = leader, leader
        t[TOP_KIND], t[LAST], t[WINNER], t[CLOSED] = -1, -1, -1, C_OPEN
        passed[:] = False
        blocked[:] = False


@njit(cache=True)
def _has_finished(finished, count, seat):  # type: ignore[no-untyped-def]
    for i in range(count):  # noqa: SIM110 (no generators in numba)
        if finished[i] == seat:
            return True
    return False


@njit(cache=True)
def play_out(hands, sizes, t, passed, blocked, finished, me, straights, run, run_index,  # type: ignore[no-untyped-def]
             plim_mode, policies):
    """Everyone plays its policy (``policies[seat]``: GREEDY, RANDOM or SPENDER) until ``me``'s finishing
    position is known (``me`` -1: the round's end). Returns that position (0 = first), or -1."""
    take = np.zeros(POWERS, dtype=np.int64)
    takes = np.zeros((16, POWERS), dtype=np.int64)
    powers = np.zeros(16, dtype=np.int64)
    return _play_out(hands, sizes, t, passed, blocked, finished, me, straights, run, run_index, plim_mode, policies,
                     take, takes, powers)


@njit(cache=True)
def _play_out(hands, sizes, t, passed, blocked, finished, me, straights, run, run_index,  # type: ignore[no-untyped-def]
              plim_mode, policies, take, takes, powers):
    """:func:`play_out` with its scratch arrays given (allocated once per search, not per rollout)."""
    plim_on = plim_mode != P_OFF
    while t[OVER] == 0:
        if me >= 0 and _has_finished(finished, t[N_FINISHED], me):
            break
        s = t[TURN]
        if policies[s] == RANDOM or (policies[s] == NOISY and np.random.random() < NOISE):
            move, declare = random_move(hands[s], t, straights, run, run_index, plim_on, take, takes, powers)
        elif policies[s] == SEARCHER:
            move, declare = searcher(hands[s], t, s, sizes, passed, blocked, straights, run, run_index, plim_on,
                                     take, takes, powers)
        else:
            spend = ((policies[s] == SPENDER or policies[s] == NOISY) and t[TOP_KIND] == SET
                     and np.random.random() < SPEND_CONTROL)
            move, declare = greedy(hands[s], t, s, sizes, passed, blocked, straights, run, run_index, plim_on,
                                   take, takes, powers, spend)
        apply(hands, sizes, t, passed, blocked, finished, s, move, take, declare, straights, run, run_index,
              plim_mode, np.int64(-1))
    if me < 0:
        return -1
    for i in range(t[N_FINISHED]):
        if finished[i] == me:
            return i
    return -1


@njit(cache=True)
def _deal(pool, hands, room, me):  # type: ignore[no-untyped-def]
    """Deal the shuffled ``pool`` into ``hands``, ``room[s]`` more cards each, none to ``me``
    (the pool may hold more: cards out of the round). Every deal is equally likely: what the
    passes tell weighs the deals (:func:`pass_weight`) instead of restricting them."""
    at = 0
    for s in range(len(room)):
        if s == me:
            continue
        for _ in range(room[s]):
            hands[s, pool[at]] += 1
            at += 1


@njit(cache=True)
def _deal_bounded(unseen, allowed, hands, room, me):  # type: ignore[no-untyped-def]
    """Deal the ``unseen`` cards (counts per power) into ``hands``, ``room[s]`` more cards each,
    none to ``me``: first each seat with a bound (a row of ``allowed`` other than -1: how many of
    the unseen cards of each power it may hold, :func:`ludor.knowledge.exchange_bounds`), drawn
    one by one uniformly among the cards allowed it and still undealt, then the others from the
    cards left, alike (:func:`_free_card`). Returns False, the hands partly dealt, if a bound
    cannot be met."""
    left = unseen.copy()
    none = np.zeros(POWERS, dtype=np.int64)
    for turn in range(2):  # the bounded seats, then the others
        for s in range(len(room)):
            if s == me or (allowed[s, 0] >= 0) != (turn == 0):
                continue
            cap = left.copy()
            if turn == 0:
                for p in range(POWERS):
                    cap[p] = min(cap[p], allowed[s, p])
            for _ in range(room[s]):
                p = _free_card(cap, none)
                if p < 0:
                    return False
                cap[p] -= 1
                left[p] -= 1
                hands[s, p] += 1
    return True


# -- what a pass tells ------------------------------------------------------------------------
AS = 10
PASS_CLASSES = 6
"""The classes of a hand facing a set (:func:`pass_class`): 0 an answer of the set's own power
(a PLIM), 1 the lowest natural answer one or two powers up, 2 three to five up, 3 six or more up,
4 no natural answer but 2s, jokers or the 2 de Oros, 5 nothing to answer with."""


@njit(cache=True)
def pass_class(hand, later, power, size):  # type: ignore[no-untyped-def]
    """The class of ``hand + later`` (the passer's hand when it passed) facing a set of ``size``
    cards of ``power`` (below the 2s): see :data:`PASS_CLASSES`."""
    for q in range(power, AS + 1):
        if hand[q] + later[q] >= size:
            gap = q - power
            if gap == 0:
                return 0
            if gap <= 2:
                return 1
            if gap <= 5:
                return 2
            return 3
    control = hand[TWO] + later[TWO] + hand[JOKER] + later[JOKER]
    if control >= size or hand[TWO_OF_OROS] + later[TWO_OF_OROS] > 0:
        return 4
    for q in range(power, AS + 1):
        if hand[q] + later[q] > 0 and hand[q] + later[q] + hand[JOKER] + later[JOKER] >= size:
            return 4
    return 5


@njit(cache=True)
def pass_weight(hands, passes, later, likelihood):  # type: ignore[no-untyped-def]
    """The likelihood of this round's passes given the dealt ``hands``: the product over the
    passes (``passes[e]``: seat, power, size; ``later[e]``: what that seat played since) of
    ``likelihood[size bucket, class]``, the chance that such a hand passes (fitted on play)."""
    return _pass_weight(hands, passes, later, likelihood, np.int64(-1))


@njit(cache=True)
def _pass_weight(hands, passes, later, likelihood, seat):  # type: ignore[no-untyped-def]
    """:func:`pass_weight` over ``seat``'s passes only (-1: every seat's)."""
    w = 1.0
    for e in range(len(passes)):
        s, power, size = passes[e, 0], passes[e, 1], passes[e, 2]
        if seat < 0 or s == seat:
            w *= likelihood[min(size, 2) - 1, pass_class(hands[s], later[e], power, size)]
    return w


# -- what a play tells ------------------------------------------------------------------------
LEAD, NATURAL, CONTROL = 0, 1, 2
"""The plays read (:func:`ludor.knowledge.set_plays`): a lead of a plain rank, a natural answer
to a set below the 2s, an answer to it with 2s, jokers or the 2 de Oros."""
PLAY_FACTORS = np.array([1 - LEAD_LOWEST, 1 - ANSWER_LOWEST, 0.1])
"""The likelihood of a play relative to its likeliest hand, as the searchers' play shows it
(:func:`play_weight`): a lead, for each plain rank held below the one led (:data:`LEAD_LOWEST`:
expert-v1 led its lowest plain rank 61% of the time, the next 23%, the third 9%); a natural answer,
for each lower natural answer held (:data:`ANSWER_LOWEST`: the lowest 69% of such turns, the next
9%); a control answer, when a natural answer was held (7% of the turns with a natural answer
against 76-80% of those with only control answers: about a tenth)."""


@njit(cache=True)
def play_weight(hands, plays, later, factors):  # type: ignore[no-untyped-def]
    """The likelihood of this round's plays given the dealt ``hands``, up to a constant: the
    product over the plays (``plays[e]``: seat, what it was, the power and size of the set it
    answered, the power played; ``later[e]``: what that seat played since) of ``factors[what]``
    once for each lower rank its hand then held and did not play (a lead, a natural answer) or
    once if a natural answer was held (a control answer)."""
    return _play_weight(hands, plays, later, factors, np.int64(-1))


@njit(cache=True)
def _play_weight(hands, plays, later, factors, seat):  # type: ignore[no-untyped-def]
    """:func:`play_weight` over ``seat``'s plays only (-1: every seat's)."""
    w = 1.0
    for e in range(len(plays)):
        s, what, power, size, played = plays[e, 0], plays[e, 1], plays[e, 2], plays[e, 3], plays[e, 4]
        if seat >= 0 and s != seat:
            continue
        if what == LEAD:
            for q in range(played):
                if hands[s, q] + later[e, q] > 0:
                    w *= factors[LEAD]
        elif what == NATURAL:
            for q in range(power, played):
                if hands[s, q] + later[e, q] >= size:
                    w *= factors[NATURAL]
        else:
            for q in range(power, AS + 1):
                if hands[s, q] + later[e, q] >= size:
                    w *= factors[CONTROL]
                    break
    return w


@njit(cache=True)
def _free_card(hand, known):  # type: ignore[no-untyped-def]
    """A power drawn uniformly among the cards of ``hand`` not ``known`` to be there (-1: none)."""
    total = 0
    for p in range(POWERS):
        total += hand[p] - known[p]
    if total <= 0:
        return -1
    r = np.random.randint(total)
    for p in range(POWERS):
        r -= hand[p] - known[p]
        if r < 0:
            return p
    return -1


@njit(cache=True)
def resample(hands, me, known, passes, later, likelihood, plays, plays_later, factors, steps):  # type: ignore[no-untyped-def]
    """Move the dealt ``hands`` towards the deals the others' passes and plays make likely, by
    ``steps`` Metropolis swaps: two other seats trade a card each (never one ``known`` to be
    there), kept with the chance ``min(1, new likelihood / old)`` (:func:`pass_weight` times
    :func:`play_weight`, over the two seats only: the other factors stay). A deal so moved counts
    like any other (weight 1), where weighing a uniform deal by its likelihood lets a few deals
    carry the whole search (``Style.resample``)."""
    n = hands.shape[0]
    if n < 3 or steps <= 0 or len(passes) + len(plays) == 0:
        return
    cur = np.ones(n)
    for s in range(n):
        if s != me:
            cur[s] = (_pass_weight(hands, passes, later, likelihood, np.int64(s))
                      * _play_weight(hands, plays, plays_later, factors, np.int64(s)))
    for _ in range(steps):
        a = me
        while a == me:
            a = np.random.randint(n)
        b = me
        while b == me or b == a:  # noqa: SIM109 (plain numba)
            b = np.random.randint(n)
        pa, pb = _free_card(hands[a], known[a]), _free_card(hands[b], known[b])
        if pa < 0 or pb < 0 or pa == pb:
            continue
        hands[a, pa] -= 1
        hands[a, pb] += 1
        hands[b, pb] -= 1
        hands[b, pa] += 1
        wa = _pass_weight(hands, passes, later, likelihood, a) * _play_weight(hands, plays, plays_later, factors, a)
        wb = _pass_weight(hands, passes, later, likelihood, b) * _play_weight(hands, plays, plays_later, factors, b)
        if wa * wb >= np.random.random() * cur[a] * cur[b]:
            cur[a], cur[b] = wa, wb
        else:
            hands[a, pa] += 1
            hands[a, pb] -= 1
            hands[b, pb] += 1
            hands[b, pa] -= 1


@njit(cache=True)
def evaluate(me, own, sizes, unseen, known, allowed, passes, later, likelihood,  # type: ignore[no-untyped-def]
             plays, plays_later, factors, t0, passed0, blocked0, finished0, moves, cand_takes, declares,
             cand_named, deals, seed, straights, run, run_index, plim_mode, policies, values, steps, rewards,
             weights):
    """Set ``rewards[d, c]`` to the reward (``values[position]``: the search's worth of each finishing position) of
    candidate ``c`` on the ``d``-th of ``deals`` random deals of the ``unseen`` cards among the
    other seats (after their ``known`` cards: :func:`_deal`; a seat whose row of ``allowed`` is not
    -1 only from the cards allowed it, :func:`_deal_bounded`, unless that cannot be met), and
    ``weights[d]`` to how likely that deal makes this round's ``passes`` (:func:`pass_weight`; no
    passes, or a ``likelihood`` of ones: every deal alike, 1) and ``plays`` (:func:`play_weight`;
    none: 1); with ``steps``, each deal is first moved by that many swaps towards the likely deals
    (:func:`resample`, which keeps no bound), then counts 1. A candidate ``M_NONE`` is no move: the
    round goes on as it stands (the Autoplim's holder waiting instead of putting it down out of
    turn)."""
    np.random.seed(seed)
    n = len(sizes)
    pool = np.zeros(np.sum(unseen), dtype=np.int64)
    at = 0
    for p in range(POWERS):
        for _ in range(unseen[p]):
            pool[at] = p
            at += 1
    hands0 = np.zeros((n, POWERS), dtype=np.int64)
    hands = np.zeros((n, POWERS), dtype=np.int64)
    sz = sizes.copy()
    t = t0.copy()
    passed = passed0.copy()
    blocked = blocked0.copy()
    finished = finished0.copy()
    take = np.zeros(POWERS, dtype=np.int64)
    takes = np.zeros((16, POWERS), dtype=np.int64)
    powers = np.zeros(16, dtype=np.int64)
    room = np.zeros(n, dtype=np.int64)
    bounded = False
    for s in range(n):
        bounded = bounded or allowed[s, 0] >= 0
    for d in range(deals):
        np.random.shuffle(pool)
        for s in range(n):
            hands0[s, :] = known[s]
            room[s] = 0 if s == me else sizes[s] - np.sum(known[s])
            if s == me:
                hands0[s, :] = own
        if not (bounded and _deal_bounded(unseen, allowed, hands0, room, me)):
            for s in range(n):
                if s != me:
                    hands0[s, :] = known[s]
            _deal(pool, hands0, room, me)
        if steps > 0:
            resample(hands0, me, known, passes, later, likelihood, plays, plays_later, factors, steps)
            weights[d] = 1.0
        else:
            weights[d] = pass_weight(hands0, passes, later, likelihood) * play_weight(hands0, plays, plays_later,
                                                                                      factors)
        for c in range(len(moves)):
            hands[:, :] = hands0
            sz[:] = sizes
            t[:] = t0
            passed[:] = passed0
            blocked[:] = blocked0
            finished[:] = finished0
            if moves[c] != M_NONE:
                apply(hands, sz, t, passed, blocked, finished, me, moves[c], cand_takes[c], declares[c], straights,
                      run, run_index, plim_mode, cand_named[c])
            position = _play_out(hands, sz, t, passed, blocked, finished, me, straights, run, run_index, plim_mode,
                                 policies, take, takes, powers)
            rewards[d, c] = values[position]
