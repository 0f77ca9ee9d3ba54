"""What a name shown to other players may be (a seat's at a table, a player's on profiles and
leaderboards): 1 to :data:`NAME_MAX` characters, none of them invisible or able to disguise the
text around it. One rule for the games' seat names and the players service's names.

Refused: control characters (Unicode category ``Cc``, C0 and C1), lone surrogates (``Cs``) and
format characters (``Cf``: the bidirectional overrides and isolates such as U+202E, which turn the
text around them, zero-width spaces, the byte-order mark, the soft hyphen), but for the zero-width
joiner and non-joiner (U+200D, U+200C), which emoji sequences and some scripts need. A
hostile-client probe showed a name of U+202E U+200B then text accepted and shown as is."""

from __future__ import annotations

import unicodedata

NAME_MAX = 40
JOINERS = frozenset({"\u200c", "\u200d"})


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` a name may not hold (as ``U+XXXX``), or None."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs", "Cf") and ch not in JOINERS:
            return f"U+{ord(ch):04X}"
    return None


def plain_name(raw: object) -> str | None:
    """``raw`` as a name (spaces around it dropped), or None when it is not one."""
    if not isinstance(raw, str):
        return None
    name = raw.strip()
    return name if 0 < len(name) <= NAME_MAX and hidden_character(name) is None else None
