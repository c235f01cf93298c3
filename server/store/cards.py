"""Card names an organiser loads, one language at a time, from their own client's `cards.cdb`
(SQLite: `datas` and `texts`, joined by passcode) or a CSV of passcode,name (docs/banlists.md).

No card data ships with the project: without a loaded file, deck lists are matched by the
spelling players type, as before. With names, a pasted name in any loaded language and a
passcode (a `.ydk` file or a `ydke://` link) are one card, shown in the reader's language.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from peewee import BigIntegerField, CharField

from server.core.errors import DomainError
from server.rules import RuleError
from server.rules.cardfiles import MAX_NAME, parse_names_csv
from server.rules.decklist import fold

from .models import BaseModel, db

LANGS = ("en", "ja", "zh-Hant")
COMMENTS = ""  # names an lflist.conf's comments give (no language of their own)
# Which language names a card when the reader's has no name for it.
FALLBACK = (*LANGS, COMMENTS)
MAX_CARDS = 100_000
CHUNK = 500  # names per IN (...) query


class CardName(BaseModel):
    """A card's name in one language: `passcode` as the file gives it, `card` the passcode of
    the card it counts as (an alternate artwork's original), `folded` the matching key."""

    passcode = BigIntegerField()
    card = BigIntegerField()
    lang = CharField(max_length=8)
    name = CharField(max_length=MAX_NAME)
    folded = CharField(max_length=MAX_NAME, index=True)

    class Meta:
        table_name = "card_name"
        indexes = ((("lang", "passcode"), True),)


def _bad(message: str, **details: object) -> DomainError:
    return DomainError("invalid", message, dict(details))


def read_cdb(path: str | Path) -> list[tuple[int, int, str]]:
    """(passcode, the card it counts as, name) of every record of a `cards.cdb`; a file that
    is not a whole SQLite database, lacks `datas` or `texts`, or has a bad record is refused."""
    uri = f"file:{Path(path).resolve()}?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise _bad(f"{path}: not a readable cards.cdb ({exc}).") from None
    try:
        check = con.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            raise _bad(f"{path}: the database is damaged ({check[0] if check else 'no answer'}).")
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"datas", "texts"} <= tables:
            raise _bad(f"{path}: a cards.cdb has the tables datas and texts.")
        rows = con.execute(
            "SELECT t.id, d.alias, t.name FROM texts t JOIN datas d ON d.id = t.id ORDER BY t.id"
        ).fetchall()
    except sqlite3.Error as exc:
        raise _bad(f"{path}: not a readable cards.cdb ({exc}).") from None
    finally:
        con.close()
    out: list[tuple[int, int, str]] = []
    for number, (code, alias, name) in enumerate(rows, start=1):
        if not isinstance(code, int) or not 0 < code < 2**32:
            raise _bad(f"Record {number}: the passcode {code!r} is not a card's.", record=number)
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
            raise _bad(
                f"Record {number} (passcode {code}): a name has 1 to {MAX_NAME} characters.",
                record=number,
            )
        # A record with an alias (an alternate artwork) is its original card, as the clients'
        # own deck check counts it.
        same = alias if isinstance(alias, int) and 0 < alias < 2**32 else code
        out.append((code, same, name.strip()))
    if not out:
        raise _bad(f"{path}: the database names no card.")
    return out


def read_file(path: str | Path) -> list[tuple[int, int, str]]:
    """A `cards.cdb` (by its SQLite header) or a CSV of passcode,name."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise _bad(f"Cannot read {path}: {exc}.") from None
    if head.startswith(b"SQLite format 3") or str(path).lower().endswith((".cdb", ".db")):
        return read_cdb(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
        rows = parse_names_csv(text)
    except UnicodeDecodeError as exc:
        raise _bad(f"{path}: not UTF-8 text ({exc}).") from None
    except RuleError as exc:
        raise _bad(exc.message, **exc.details) from None
    return [(code, code, name) for code, name in rows]


def save(lang: str, rows: Iterable[tuple[int, int, str]]) -> int:
    """Replace every name of `lang` with `rows` in one transaction; the number of cards."""
    if lang not in (*LANGS, COMMENTS):
        raise _bad(f"The language is one of {', '.join(LANGS)}.")
    data = {code: (same, name) for code, same, name in rows}
    if len(data) > MAX_CARDS:
        raise _bad(f"At most {MAX_CARDS} cards a language.")
    fields = [CardName.passcode, CardName.card, CardName.lang, CardName.name, CardName.folded]
    values = [(code, same, lang, name, fold(name)) for code, (same, name) in data.items()]
    with db.connection_context(), db.atomic():
        CardName.delete().where(CardName.lang == lang).execute()
        for i in range(0, len(values), CHUNK):
            CardName.insert_many(values[i : i + CHUNK], fields=fields).execute()
    return len(values)


def save_comments(names: dict[str, str]) -> None:
    """The names an lflist.conf's comments give, for cards no language has loaded yet."""
    rows = [(int(code), int(code), name) for code, name in names.items() if name]
    if not rows:
        return
    with db.connection_context(), db.atomic():
        known = {
            r.passcode
            for r in CardName.select(CardName.passcode).where(
                CardName.lang == COMMENTS, CardName.passcode.in_([c for c, _, _ in rows])
            )
        }
        fields = [CardName.passcode, CardName.card, CardName.lang, CardName.name, CardName.folded]
        fresh = [(c, s, COMMENTS, n, fold(n)) for c, s, n in rows if c not in known]
        for i in range(0, len(fresh), CHUNK):
            CardName.insert_many(fresh[i : i + CHUNK], fields=fields).execute()


