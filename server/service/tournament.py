"""The tournament service: staff accounts and logins, events, rounds and pairings, judges'
results. Each use case loads rows through the repository (`server/store/tournament.py:
TournamentRows`), decides, stores through it, and writes the tables' logs through the table
service (`server/service/tables.py`), the one publisher.

A casual table has none of this: it has no event, and nobody logs in to use it. An event owns a
set of tables per round (made through the table service, so they get normal codes and logs);
its staff are judge and organiser accounts, each with a hashed password. A staff login is a
random cookie token kept hashed in `StaffSession`, with the CSRF token of that login.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from werkzeug.security import check_password_hash, generate_password_hash

from server.core.errors import Conflict, DomainError, Forbidden, NotFound, Unauthenticated
from server.core.names import clean
from server.core.tokens import hash_token
from server.rules import Actor, RuleError, get_ruleset
from server.rules.ruleset import player_id_required
from server.runtime.offload import Offload
from server.store import EventStore, hall
from server.store.tournament import AccountRecord, EventRecord, RoundRecord, TournamentRows

from .tables import Order, TableService

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,40}$")
MIN_PASSWORD = 8
SESSION_MS = 16 * 3600 * 1000  # a long tournament day
MAX_TABLES = 1000
ROLES = ("judge", "organiser")
MAX_HALL_MESSAGE = hall.MAX_MESSAGE  # the organiser's message on the hall clock
# A staff result as the table's `result.set` arguments ("loss": both players lose).
JUDGE_RESULTS: dict[str, dict[str, Any]] = {
    "A": {"match_winner": "A"},
    "B": {"match_winner": "B"},
    "draw": {"match_winner": None},
    "loss": {"match_winner": None, "double_loss": True},
}


@dataclass(frozen=True)
class Staff:
    """A logged-in account."""

    id: int
    username: str
    kind: str
    csrf: str


@dataclass(frozen=True)
class Pairing:
    """One line of a round's pairings."""

    table: int
    a_name: str
    a_id: str
    b_name: str
    b_id: str


def parse_pairings(text: str) -> list[Pairing]:
    """Read CSV or pasted lines: table, player A name, A ID, player B name, B ID.

    A header line (its first cell not a number) is skipped; tabs and semicolons work as
    separators too (a paste from a spreadsheet). Errors name their line."""
    text = text.removeprefix("\ufeff")  # a byte order mark (a spreadsheet's "CSV UTF-8")
    sample = text[:2000]
    delimiter = "\t" if "\t" in sample else (";" if sample.count(";") > sample.count(",") else ",")
    found: list[Pairing] = []
    seen: set[int] = set()
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:  # a field over the csv module's limit (131,072 characters)
        raise DomainError("invalid", f"Not a pairings CSV: {exc}.") from None
    for lineno, row in enumerate(rows, start=1):
        raw = [c.strip() for c in row]
        # The table number in any decimal digits (full-width too); names and IDs cleaned.
        cells = [raw[0] if raw else "", *(clean(c) for c in raw[1:])]
        if not any(raw):
            continue
        if not cells[0].isdecimal():  # "²" is a digit but not a decimal one: refused
            if lineno == 1 and not any(ch.isdigit() for ch in cells[0]):
                continue  # a header line (its first cell holds no digit at all)
            raise DomainError(
                "invalid",
                f"Line {lineno}: the first column is the table number.",
                {"line": [lineno]},
            )
        for cell, before in zip(cells[1:5], raw[1:5], strict=False):
            if before and not cell:
                raise DomainError(
                    "invalid",
                    f"Line {lineno}: a name or ID is only invisible characters.",
                    {"line": [lineno]},
                )
        cells += [""] * (5 - len(cells))
        if len(cells[0]) > 6:  # no event has a million tables (and int() refuses 4,300 digits)
            raise DomainError(
                "invalid", f"Line {lineno}: there is no table {cells[0][:12]}…", {"line": [lineno]}
            )
        number = int(cells[0])
        if number in seen:
            raise DomainError("invalid", f"Line {lineno}: table {number} appears twice.")
        if any(len(c) > 40 for c in cells[1:5]):
            raise DomainError("invalid", f"Line {lineno}: a name or ID is over 40 characters.")
        seen.add(number)
        found.append(Pairing(number, cells[1], cells[2], cells[3], cells[4]))
    return found


