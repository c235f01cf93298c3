"""The deck builders' and the community's own files, read without any I/O: `.ydk` deck files,
`ydke://` links, `lflist.conf` ban lists and CSV lists of card names (docs/banlists.md).

A card given by passcode is kept by passcode: its key in a deck list is the passcode's decimal
digits ("89631139"), shown by name wherever names are loaded. Every error is a `RuleError`
naming the line, record or part it is about, and nothing is half read."""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from .base import RuleError

PARTS = ("main", "extra", "side")
YDKE = "ydke://"
MAX_PASSCODE = 4_294_967_295  # a ydke part holds unsigned 32-bit numbers
MAX_CARDS = 200  # more than any legal list (60 + 15 + 15), less than a flood
MAX_NAME = 200
# lflist.conf statuses: the number of copies allowed; 3 (unlimited) is what a whitelist lists.
LFLIST_STATUS = {"0": "forbidden", "1": "limited", "2": "semi_limited", "3": "unlimited"}
WHITELIST = "*"  # the ban-list entry that says "every card not listed is forbidden"
_PASSCODE = re.compile(r"^\d{1,10}$")
_LFLIST_ENTRY = re.compile(r"^(\d{1,10})\s+(-?\d+)(?:\s+(.*))?$")


def is_passcode(card: str) -> bool:
    """Whether a deck list's key is a passcode (its decimal digits) rather than a typed name."""
    return bool(_PASSCODE.match(card)) and 0 < int(card) <= MAX_PASSCODE


def passcode_key(text: str) -> str:
    """A passcode's key: its digits without leading zeros ("00012345" -> "12345")."""
    return str(int(text))


def is_ydke(text: str) -> bool:
    """Whether a pasted text is a `ydke://` link."""
    return text.strip().lower().startswith(YDKE)


