"""The game options of Ludor, declared once: :class:`LudorOptions`.

The options schema (:class:`ludor.schemas.OptionsSchema`) is built from these fields (defaults,
choices, descriptions, ranges), and :data:`ludor.engine.DECLARATION` loads the schema's output
into this typed value, once, in ``new_game``; the engine never defaults an option again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ludoteca.core.errors import FieldValidationError

from ludor.combos import Ruleset, ruleset

MAX_ROUND_LIMIT = 100


class Deck(StrEnum):
    FULL = "full"
    FORTY = "forty"


class Exchange(StrEnum):
    AUTOMATIC = "automatic"
    CHOOSE = "choose"


class AutoplimPlim(StrEnum):
    """The reading of the Autoplim's PLIM clause."""

    MATCH = "match"
    ALWAYS = "always"
    OFF = "off"


@dataclass(frozen=True)
class LudorOptions:
    """The options of one game. Field metadata: ``description`` (the schema's), and for an
    integer ``minimum`` / ``maximum``. Values of the wrong type or out of range raise
    :class:`FieldValidationError` (the schema refuses them first; this guards direct callers)."""

    straights: bool = field(default=False, metadata={
        "description": "Straights (escaleras) of 3+ consecutive single cards may be played."})
    deck: Deck = field(default=Deck.FULL, metadata={
        "description": "full: the 48-card Spanish deck (51 cards with the 2 jokers and the Autoplim); "
                       "forty: the 40-card deck without 8s and 9s (43 cards)."})
    round_limit: int | None = field(default=None, metadata={
        "description": "End the game after this many rounds even if no majority votes to end.",
        "minimum": 1, "maximum": MAX_ROUND_LIMIT})
    exchange: Exchange = field(default=Exchange.AUTOMATIC, metadata={
        "description": "automatic: the Presidente and Vicepresidente give back their worst cards; "
                       "choose: they choose which cards to give back."})
    autoplim_plim: AutoplimPlim = field(default=AutoplimPlim.MATCH, metadata={
        "description": "The Autoplim's PLIM clause. match: a declared PLIM blocks the next player if he "
                       "holds cards matching the covered play; always: it always blocks; off: no PLIM."})

    def __post_init__(self) -> None:
        errors: dict[str, list[str]] = {}
        if not isinstance(self.straights, bool):
            errors["straights"] = ["Not a valid boolean."]
        limit = self.round_limit
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or not 1 <= limit <= MAX_ROUND_LIMIT):
            errors["round_limit"] = [f"Must be null or an integer from 1 to {MAX_ROUND_LIMIT}."]
        if errors:
            raise FieldValidationError("invalid options", errors=errors)

    @property
    def rules(self) -> Ruleset:
        return ruleset(self.straights, self.deck is Deck.FORTY)

    @property
    def plim_on(self) -> bool:
        return self.autoplim_plim is not AutoplimPlim.OFF
