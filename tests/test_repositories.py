"""The store's repositories (`server/store/tournament.py: TournamentRows`,
`server/store/swiss.py: SwissRows`): what each persistence operation writes and reads, a unique
row's clash raised as `Conflict`, and a use case's several writes kept in one transaction."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from server.core.errors import Conflict
from server.store.swiss import SwissRows
from server.store.tournament import TournamentRows

NOW = 1_764_484_800_000


def an_event(rows: TournamentRows, owner_id: int, slug: str = "slug-one") -> Any:
    fields = {
        "name": "Open",
        "date": "2026-12-06",
        "ruleset": {"name": "standard", "match_minutes": 50},
        "table_count": 2,
        "require_player_id": False,
        "slug": slug,
        "created_ms": NOW,
    }
    return rows.add_event(fields, owner_id, "organiser")


def test_a_taken_username_is_a_conflict_and_the_first_account_stays(app: Flask) -> None:
    rows = TournamentRows()
    first = rows.add_account("alice", "hash-1", "organiser", NOW)
    with pytest.raises(Conflict) as caught:
        rows.add_account("alice", "hash-2", "judge", NOW + 1)
    assert caught.value.code == "username_taken"
    kept = rows.account_by_username("alice")
    assert kept is not None and kept.id == first.id
    assert (kept.password_hash, kept.kind) == ("hash-1", "organiser")
    rows.set_password_hash(first.id, "hash-3")
    assert rows.account_by_username("alice").password_hash == "hash-3"  # type: ignore[union-attr]
    assert rows.account_by_username("bob") is None


def test_a_login_is_stored_read_by_its_hash_and_the_expired_ones_go(app: Flask) -> None:
    rows = TournamentRows()
    account = rows.add_account("judy", "hash", "judge", NOW)
    rows.open_session("old", account.id, "csrf-old", NOW + 10, NOW)
    assert rows.live_token_hashes(["old"], NOW) == {"old"}
    # The next login, after the first expired, forgets it in the same transaction.
    rows.open_session("new", account.id, "csrf-new", NOW + 1000, NOW + 20)
    assert rows.session_for_token("old") is None
    login = rows.session_for_token("new")
    assert login is not None
    assert (login.account_id, login.username, login.kind) == (account.id, "judy", "judge")
    assert (login.csrf, login.expires_ms) == ("csrf-new", NOW + 1000)
    assert rows.live_token_hashes(["new", "old"], NOW + 1000) == {"new"}
    assert rows.live_token_hashes(["new"], NOW + 1001) == set()
    rows.end_session("new")
    assert rows.session_for_token("new") is None


def test_staff_once_per_event_and_removed_only_in_its_role(app: Flask) -> None:
    rows = TournamentRows()
    owner = rows.add_account("olga", "hash", "organiser", NOW)
    judge = rows.add_account("jack", "hash", "judge", NOW)
    ev = an_event(rows, owner.id)
    assert rows.role_of(ev.id, owner.id) == "organiser"
    assert [e.id for e, role in rows.events_of_account(owner.id) if role == "organiser"] == [ev.id]
    rows.add_staff(ev.id, judge.id, "judge")
    with pytest.raises(Conflict) as caught:
        rows.add_staff(ev.id, judge.id, "judge")
    assert caught.value.code == "already_done"
    assert rows.staff_of(ev.id) == [
        {"username": "jack", "role": "judge"},
        {"username": "olga", "role": "organiser"},
    ]
    rows.open_session("jack-token", judge.id, "csrf", NOW + 1000, NOW)
    # Not a judge there (the organiser), nor anyone (no such name): nothing is removed.
    assert rows.remove_staff(ev.id, "olga", "judge") is None
    assert rows.remove_staff(ev.id, "nobody", "judge") is None
    assert rows.role_of(ev.id, owner.id) == "organiser"
    assert rows.remove_staff(ev.id, "jack", "judge") == ["jack-token"]
    assert rows.role_of(ev.id, judge.id) is None


def test_a_round_its_tables_pairings_start_end_and_set_aside(app: Flask) -> None:
    rows = TournamentRows()
    owner = rows.add_account("olga", "hash", "organiser", NOW)
    ev = an_event(rows, owner.id)
    assert rows.event(ev.id).slug == "slug-one"  # type: ignore[union-attr]
    assert rows.event_by_slug("slug-one").id == ev.id  # type: ignore[union-attr]
    assert rows.event_by_slug("none") is None
    first = rows.add_round(ev.id, 1)
    second = rows.add_round(ev.id, 2)
    assert rows.latest_round(ev.id).id == second.id  # type: ignore[union-attr]
    assert rows.round_by_number(ev.id, 1).id == first.id  # type: ignore[union-attr]
    assert rows.round_by_number(ev.id, 3) is None
    rows.add_round_table(ev.id, second.id, 2, "CODE-B")
    rows.add_round_table(ev.id, second.id, 1, "CODE-A")
    rows.set_pairings(second.id, [(2, "Ann", "1", "Ben", "2")])
    assert rows.tables_of_round(second.id) == [
        {
            "number": 1,
            "code": "CODE-A",
            "pairing": {"A": {"name": "", "player_id": ""}, "B": {"name": "", "player_id": ""}},
        },
        {
            "number": 2,
            "code": "CODE-B",
            "pairing": {
                "A": {"name": "Ann", "player_id": "1"},
                "B": {"name": "Ben", "player_id": "2"},
            },
        },
    ]
    assert rows.round_table_codes(ev.id, 2) == {1: "CODE-A", 2: "CODE-B"}
    info = rows.table_info("CODE-B")
    assert info is not None and (info["round"], info["number"]) == (2, 2)
    assert rows.table_info("CODE-A")["pairing"] is None  # type: ignore[index]
    rows.set_round_started(second.id, NOW)
    rows.set_round_started(second.id, NOW + 5)  # a started round keeps its instant
    rows.set_round_ended(second.id, NOW + 9)
    assert rows.round_of_table_ended("CODE-A") is True
    assert rows.rounds_of(ev.id)[1] == {"number": 2, "started_ms": NOW, "ended_ms": NOW + 9}
    rows.set_aside_round(second.id)
    assert rows.tables_of_round(second.id) == []
    assert rows.rounds_of(ev.id)[1] == {"number": 2, "started_ms": None, "ended_ms": None}
    assert rows.round_of_table_ended("CODE-A") is False


def test_the_event_fields_and_the_cards_issue(app: Flask) -> None:
    rows = TournamentRows()
    owner = rows.add_account("olga", "hash", "organiser", NOW)
    ev = an_event(rows, owner.id)
    rows.set_event_fields(ev.id, spectators=False, table_count=5)
    rows.next_cards_issue(ev.id)
    rows.next_cards_issue(ev.id)
    again = rows.event(ev.id)
    assert again is not None
    assert (again.spectators, again.table_count, again.cards_issue) == (False, 5, 3)


def test_players_are_numbered_and_an_import_is_all_or_none(app: Flask) -> None:
    rows = TournamentRows()
    players = SwissRows()
    ev = an_event(rows, rows.add_account("olga", "hash", "organiser", NOW).id)
    ann = players.add_player(ev.id, "Ann", "P1", "", 1, NOW)
    assert ann.number == 1
    with pytest.raises(Conflict) as caught:
        players.add_player(ev.id, "Ann again", "P1", "", 1, NOW)
    assert caught.value.code == "already_done"
    assert players.add_players(ev.id, [("Ben", "P2"), ("Cid", "P3")], 2, NOW) == 1
    with pytest.raises(Conflict) as caught:
        players.add_players(ev.id, [("Dan", "P4"), ("Ann's twin", "P1")], 2, NOW)
    assert caught.value.code == "import_registered"
    # Dan, before the clash in the same import, was not kept either.
    listed = sorted((p.number, p.name, p.entered_round) for p in players.players_of(ev.id))
    assert listed == [(1, "Ann", 1), (2, "Ben", 2), (3, "Cid", 2)]
    assert players.player_with_id(ev.id, "P3").number == 3  # type: ignore[union-attr]
    assert players.player_with_id(ev.id, "p3") is None  # exact only
    players.set_decklist(ann.id, "main: 3 Card")
    assert players.player(ev.id, 1).decklist == "main: 3 Card"  # type: ignore[union-attr]
    assert players.player(ev.id, 9) is None
