"""Deck lists and ban lists (R1.6, R2.1-R2.6): parse the text formats players paste, match card
names forgivingly, and name every problem of a list.

Names are matched after Unicode NFKC folding (full-width and half-width letters, digits and
spaces become one form), case folding and collapsing of spaces; once matched to a ban-list
entry the entry's exact name is used. A list may also be a `.ydk` file's text or a `ydke://` link
(cardfiles.py): such cards are kept by passcode. With card names loaded, the edge gives `names`
(folded name or passcode -> the card's passcode key), so one card pasted under two languages'
names, or under an alternate artwork's passcode, is one card for R2.4 and R2.5."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .base import RuleError
from .cardfiles import PARTS as PARTS  # the one list of a deck's parts, re-exported
from .cardfiles import WHITELIST, is_passcode, is_ydke, parse_ydke, passcode_key

MAX_COPIES = 3  # R2.4
LIMITS = {"forbidden": 0, "limited": 1, "semi_limited": 2}  # R2.5
UNLIMITED = "unlimited"  # a whitelist's allowed card (lflist.conf status 3)
SIZE = {"main": (40, 60), "extra": (0, 15), "side": (0, 15)}  # R2.1-R2.3
MAX_LINES = 200
MAX_NAME = 80

_HEADERS = {
    "main": "main",
    "main deck": "main",
    "deck": "main",
    "monster": "main",
    "monsters": "main",
    "spell": "main",
    "spells": "main",
    "trap": "main",
    "traps": "main",
    "メインデッキ": "main",
    "メイン": "main",
    "主牌組": "main",
    "主卡組": "main",
    "extra": "extra",
    "extra deck": "extra",
    "エクストラデッキ": "extra",
    "エクストラ": "extra",
    "額外牌組": "extra",
    "額外卡組": "extra",
    "side": "side",
    "side deck": "side",
    "サイドデッキ": "side",
    "サイド": "side",
    "副牌組": "side",
    "副卡組": "side",
    "備牌": "side",
}
_COUNT_FIRST = re.compile(r"^(\d{1,2})\s*[xX×]?\s+(.+)$")
_COUNT_LAST = re.compile(r"^(.+?)\s*[xX×*]\s*(\d{1,2})$")


def fold(name: str) -> str:
    """The matching key of a card name: NFKC, case-folded, single spaces."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = re.sub(r"[\s\u3000]+", " ", text).strip()
    return text.replace("“", '"').replace("”", '"').replace("’", "'")


@dataclass(frozen=True)
class DeckList:
    """Card name -> copies, per part."""

    main: Mapping[str, int] = field(default_factory=dict)
    extra: Mapping[str, int] = field(default_factory=dict)
    side: Mapping[str, int] = field(default_factory=dict)

    def part(self, name: str) -> Mapping[str, int]:
        return {"main": self.main, "extra": self.extra, "side": self.side}[name]

    def count(self, name: str) -> int:
        """Cards in one part."""
        return sum(self.part(name).values())

    def counts(self) -> dict[str, int]:
        return {p: self.count(p) for p in PARTS}

    def to_dict(self) -> dict[str, dict[str, int]]:
        return {p: dict(sorted(self.part(p).items())) for p in PARTS}

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, int]]) -> DeckList:
        return cls(**{p: dict(d.get(p) or {}) for p in PARTS})


@dataclass(frozen=True)
class BanList:
    """Card name -> limit (0 forbidden, 1 limited, 2 semi-limited), keyed by folded name."""

    name: str
    limits: Mapping[str, int]
    names: Mapping[str, str]  # folded -> the list's own spelling
    others: int | None = None  # a whitelist: the limit of every card it does not list (0)

    @classmethod
    def build(cls, name: str, entries: Iterable[tuple[str, str]]) -> BanList:
        """From (card name or passcode, status) pairs; status is forbidden, limited,
        semi_limited or (a whitelist's) unlimited; the card "*" is every card not listed."""
        limits: dict[str, int] = {}
        names: dict[str, str] = {}
        others: int | None = None
        for card, status in entries:
            key = fold(card)
            status_key = fold(status).replace("-", "_").replace(" ", "_")
            if status_key == UNLIMITED:
                limit = MAX_COPIES
            elif status_key in LIMITS:
                limit = LIMITS[status_key]
            else:
                raise RuleError("invalid", f"Unknown ban-list status {status!r}.", card=card)
            if not key:
                raise RuleError("invalid", "A ban-list entry has no card name.")
            if key == WHITELIST:
                others = limit
                continue
            limits[key] = limit
            names[key] = card.strip()
        return cls(name=name, limits=limits, names=names, others=others)

    def resolved(self, names: Mapping[str, str] | None) -> BanList:
        """The list keyed by passcode where `names` knows a card (folded name -> passcode), so
        a card listed under one language's name holds under every language's."""
        if not names:
            return self
        limits: dict[str, int] = {}
        spelled: dict[str, str] = {}
        for key, limit in self.limits.items():
            code = names.get(key, key)
            # Two spellings of one card: the stricter status holds.
            limits[code] = min(limit, limits.get(code, limit))
            spelled.setdefault(code, self.names[key])
        return BanList(self.name, limits, spelled, self.others)

    def canonical(self, card: str) -> str:
        """The list's spelling of a card, or the card as typed."""
        return self.names.get(fold(card), card.strip())


