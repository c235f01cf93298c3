"""Text people type (names, player IDs, notes), made safe to show and to compare.

NFKC folds look-alike forms (full-width letters, superscript digits) into one; every control
and format character (Unicode categories Cc and Cf: zero-width spaces, joiners, the byte order
mark, bidirectional overrides) and the blank "filler" letters (U+3164 and its kin, which are
letters to Unicode but show as nothing) are removed; runs of blanks become one space."""

from __future__ import annotations

import re
import unicodedata

# Characters that are letters or marks to Unicode but draw nothing.
FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
_BLANKS = re.compile(r"\s+")


def invisible(ch: str) -> bool:
    """Whether `ch` is a control, format or blank filler character."""
    return ch in FILLERS or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")


def clean(value: str) -> str:
    """`value` in NFKC, without invisible characters, blanks collapsed to one space, trimmed."""
    text = unicodedata.normalize("NFKC", value)
    kept = "".join(ch for ch in text if ch.isspace() or not invisible(ch))
    return _BLANKS.sub(" ", kept).strip()


def player_id_key(value: str) -> str:
    """A player ID as compared: NFKC, case-folded, without blanks or invisible characters."""
    return "".join(ch for ch in clean(value).casefold() if not ch.isspace())


def same_player_id(typed: str, paired: str) -> bool:
    """Whether a typed player ID is the pairing's (the one comparison of the two)."""
    return bool(player_id_key(paired)) and player_id_key(typed) == player_id_key(paired)
