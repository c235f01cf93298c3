"""Rule sets: the numbers of the round clock and of the time-over procedure (R4, R5) as data,
so an organiser can run another edition of the end-of-match procedure without code changes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from functools import cache
from typing import Any

from .base import RuleError

# What happens when the extra turns end with equal LP, or a match ends with level wins.
SUDDEN_DEATH = "sudden_death"
EXTRA_DUEL = "extra_duel"
DRAW = "draw"


@dataclass(frozen=True)
class RuleSet:
    """One edition of the tournament rules' numbers."""

    name: str = "ocg-2008"
    match_minutes: float = 40  # R4.1
    window_seconds: int = 180  # R4.2
    think_seconds: int = 180  # R4.3
    starting_lp: int = 8000  # R3.2
    wins_needed: int = 2  # R3.1
    max_duels: int = 3  # R3.1, R3.3: at most three duels before the Extra Duel
    extra_turns: int = 3  # R5.1.3
    equal_lp_after_extra_turns: str = SUDDEN_DEATH  # R5.1.5
    level_wins_at_time: str = EXTRA_DUEL  # R5.2, R5.4
    extra_duel_turns: int = 4  # R5.2.1
    lead_wins_between_duels: bool = True  # R5.3
    staff_start: bool = False  # an event table: only staff start the match clock (R4.1)

    @property
    def match_ms(self) -> int:
        """The match time limit in milliseconds."""
        return int(self.match_minutes * 60_000)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (a fresh dict; its values are all plain numbers and strings)."""
        return dict(_as_dict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RuleSet:
        """Inverse of ``to_dict``; unknown keys are ignored."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


@cache
def _as_dict(rs: RuleSet) -> dict[str, Any]:
    # Every view carries its table's rule set; there are only a handful of distinct ones.
    return asdict(rs)


RULESETS: dict[str, RuleSet] = {
    # The seed: Hong Kong OCG sanctioned tournament rules, 2008 (RULES.md).
    "ocg-2008": RuleSet(),
    "ocg-2011-swiss": RuleSet(
        name="ocg-2011-swiss", equal_lp_after_extra_turns=DRAW, level_wins_at_time=DRAW
    ),
    "ocg-2011-elimination": RuleSet(name="ocg-2011-elimination"),
    "tcg-2010-swiss": RuleSet(
        name="tcg-2010-swiss",
        extra_turns=5,
        equal_lp_after_extra_turns=DRAW,
        level_wins_at_time=DRAW,
    ),
    "tcg-2018-swiss": RuleSet(
        name="tcg-2018-swiss",
        match_minutes=45,
        extra_turns=0,
        equal_lp_after_extra_turns=DRAW,
        level_wins_at_time=DRAW,
    ),
}

# R1.1: the seed asks every player for a registered player ID (「必須攜帶已註冊的5D's Duelist
# ID」): an event under its rule set requires one at its tables unless the organiser waives it
# (an unsanctioned event). The other rule sets leave it to the organiser.
PLAYER_ID_REQUIRED = frozenset({"ocg-2008"})


def player_id_required(name: str) -> bool:
    """Whether a new event under rule set ``name`` requires a player ID by default (R1.1)."""
    return name in PLAYER_ID_REQUIRED


# The one place the match clock's limits are said: the HTTP bodies that set it take them from
# here (`server/api/schemas.py`), so a table and an event refuse the same values the same way.
MATCH_MINUTES: tuple[float, int] = (0.05, 180)
_LIMITS = {"match_minutes": MATCH_MINUTES, "window_seconds": (1, 3600), "think_seconds": (1, 3600)}


def get_ruleset(name: str = "ocg-2008", **overrides: Any) -> RuleSet:
    """A named rule set with optional overrides (e.g. a shorter match for a side event)."""
    base = RULESETS.get(name)
    if base is None:
        raise RuleError("unknown_ruleset", f"No rule set named {name!r}.", known=sorted(RULESETS))
    clean = {k: v for k, v in overrides.items() if v is not None}
    for key, value in clean.items():
        low, high = _LIMITS.get(key, (None, None))
        if low is not None and not (low <= value <= high):
            raise RuleError("invalid", f"{key} must be between {low} and {high}.", field=key)
    return replace(base, **clean)