class Tournament:
    """Accounts, sessions, events, rounds and pairings, on the same database as the tables."""

    def __init__(
        self,
        store: EventStore,
        password_method: str,
        offload: Offload | None = None,
        tables: TableService | None = None,
    ) -> None:
        self.store = store
        self.rows = TournamentRows()  # the events', rounds', staff's and logins' rows
        # What writes the tables' logs (the app's table service); None for a script that only
        # manages accounts.
        self._tables = tables
        self.password_method = password_method
        # Where password hashes run (the app's pool under gevent; a script's own otherwise).
        self.offload = offload or Offload()
        _dummy_hash(password_method)  # a bad method fails here, at start, not at a login

    @property
    def logs(self) -> TableService:
        """What writes the tables' logs."""
        if self._tables is None:
            raise RuntimeError("this tournament store writes no tables")
        return self._tables

    # -- accounts and sessions ----------------------------------------------------------------

    def create_account(self, username: str, password: str, kind: str, now_ms: int) -> AccountRecord:
        """A new account; the username must be free."""
        if not USERNAME.match(username):
            raise DomainError("invalid", "A username has 3 to 40 letters, digits, '_', '.' or '-'.")
        if len(password) < MIN_PASSWORD:
            raise DomainError("invalid", f"A password has at least {MIN_PASSWORD} characters.")
        if kind not in ROLES:
            raise DomainError("invalid", "An account is a judge or an organiser.")
        hashed = self.offload.run(generate_password_hash, password, self.password_method)
        return self.rows.add_account(username, hashed, kind, now_ms)  # Conflict: username_taken

    def login(self, username: str, password: str, now_ms: int) -> tuple[str, Staff]:
        """Check a password and open a session; returns the cookie token (shown once)."""
        account = self.rows.account_by_username(username)
        # Hash even for an unknown name, so timing does not tell which names exist.
        stored = account.password_hash if account else _dummy_hash(self.password_method)
        if not self.offload.run(check_password_hash, stored, password) or account is None:
            raise Unauthenticated("bad_login", "Wrong username or password.")
        if not stored.startswith(self.password_method + "$"):
            # Hashed under another method: hashed again under today's, so every login
            # costs what an unknown name's does (timing does not tell old accounts apart).
            rehashed = self.offload.run(generate_password_hash, password, self.password_method)
            self.rows.set_password_hash(account.id, rehashed)
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        self.rows.open_session(hash_token(token), account.id, csrf, now_ms + SESSION_MS, now_ms)
        return token, Staff(account.id, account.username, account.kind, csrf)

    def session(self, token: str | None, now_ms: int) -> Staff | None:
        """The account logged in with this cookie token, or None."""
        if not token or len(token) > 100:
            return None
        row = self.rows.session_for_token(hash_token(token))
        if row is None or row.expires_ms < now_ms:
            return None
        return Staff(row.account_id, row.username, row.kind, row.csrf)

    def logout(self, token: str) -> None:
        self.rows.end_session(hash_token(token))

    def event_by_slug(self, slug: str) -> EventRecord:
        """The event of a table card's short address (NotFound: no_such_event)."""
        ev = self.rows.event_by_slug(slug)
        if ev is None:
            raise NotFound("no_such_event", "No such event.")
        return ev

    def set_hall_message(self, event_id: int, text: str, now_ms: int) -> dict[str, Any] | None:
        """Show `text` on the event's hall clock (an empty text takes the message down)."""
        return hall.set_message(event_id, text, now_ms)

    def live_sessions(self, token_hashes: list[str], now_ms: int) -> set[str]:
        """Which of the logins (their token hashes) have not ended nor expired."""
        return self.rows.live_token_hashes(token_hashes, now_ms)

    # -- roles ----------------------------------------------------------------------------------

    def role(self, staff: Staff | None, event_id: int | None) -> str | None:
        """The staff member's role at an event ("judge" / "organiser"), or None."""
        if staff is None or event_id is None:
            return None
        return self.rows.role_of(event_id, staff.id)

    def table_event(self, code: str) -> int | None:
        """The event a table belongs to (None: a casual table, or no such table)."""
        return self.rows.event_of_table(code)

    def table_actor(self, staff: Staff | None, code: str) -> Actor | None:
        """The actor a logged-in judge or organiser is at this table, or None."""
        role = self.role(staff, self.table_event(code))
        if role is None or staff is None:
            return None
        return Actor(role=role, name=staff.username)

    def spectators_allowed(self, code: str) -> bool:
        """Whether a token-less viewer may watch this table (always, at a casual table)."""
        event_id = self.table_event(code)
        if event_id is None:
            return True
        ev = self.rows.event(event_id)
        return bool(ev is None or ev.spectators)

    # -- events ---------------------------------------------------------------------------------

    def create_event(
        self,
        owner: Staff,
        name: str,
        date: str,
        ruleset: str,
        match_minutes: int,
        tables: int,
        now_ms: int,
        require_player_id: bool | None = None,
    ) -> EventRecord:
        """A new event with its first round's tables; its creator is its organiser. A player ID
        is required at its tables by its rule set's default unless ``require_player_id`` says
        otherwise (R1.1)."""
        if owner.kind != "organiser":
            raise Forbidden("forbidden", "Only an organiser creates events.")
        if not 1 <= tables <= MAX_TABLES:
            raise DomainError("invalid", f"An event has 1 to {MAX_TABLES} tables.")
        try:
            rules = get_ruleset(ruleset, match_minutes=match_minutes)
        except RuleError as exc:
            raise DomainError(exc.code, exc.message) from None
        fields = {
            "name": name,
            "date": date,
            "ruleset": rules.to_dict(),
            "table_count": tables,
            "require_player_id": (
                player_id_required(rules.name) if require_player_id is None else require_player_id
            ),
            "slug": secrets.token_urlsafe(9),
            "created_ms": now_ms,
        }
        ev = self.rows.add_event(fields, owner.id, "organiser")
        self.make_round(ev, 1, now_ms)
        return ev

    def make_round(self, ev: EventRecord, number: int, now_ms: int) -> RoundRecord:
        """Round `number` of `ev`, with its tables (the pairing store's rounds come here too)."""
        rnd = self.rows.add_round(ev.id, number)
        # Only staff start an event table's clock: the round starts every table at once.
        rules = get_ruleset(
            ev.ruleset["name"], match_minutes=ev.ruleset["match_minutes"], staff_start=True
        )
        for n in range(1, ev.table_count + 1):
            code = self.logs.create_table(rules, now_ms)
            self.rows.add_round_table(ev.id, rnd.id, n, code)
            # Let other greenlets (and gunicorn's heartbeat) run between tables: a large event
            # is a few thousand commits.
            time.sleep(0)
        return rnd

    def events_of(self, staff: Staff) -> list[dict[str, Any]]:
        """The events where this account is staff, newest first."""
        return [
            {**self._event_dict(e), "role": role}
            for e, role in self.rows.events_of_account(staff.id)
        ]

    @staticmethod
    def _event_dict(ev: EventRecord) -> dict[str, Any]:
        return {
            "id": ev.id,
            "name": ev.name,
            "date": ev.date,
            "ruleset": ev.ruleset["name"],
            "match_minutes": ev.ruleset["match_minutes"],
            "tables": ev.table_count,
            "spectators": ev.spectators,
            "require_player_id": ev.require_player_id,
            "slug": ev.slug,
        }

    def event(self, event_id: int) -> EventRecord:
        ev = self.rows.event(event_id)
        if ev is None:
            raise NotFound("no_such_event", "No such event.")
        return ev

    def event_detail(self, event_id: int) -> dict[str, Any]:
        """An event with its rounds, the current round's tables and its staff."""
        ev = self.event(event_id)
        rnd = self.current_round(event_id)
        rounds = self.rows.rounds_of(event_id)
        staff = self.rows.staff_of(event_id)
        return {
            **self._event_dict(ev),
            "rounds": rounds,
            "round": rnd.number,
            "tables": self.tables(event_id),
            "staff": staff,
        }

    def set_spectators(self, event_id: int, allowed: bool) -> None:
        self.rows.set_event_fields(event_id, spectators=allowed)

    def set_require_player_id(self, event_id: int, required: bool) -> None:
        """R1.1: whether a join at this event's tables must give a player ID."""
        self.rows.set_event_fields(event_id, require_player_id=required)

    def reissue_cards(self, event_id: int) -> int:
        """Void every printed table card of the event: the next printing's claims are new."""
        self.event(event_id)
        self.rows.next_cards_issue(event_id)
        return int(self.event(event_id).cards_issue)

    def add_judge(self, event_id: int, username: str, password: str | None, now_ms: int) -> str:
        """Make a judge account (or take an existing judge's) and add it to the event."""
        self.event(event_id)
        account = self.rows.account_by_username(username)
        if account is None:
            if not password:
                raise DomainError("invalid", "A new judge needs a password.")
            account = self.create_account(username, password, "judge", now_ms)
        elif password:
            raise Conflict(
                "username_taken",
                "That account exists; leave the password empty to add it.",
            )
        elif account.kind != "judge":
            # Only judge accounts are added: an organiser is never made staff of another's
            # event without asking (decisions.md, "Adding staff").
            raise Conflict("not_a_judge", "Only a judge account can be added.")
        self.rows.add_staff(event_id, account.id, "judge")  # Conflict: already_done
        return account.username

    def remove_judge(self, event_id: int, username: str) -> list[str]:
        """Take a judge off the event; the token hashes of that account's open sessions (so
        its sockets can be closed)."""
        self.event(event_id)
        sessions = self.rows.remove_staff(event_id, username, "judge")
        if sessions is None:
            raise NotFound("no_such_judge", "No judge of this event has that name.")
        return sessions

    # -- rounds and tables ------------------------------------------------------------------

    def current_round(self, event_id: int) -> RoundRecord:
        rnd = self.rows.latest_round(event_id)
        if rnd is None:
            raise NotFound("no_such_event", "No such event.")
        return rnd

    def tables(self, event_id: int, round_no: int | None = None) -> list[dict[str, Any]]:
        """The tables of a round (the current one by default), by number."""
        rnd = self._round(event_id, round_no)
        return [
            {"number": t["number"], "code": t["code"], "round": rnd.number, "pairing": t["pairing"]}
            for t in self.rows.tables_of_round(rnd.id)
        ]

    def _round(self, event_id: int, round_no: int | None) -> RoundRecord:
        if round_no is None:
            return self.current_round(event_id)
        rnd = self.rows.round_by_number(event_id, round_no)
        if rnd is None:
            raise NotFound("no_such_round", "No such round.")
        return rnd

    def in_play(self, event_id: int, round_no: int | None = None) -> list[dict[str, Any]]:
        """The tables that are part of a round: paired, or with a seat taken. A top cut, or a
        round paired by hand over fewer tables than the event has, leaves the others out:
        they are neither started, nor counted as playing, nor waited for."""
        return self.playing(self.tables(event_id, round_no))

    def playing(self, tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Those of `tables` (a round's) that are part of it (`in_play`)."""
        unpaired = [str(t["code"]) for t in tables if not is_paired(t)]
        snaps = self.store.snapshots(unpaired) if unpaired else {}
        found = []
        for table in tables:
            snap = snaps.get(str(table["code"]))
            if is_paired(table) or (
                snap is not None and any(s.joined for s in snap.state.seats.values())
            ):
                found.append(table)
        return found

    def round_paired(self, event_id: int) -> bool:
        """Whether the current round has its pairing (one paired table at least)."""
        return any(is_paired(t) for t in self.tables(event_id))

    def pairings(self, event_id: int) -> dict[str, dict[str, dict[str, str]]]:
        """Table code -> its pairing, for the paired tables of the current round."""
        return {
            t["code"]: t["pairing"]
            for t in self.tables(event_id)
            if t["pairing"]["A"]["name"] or t["pairing"]["B"]["name"]
        }

    def codes(self, event_id: int) -> dict[str, int]:
        """Table code -> table number, for the tables of the current round the floor shows:
        once the round is paired, its tables in play (a top cut's unused tables leave the
        floor); before, every table (players may already sit and register decks)."""
        tables = self.tables(event_id)
        if any(is_paired(t) for t in tables):
            tables = self.in_play(event_id)
        return {t["code"]: t["number"] for t in tables}

    def table_info(self, code: str) -> dict[str, Any] | None:
        """A table's event, round, number and pairing (None: not an event table)."""
        return self.rows.table_info(code)

    def round_ended(self, code: str) -> bool:
        """Whether the round of event table `code` has ended (its cards' claims with it)."""
        return self.rows.round_of_table_ended(code)

    def seat_link(self, slug: str, number: int) -> str:
        """The code of table `number` in the current round of the event with this slug."""
        ev = self.rows.event_by_slug(slug)
        if ev is None:
            raise NotFound("no_such_event", "No such event.")
        for table in self.tables(ev.id):
            if table["number"] == number:
                return str(table["code"])
        raise NotFound("no_such_table", "No table has this number.")

    def set_pairings(self, event_id: int, pairings: list[Pairing]) -> int:
        """Store the current round's pairings (tables not listed keep theirs)."""
        rnd = self.current_round(event_id)
        if rnd.started_ms is not None:
            raise Conflict(
                "round_started",
                f"Round {rnd.number} has started: its pairing stays. End it, then pair round "
                f"{rnd.number + 1}.",
            )
        ev = self.event(event_id)
        for p in pairings:
            if not 1 <= p.table <= ev.table_count:
                raise DomainError("invalid", f"There is no table {p.table}.")
        self.rows.set_pairings(
            rnd.id, [(p.table, p.a_name, p.a_id, p.b_name, p.b_id) for p in pairings]
        )
        return len(pairings)

    def start_round(self, event_id: int, actor: Actor, now_ms: int) -> dict[str, Any]:
        """Start every table's match clock at the same server instant `now_ms`; each table is
        published as soon as its start is stored."""
        rnd = self.current_round(event_id)
        if rnd.ended_ms is not None:
            raise Conflict(
                "round_ended",
                f"Round {rnd.number} has ended: pair round {rnd.number + 1}, then start it.",
                {"round": rnd.number},
            )
        tables = self.in_play(event_id)
        if not any(is_paired(t) for t in tables):
            raise Conflict(
                "round_not_paired",
                f"Round {rnd.number} has no pairing yet: pair it first (Pair round "
                f"{rnd.number}, or paste its pairings), then start it.",
                {"round": rnd.number},
            )
        self.rows.set_round_started(rnd.id, now_ms)
        started, seqs = 0, {}
        refused: list[dict[str, Any]] = []
        cmd_id = f"round:{rnd.id}:start"
        orders: list[Order] = [(str(t["code"]), "clock.start", {}, actor, cmd_id) for t in tables]
        # Decided one after another while the committer writes them; each table's phones are
        # told as soon as it is stored, not after the whole hall.
        answers = self.logs.append_many(orders, now_ms, publish=True)
        for table in tables:
            answer = answers[str(table["code"])]
            if isinstance(answer, Exception):
                refused.append(
                    {"table": table["number"], "code": answer.code, "message": answer.message}
                )
                continue
            seqs[table["code"]] = answer.seq
            started += 0 if answer.duplicate else 1
        return {
            "round": rnd.number,
            "started": started,
            "refused": refused,
            "seqs": seqs,
            "now_ms": now_ms,
        }

    def judge_result(
        self,
        event_id: int,
        round_no: int | None,
        number: int,
        result: str,
        actor: Actor,
        now_ms: int,
    ) -> tuple[str, int]:
        """A judge's or the organiser's result for one table (a no-show, a penalty, a table
        out of time): one `match.decided` on the table's own log, the match's only result.
        The table closes (its clock stops, its alerts clear) and the floor, the hall, End
        round, the standings and results.csv all read it from there. A result entered on a
        match that is over corrects it. Returns the table's code and its new seq."""
        if result not in JUDGE_RESULTS:
            raise DomainError("invalid", "The result is A, B, draw or loss (both lose).")
        table = next((t for t in self.tables(event_id, round_no) if t["number"] == number), None)
        if table is None:
            raise NotFound("no_such_table", "No such table in that round.")
        code = str(table["code"])
        args: dict[str, Any] = dict(JUDGE_RESULTS[result])
        if self.store.snapshot(code).state.phase == "match_over":
            args["correct"] = True
        try:
            done = self.logs.append(code, "result.set", args, actor, None, now_ms)
        except RuleError as exc:
            raise Conflict(exc.code, exc.message) from None
        return code, done.seq

    def set_aside_round(self, event_id: int, actor: Actor, now_ms: int) -> dict[str, int]:
        """A judge's re-pair after the start: the current round's tables leave it (their logs
        stay, their running clocks are paused) and the round is not started any more, so the
        new pairing goes on fresh tables and starts again. The seqs of the tables paused."""
        rnd = self.current_round(event_id)
        seqs: dict[str, int] = {}
        for table in self.tables(event_id):
            if self.store.snapshot(table["code"]).state.clock.status == "running":
                cmd_id = f"round:{rnd.id}:set-aside"
                done = self.logs.append(table["code"], "clock.pause", {}, actor, cmd_id, now_ms)
                seqs[table["code"]] = done.seq
        self.rows.set_aside_round(rnd.id)
        return seqs

    def no_shows(self, event_id: int, now_ms: int, no_show_ms: int) -> list[int]:
        """The current round's paired tables with a seat still empty `no_show_ms` after the
        round's start, and no result yet (what the floor's no-show alert says)."""
        rnd = self.current_round(event_id)
        if rnd.started_ms is None or now_ms < rnd.started_ms + no_show_ms:
            return []
        found = []
        for table in self.tables(event_id):
            if not is_paired(table):
                continue
            state = self.store.snapshot(table["code"]).state
            if state.phase != "match_over" and not all(s.joined for s in state.seats.values()):
                found.append(int(table["number"]))
        return found

    def unfinished(self, event_id: int) -> list[dict[str, Any]]:
        """The current round's tables whose match is not over (still playing, or never
        joined), with their phase and paired names: what "End round" asks about."""
        found = []
        for table in self.in_play(event_id):
            state = self.store.snapshot(table["code"]).state
            if state.phase == "match_over":
                continue
            names = {k: s.name for k, s in state.seats.items()}
            for k, p in table["pairing"].items():
                names[k] = names[k] or p["name"]
            found.append(
                {
                    "number": table["number"],
                    "code": table["code"],
                    "phase": state.phase,
                    "names": names,
                }
            )
        return found

    def end_round(
        self, event_id: int, actor: Actor, now_ms: int
    ) -> tuple[int, list[dict[str, Any]], dict[str, int]]:
        """Mark the current round ended (results stay on its tables) and tell the phones of
        the tables still playing (a `round_ended` flag). Returns the round's number, those
        tables, and the new sequence number of each table told."""
        rnd = self.current_round(event_id)
        if rnd.started_ms is None:
            raise Conflict(
                "round_not_started",
                f"Round {rnd.number} has not started: start it first.",
                {"round": rnd.number},
            )
        self.rows.set_round_ended(rnd.id, now_ms)
        unfinished = self.unfinished(event_id)
        seqs: dict[str, int] = {}
        for table in unfinished:
            cmd_id = f"round:{rnd.id}:end"
            try:
                done = self.logs.append(
                    table["code"], "round.end", {"round": rnd.number}, actor, cmd_id, now_ms
                )
            except RuleError:
                continue  # told already
            seqs[table["code"]] = done.seq
        return rnd.number, unfinished, seqs

    def next_round(self, event_id: int, now_ms: int) -> int:
        """Open the next round with fresh tables (the table cards' seat links follow)."""
        rnd = self.current_round(event_id)
        self.require_results(event_id, f"open round {rnd.number + 1}")
        if rnd.ended_ms is None:
            raise Conflict(
                "round_not_ended",
                f"End round {rnd.number} first, then open round {rnd.number + 1}.",
                {"round": rnd.number},
            )
        return self.make_round(self.event(event_id), rnd.number + 1, now_ms).number

    def require_results(self, event_id: int, then: str) -> None:
        """Refuse (naming them) while a table of the current round has no result: a table
        never leaves the floor unfinished. A judge's result ends one."""
        rnd = self.current_round(event_id)
        if rnd.started_ms is None:
            if self.round_paired(event_id):
                raise Conflict(
                    "round_not_started",
                    f"Round {rnd.number} is paired but has not started: start it first.",
                    {"round": rnd.number},
                )
            return  # an empty round: nothing to wait for
        missing = [t["number"] for t in self.unfinished(event_id)]
        if missing:
            listed = ", ".join(str(n) for n in missing)
            raise Conflict(
                "results_missing",
                f"Round {rnd.number}: table {listed} has no result yet. Let it finish, or enter "
                f"a judge's result, then {then}.",
                {"round": rnd.number, "tables": missing},
            )


def is_paired(table: dict[str, Any]) -> bool:
    pairing = table["pairing"]
    return bool(pairing["A"]["name"] or pairing["B"]["name"])


@functools.cache
def _dummy_hash(method: str) -> str:
    return generate_password_hash(secrets.token_hex(16), method)
