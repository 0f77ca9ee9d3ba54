"""The game options of Ludor (the marshmallow schema that loads them is in :mod:`ludor.schemas`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ludoteca.errors import FieldValidationError

from ludor.combos import Ruleset, ruleset

FULL_DECK, FORTY_DECK = "full", "forty"
DECKS = (FULL_DECK, FORTY_DECK)
AUTOMATIC, CHOOSE = "automatic", "choose"
EXCHANGES = (AUTOMATIC, CHOOSE)
PLIM_MATCH, PLIM_ALWAYS, PLIM_OFF = "match", "always", "off"
AUTOPLIM_PLIMS = (PLIM_MATCH, PLIM_ALWAYS, PLIM_OFF)
MAX_ROUND_LIMIT = 100


@dataclass(frozen=True)
class Options:
    """``straights``: straights ("escaleras") may be played. ``deck``: ``full`` (48 Spanish cards,
    51 with the jokers and the Autoplim) or ``forty`` (no 8s or 9s: 43 cards). ``round_limit``:
    the game ends after that many rounds even without a vote (None: only the vote ends it).
    ``exchange``: ``automatic`` (the Presidente and Vicepresidente give back their worst cards)
    or ``choose`` (they choose what to give back). ``autoplim_plim``: the reading of the
    Autoplim's PLIM clause: ``match`` (a declared PLIM blocks the next player only if he holds
    cards matching the covered play), ``always`` (a declared PLIM always blocks) or ``off``."""

    straights: bool = False
    deck: str = FULL_DECK
    round_limit: int | None = None
    exchange: str = AUTOMATIC
    autoplim_plim: str = PLIM_MATCH

    @property
    def rules(self) -> Ruleset:
        return ruleset(self.straights, self.deck == FORTY_DECK)

    def dump(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> Options:
        """Options from a mapping (missing keys take their defaults); wrong values raise
        :class:`FieldValidationError`."""
        errors: dict[str, list[str]] = {}
        values = {**asdict(cls()), **{k: v for k, v in data.items() if k in cls.__dataclass_fields__}}
        for key in data:
            if key not in cls.__dataclass_fields__:
                errors[key] = ["Unknown field."]
        if not isinstance(values["straights"], bool):
            errors["straights"] = ["Not a valid boolean."]
        for key, allowed in (("deck", DECKS), ("exchange", EXCHANGES), ("autoplim_plim", AUTOPLIM_PLIMS)):
            if values[key] not in allowed:
                errors[key] = [f"Must be one of: {', '.join(allowed)}."]
        limit = values["round_limit"]
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or not 1 <= limit <= MAX_ROUND_LIMIT):
            errors["round_limit"] = [f"Must be null or an integer from 1 to {MAX_ROUND_LIMIT}."]
        if errors:
            raise FieldValidationError("invalid options", errors=errors)
        return cls(**values)
