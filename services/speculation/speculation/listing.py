"""Speculation's compact listing: the joker's guesses as one template with its domain.

At the joker a seat may name any four values from 1 to 10 (715 multisets; 615 with the option
``joker_guesses: "hands"``, no value more than twice). Listed one body each they are about 5.7 KB
of every listing and of every move's ``next`` during the joker phase. The compact listing gives
one template instead, a ``guess_joker`` body whose ``domain`` says which ``values`` it stands for::

    {"type": "guess_joker", "values": [1, 1, 1, 1],
     "domain": {"field": "values", "size": 4, "min": 1, "max": 10, "max_repeats": 4, "count": 715}}

``values`` may be any ``size`` whole numbers from ``min`` to ``max``, in any order, none more than
``max_repeats`` times: ``count`` bodies in all (``values`` in the template is the first of them,
so the template is a well-formed body; ``domain`` is never posted). :func:`expand` turns the
template back into those bodies, in the order :meth:`SpeculationEngine.legal_actions` lists them
(the engine builds its joker list by expanding the same template: one source for both).

The game's bots take the compact listing as a client receives it (:func:`taking_templates`: the
template is expanded before the bot chooses), so a client that plays with the game's bots (the
load kit, the benchmark's driver, the tests' playouts) needs nothing of its own.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations_with_replacement
from typing import Any

from speculation.board import VALUES
from speculation.joker import JOKER_SIZE

JSON = dict[str, Any]
Bot = Callable[[JSON, Sequence[JSON], random.Random], JSON]

GUESS_JOKER = "guess_joker"
FIELD = "values"


def joker_template(max_repeats: int) -> JSON:
    """The joker's guesses, four values from 1 to 10 with none more than ``max_repeats`` times,
    as one template with its domain."""
    domain: JSON = {"field": FIELD, "size": JOKER_SIZE, "min": VALUES[0], "max": VALUES[-1],
                    "max_repeats": max_repeats}
    first = _bodies(domain)
    domain["count"] = len(first)
    return {"type": GUESS_JOKER, FIELD: list(first[0]), "domain": domain}


def _bodies(domain: Mapping[str, Any]) -> list[tuple[int, ...]]:
    values = range(domain["min"], domain["max"] + 1)
    return [g for g in combinations_with_replacement(values, domain["size"])
            if max(Counter(g).values()) <= domain["max_repeats"]]


def is_template(entry: Mapping[str, Any]) -> bool:
    """Whether a listed entry is a template with a domain (rather than a body to post as is)."""
    return isinstance(entry.get("domain"), Mapping)


def expand(template: Mapping[str, Any]) -> list[JSON]:
    """Every body ``template`` stands for, in the engine's order."""
    domain = template["domain"]
    return [{"type": template["type"], domain["field"]: list(g)} for g in _bodies(domain)]


def expanded(listed: Sequence[JSON]) -> list[JSON]:
    """``listed`` (a listing's actions and templates) with each template that has a domain
    replaced by the bodies it stands for; everything else as it is."""
    if not any(is_template(entry) for entry in listed):
        return list(listed)  # the worker's full listing, and every listing outside the joker
    out: list[JSON] = []
    for entry in listed:
        out.extend(expand(entry) if is_template(entry) else [entry])
    return out


def taking_templates(bot: Bot) -> Bot:
    """``bot``, given the compact listing: it chooses among the bodies the templates stand for."""
    def play(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        return bot(view, expanded(legal), rng)
    play.__name__ = play.__qualname__ = getattr(bot, "__name__", "bot")
    play.__doc__ = bot.__doc__
    return play