def parse(
    text: str, banlist: BanList | None = None, names: Mapping[str, str] | None = None
) -> DeckList:
    """Parse a pasted list: one card a line, "3 Card Name", "3x Card Name" or "Card Name x3";
    section headers (Main, Extra, Side, in English, Japanese or Chinese, with or without '#',
    '!' or ':') switch the part; blank lines, '//' and other '#' lines are skipped. A line that
    is a passcode (a `.ydk` file's lines) is that card; a `ydke://` link is a whole list.
    `names` maps folded names and passcodes to the card's passcode key (loaded card names)."""
    names = names or {}
    if is_ydke(text):
        parts_of_link = parse_ydke(text)
        return DeckList(**{p: _merge(parts_of_link[p], names) for p in PARTS})
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise RuleError("invalid", f"A deck list has at most {MAX_LINES} lines.")
    parts: dict[str, dict[str, int]] = {p: {} for p in PARTS}
    spelled: dict[str, str] = {}
    current = "main"
    for number, raw in enumerate(lines, start=1):
        line = unicodedata.normalize("NFKC", raw).strip()
        if not line or line.startswith("//"):
            continue
        header = fold(line.strip("#!:=-[] ").rstrip(":"))
        header = re.sub(r"\s*\(\d+\)$", "", header)  # "Main Deck (40)"
        if header in _HEADERS:
            current = _HEADERS[header]
            continue
        if line.startswith("#"):  # a .ydk file's "#created by ..." and other comments
            continue
        m = _COUNT_FIRST.match(line)
        if m:
            copies, card = int(m.group(1)), m.group(2)
        else:
            m = _COUNT_LAST.match(line)
            copies, card = (int(m.group(2)), m.group(1)) if m else (1, line)
        card = re.sub(r"\s+", " ", card).strip()
        if not card or len(card) > MAX_NAME:
            raise RuleError(
                "invalid", f"Line {number}: a card name is 1 to {MAX_NAME} characters.", line=number
            )
        if not 1 <= copies <= 60:
            raise RuleError("invalid", f"Line {number}: a count is 1 to 60.", line=number)
        if is_passcode(card):
            card = passcode_key(card)
        key = fold(card)
        if key in names:
            name = spelled.setdefault(key, names[key])
        else:
            name = spelled.setdefault(key, banlist.canonical(card) if banlist else card)
        parts[current][name] = parts[current].get(name, 0) + copies
    return DeckList(**parts)


def _merge(cards: Mapping[str, int], names: Mapping[str, str]) -> dict[str, int]:
    """Passcode -> copies, with alternate artworks counted under their original's passcode."""
    out: dict[str, int] = {}
    for code, copies in cards.items():
        key = names.get(code, code)
        out[key] = out.get(key, 0) + copies
    return out


def check(
    text: str, banlist: BanList | None = None, names: Mapping[str, str] | None = None
) -> tuple[DeckList, list[dict[str, object]]]:
    """A pasted list and every problem of it; a line that cannot be read is a problem too
    (R1.6), so a player typing sees everything at once instead of the first refusal. `names`
    (loaded card names, folded -> passcode key) makes every language's name one card."""
    if banlist is not None:
        banlist = banlist.resolved(names)
    try:
        deck = parse(text, banlist, names)
    except RuleError as exc:
        problem: dict[str, object] = {"rule": "R1.6", "code": "unreadable", **exc.details}
        problem["message"] = f"R1.6: {exc.message}"
        return DeckList(), [problem]
    found = problems(deck, banlist)
    for problem in found:
        problem["message"] = describe(problem)
    return deck, found