def loaded() -> bool:
    """Whether any card names are loaded."""
    with db.connection_context():
        return CardName.select().limit(1).exists()


def resolve(keys: Iterable[str]) -> dict[str, str]:
    """Folded names and passcodes -> the passcode key of the card they are, in any loaded
    language; what no loaded file knows is left out."""
    wanted = sorted({k for k in keys if k})
    if not wanted:
        return {}
    out: dict[str, str] = {}
    codes = [int(k) for k in wanted if k.isdigit() and 0 < int(k) < 2**32]
    with db.connection_context():
        for i in range(0, len(wanted), CHUNK):
            chunk = wanted[i : i + CHUNK]
            query = CardName.select(CardName.folded, CardName.card, CardName.lang)
            for row in query.where(CardName.folded.in_(chunk)).order_by(CardName.lang.desc()):
                out.setdefault(row.folded, str(row.card))  # a language's name before a comment's
        for i in range(0, len(codes), CHUNK):
            chunk_codes = codes[i : i + CHUNK]
            query = CardName.select(CardName.passcode, CardName.card)
            for row in query.where(CardName.passcode.in_(chunk_codes)):
                out.setdefault(str(row.passcode), str(row.card))
    return out


def names_of(keys: Iterable[str], lang: str) -> dict[str, str]:
    """Passcode keys -> the card's name in `lang`, else in another loaded language; keys no
    file names (and typed names) are left out."""
    codes = sorted({int(k) for k in keys if k.isdigit() and 0 < int(k) < 2**32})
    if not codes:
        return {}
    order = [lang, *[x for x in FALLBACK if x != lang]]
    best: dict[int, tuple[int, str]] = {}
    with db.connection_context():
        for i in range(0, len(codes), CHUNK):
            chunk = codes[i : i + CHUNK]
            query = CardName.select(CardName.passcode, CardName.card, CardName.lang, CardName.name)
            rows = query.where(CardName.passcode.in_(chunk) | CardName.card.in_(chunk))
            for row in rows:
                # A card is named by its own record, else by one of its alternate artworks'.
                for code in {row.passcode, row.card} & set(chunk):
                    rank = order.index(row.lang) if row.lang in order else len(order)
                    rank = rank * 2 + (code != row.passcode)
                    if code not in best or rank < best[code][0]:
                        best[code] = (rank, row.name)
    return {str(code): name for code, (_, name) in best.items()}


def suggest(text: str, lang: str, limit: int = 8) -> list[dict[str, str]]:
    """Names in `lang` holding the typed text (case and width aside), those starting with it
    first: [{"passcode", "name"}]."""
    key = fold(text)
    if not key:
        return []
    base = CardName.select(CardName.card, CardName.name, CardName.folded)
    with db.connection_context():
        # Names starting with the text first, then names holding it (startswith() and
        # contains() escape LIKE's wildcards in the typed text).
        rows = list(
            base.where((CardName.lang == lang) & CardName.folded.startswith(key))
            .order_by(CardName.folded)
            .limit(limit * 4)
        )
        rows += list(
            base.where((CardName.lang == lang) & CardName.folded.contains(key))
            .order_by(CardName.folded)
            .limit(200)
        )
    ranked = sorted(rows, key=lambda r: (not r.folded.startswith(key), len(r.folded), r.folded))
    seen: set[int] = set()
    out: list[dict[str, str]] = []
    for row in ranked:
        if row.card in seen:
            continue
        seen.add(row.card)
        out.append({"passcode": str(row.card), "name": row.name})
        if len(out) >= limit:
            break
    return out