def parse_ydke(link: str) -> dict[str, dict[str, int]]:
    """A `ydke://main!extra!side!` link: each part the base64 of little-endian unsigned 32-bit
    passcodes. Returns part -> passcode key -> copies; a broken part is named."""
    body = link.strip()[len(YDKE) :]
    pieces = body.split("!")
    if len(pieces) < 3 or any(p.strip() for p in pieces[3:]):
        raise RuleError(
            "invalid", "A ydke:// link has three parts, main!extra!side!.", record="ydke"
        )
    parts: dict[str, dict[str, int]] = {p: {} for p in PARTS}
    total = 0
    for part, piece in zip(PARTS, pieces[:3], strict=True):
        try:
            raw = base64.b64decode(piece.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise RuleError(
                "invalid", f"The ydke:// link's {part} part is not base64.", part=part
            ) from None
        if len(raw) % 4:
            raise RuleError(
                "invalid",
                f"The ydke:// link's {part} part is cut short ({len(raw)} bytes, not a multiple "
                "of 4).",
                part=part,
            )
        for i in range(0, len(raw), 4):
            code = int.from_bytes(raw[i : i + 4], "little")
            if code == 0:
                raise RuleError(
                    "invalid", f"The ydke:// link's {part} part holds passcode 0.", part=part
                )
            key = str(code)
            parts[part][key] = parts[part].get(key, 0) + 1
            total += 1
    if total > MAX_CARDS:
        raise RuleError("invalid", f"A deck has at most {MAX_CARDS} cards.", record="ydke")
    return parts


def encode_ydke(parts: Mapping[str, Mapping[str, int]]) -> str:
    """The `ydke://` link of a list given by passcode (each copy once, in the list's order)."""
    pieces = []
    for part in PARTS:
        raw = b"".join(
            int(code).to_bytes(4, "little")
            for code, copies in (parts.get(part) or {}).items()
            for _ in range(copies)
        )
        pieces.append(base64.b64encode(raw).decode("ascii"))
    return YDKE + "!".join(pieces) + "!"


@dataclass(frozen=True)
class LfList:
    """One list of an `lflist.conf`: its header, its entries (passcode key, status) and the
    names its comments give."""

    header: str
    entries: tuple[tuple[str, str], ...]
    names: Mapping[str, str] = field(default_factory=dict)
    whitelist: bool = False

    def ban_entries(self) -> list[tuple[str, str]]:
        """The entries a ban list stores: a whitelist adds the "every other card" entry."""
        listed = [(code, status) for code, status in self.entries if status != "unlimited"]
        if self.whitelist:
            # A whitelist's unlimited cards are allowed; everything else is forbidden.
            listed = list(self.entries) + [(WHITELIST, "forbidden")]
        return listed


def parse_lflist(text: str) -> list[LfList]:
    """Every list of an `lflist.conf`: a `!header` line starts a list, `<passcode> <0|1|2|3>
    [--name]` lines are its entries, `$whitelist` makes it a whitelist, `#` lines are comments.
    An unknown status, a line that is not an entry, or an entry before any header is refused
    with its line number."""
    lists: list[LfList] = []
    header: str | None = None
    entries: dict[str, str] = {}
    names: dict[str, str] = {}
    whitelist = False

    def close() -> None:
        if header is not None:
            lists.append(LfList(header, tuple(entries.items()), dict(names), whitelist))

    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("!"):
            close()
            header, entries, names, whitelist = line[1:].strip(), {}, {}, False
            if not header:
                raise RuleError("invalid", f"Line {number}: a list header has a name.", line=number)
            continue
        if line.startswith("$"):
            if header is None:
                raise RuleError("invalid", f"Line {number}: {line} before any !list.", line=number)
            whitelist = whitelist or line.lower() == "$whitelist"
            continue
        m = _LFLIST_ENTRY.match(line)
        if m is None:
            raise RuleError(
                "invalid", f"Line {number}: give <passcode> <status> [--name].", line=number
            )
        if header is None:
            raise RuleError(
                "invalid", f"Line {number}: an entry before any !list header.", line=number
            )
        status = LFLIST_STATUS.get(m.group(2))
        if status is None:
            raise RuleError(
                "invalid",
                f"Line {number}: unknown status {m.group(2)} (0, 1, 2 or 3).",
                line=number,
            )
        if not is_passcode(m.group(1)):
            raise RuleError("invalid", f"Line {number}: {m.group(1)} is no passcode.", line=number)
        key = passcode_key(m.group(1))
        entries[key] = status
        comment = (m.group(3) or "").strip().lstrip("-#").strip()
        if comment:
            names[key] = comment[:MAX_NAME]
    close()
    if not lists:
        raise RuleError("invalid", "The lflist.conf has no !list header.")
    return lists


def pick_lflist(text: str, header: str = "") -> LfList:
    """The list of an `lflist.conf` whose header is `header` (case and width aside), else the
    file's only list. Where the file has several and none is that header, the refusal names
    the ones it has."""
    lists = parse_lflist(text)
    wanted = _key(header)
    for found in lists:
        if _key(found.header) == wanted:
            return found
    if len(lists) == 1:
        return lists[0]
    have = ", ".join(f.header for f in lists)
    raise RuleError(
        "invalid", f"Choose one of the file's lists by its header: {have}.", list=header
    )


def is_lflist(text: str) -> bool:
    """Whether a ban-list file is an `lflist.conf` (its first meaningful line is `!header`)."""
    for raw in text.lstrip("\ufeff").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            return line.startswith("!")
    return False


def parse_names_csv(text: str) -> list[tuple[int, str]]:
    """A CSV of `passcode,name` a line (a first line `passcode,name` or `id,name` is a header;
    `#` lines are comments). A line without both is refused with its number."""
    rows: list[tuple[int, str]] = []
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        code, sep, name = line.partition(",")
        code, name = code.strip(), name.strip().strip('"').strip()
        if number == 1 and code.lower() in ("passcode", "id", "code"):
            continue
        if not sep or not is_passcode(code) or not name or len(name) > MAX_NAME:
            raise RuleError(
                "invalid",
                f"Line {number}: give passcode,name (a name of 1 to {MAX_NAME} characters).",
                line=number,
            )
        rows.append((int(code), name))
    if not rows:
        raise RuleError("invalid", "The file names no card.")
    return rows


def _key(header: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", header).casefold().split())