def describe(problem: Mapping[str, object]) -> str:
    """One problem in English, led by its rule id."""
    rule, code = problem.get("rule"), problem.get("code")
    if code == "deck_size":
        return (
            f"{rule}: the {problem['part']} deck holds {problem['min']} to {problem['max']} "
            f"cards, not {problem['count']}."
        )
    if code == "too_many_copies":
        return (
            f"{rule}: at most {MAX_COPIES} copies of {problem['card']} (main, side and extra), "
            f"not {problem['count']}."
        )
    if code in LIMITS:
        label = str(code).replace("_", "-")
        return (
            f"{rule}: {problem['card']} is {label} (at most {problem['max']} across deck and "
            f"side deck), not {problem['count']}."
        )
    return f"{rule}: {problem.get('message') or code}"


def problems(deck: DeckList, banlist: BanList | None = None) -> list[dict[str, object]]:
    """Every problem of a list, each with its rule id, in a stable order."""
    found: list[dict[str, object]] = []
    for part, (low, high) in SIZE.items():
        n = deck.count(part)
        if not low <= n <= high:
            rule = {"main": "R2.1", "extra": "R2.2", "side": "R2.3"}[part]
            found.append(
                {
                    "rule": rule,
                    "code": "deck_size",
                    "part": part,
                    "count": n,
                    "min": low,
                    "max": high,
                }
            )
    totals: dict[str, int] = {}
    spelled: dict[str, str] = {}
    for part in PARTS:
        for card, copies in deck.part(part).items():
            key = fold(card)
            totals[key] = totals.get(key, 0) + copies
            spelled.setdefault(key, card)
    for key in sorted(totals):
        if totals[key] > MAX_COPIES:
            found.append(
                {
                    "rule": "R2.4",
                    "code": "too_many_copies",
                    "card": spelled[key],
                    "count": totals[key],
                    "max": MAX_COPIES,
                }
            )
        limit = banlist.limits.get(key, banlist.others) if banlist else None
        if limit is not None and limit < MAX_COPIES and totals[key] > limit:
            status = {0: "forbidden", 1: "limited", 2: "semi_limited"}[limit]
            found.append(
                {
                    "rule": "R2.5",
                    "code": status,
                    "card": spelled[key],
                    "count": totals[key],
                    "max": limit,
                }
            )
    return found


def exchange(
    deck: DeckList, registered: DeckList, moves: Mapping[str, Mapping[str, int]]
) -> DeckList:
    """Side decking by card (R6.8, R2.6): ``moves`` maps "in"/"out" to card -> copies for the
    main or extra deck, e.g. {"main_in": {...}, "main_out": {...}}. Only cards of the
    registered list move, and each deck keeps its count."""
    new = {p: dict(deck.part(p)) for p in PARTS}
    for part in ("main", "extra"):
        card_in = dict(moves.get(f"{part}_in") or {})
        card_out = dict(moves.get(f"{part}_out") or {})
        n_in, n_out = sum(card_in.values()), sum(card_out.values())
        if n_in != n_out:
            raise RuleError(
                "count_changed",
                f"R6.8: the {part} deck must keep {deck.count(part)} cards; this "
                f"exchange changes it by {n_in - n_out:+d}.",
                deck=part,
                by=n_in - n_out,
            )
        for card, copies in card_out.items():
            if new[part].get(card, 0) < copies:
                raise RuleError(
                    "not_in_deck",
                    f"{card} is not in your {part} deck that often.",
                    card=card,
                    deck=part,
                )
            new[part][card] -= copies
            new["side"][card] = new["side"].get(card, 0) + copies
        for card, copies in card_in.items():
            if new["side"].get(card, 0) < copies:
                raise RuleError(
                    "not_in_side",
                    f"{card} is not in your side deck that often (R2.6: only registered cards).",
                    card=card,
                )
            new["side"][card] -= copies
            new[part][card] = new[part].get(card, 0) + copies
    cleaned = {p: {c: n for c, n in new[p].items() if n > 0} for p in PARTS}
    result = DeckList(**cleaned)
    if _totals(result) != _totals(registered):
        raise RuleError("not_registered", "R2.6: the deck must hold the registered cards.")
    return result


def spelling(deck: DeckList, card: str) -> str:
    """The list's own spelling of ``card`` (matched with ``fold``), or the card as typed."""
    key = fold(card)
    for part in PARTS:
        for name in deck.part(part):
            if fold(name) == key:
                return name
    return card.strip()


def _totals(deck: DeckList) -> dict[str, int]:
    totals: dict[str, int] = {}
    for part in PARTS:
        for card, n in deck.part(part).items():
            totals[fold(card)] = totals.get(fold(card), 0) + n
    return totals
