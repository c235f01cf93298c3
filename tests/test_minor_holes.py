"""Small holes, each closed with a coded refusal: a rejection's reason at an event table is read
by whom its judge call's is (R7.1); organiser inputs that gave 500 are `400 invalid`; a Swiss
name no join would take, and a date that is no day, are refused when typed."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from server.rules import event_for, view
from tests.rules_helpers import Table
from tests.test_swiss_api import Org


@pytest.fixture
def org(app: Flask, client: FlaskClient) -> Org:
    return Org(app, client)


def disputed(staff_start: bool) -> Table:
    t = Table(staff_start=staff_start).register().start_duel()
    entry = t.propose("A", ("B", "damage", 1800))
    t.do("B", "lp.reject", entry=entry, reason="it was 800")
    return t


def reasons(v: dict[str, Any]) -> list[str]:
    return [d["reason"] for d in v["disputes"]]


def test_an_event_tables_rejection_reason_is_read_as_its_call_is():
    """R7.1: at an event table the reason goes to the judge with the call it makes; the call
    hid it from the other seat and spectators, and the dispute showed it to them (before)."""
    t = disputed(staff_start=True)
    assert reasons(view(t.state, None)) == [""]  # a spectator
    assert reasons(view(t.state, "A")) == [""]  # the seat whose entry was rejected
    assert reasons(view(t.state, "B")) == ["it was 800"]  # the seat that rejected
    assert reasons(view(t.state, None, privileged=True)) == ["it was 800"]  # the judges
    [rejected] = [e for e in t.log if e.type == "lp.rejected"]
    envelope = {"type": rejected.type, "data": dict(rejected.data)}
    assert event_for(envelope, None, judged=True)["data"]["reason"] == ""
    assert event_for(envelope, "A", judged=True)["data"]["reason"] == ""
    assert event_for(envelope, "B", judged=True)["data"]["reason"] == "it was 800"
    assert event_for(envelope, None, True, judged=True)["data"]["reason"] == "it was 800"


def test_a_casual_tables_rejection_reason_is_the_players():
    """No judge at a casual table: the proposer reads why, to settle it (as before)."""
    t = disputed(staff_start=False)
    assert reasons(view(t.state, "A")) == ["it was 800"]


def event(org: Org) -> int:
    return org.event(tables=2)


def refused(answer: Any) -> None:
    assert answer.status_code == 400, (answer.status_code, answer.get_data()[:200])
    assert answer.json["code"] == "invalid"


def test_pairings_csv_that_gave_500(org: Org):
    ev = event(org)
    url = f"/api/events/{ev}/pairings"
    refused(org.call("POST", url, {"csv": "1" * 4400 + ",Yugi,,Kaiba,\n"}))
    refused(org.call("POST", url, {"csv": '1,"' + "x" * 140_000 + '",,Kaiba,\n'}))


def test_ban_lists_that_gave_500(org: Org):
    ev = event(org)
    url = f"/api/events/{ev}/banlist"
    deep = "[" * 100_000 + "]" * 100_000
    refused(org.call("POST", url, {"name": "Deep", "filename": "x.json", "text": deep}))
    wide = "card,status\n" + "x" * 140_000 + ",limited\n"
    refused(org.call("POST", url, {"name": "Wide", "filename": "x.csv", "text": wide}))


def test_a_swiss_name_no_join_would_take_is_refused_at_registration(org: Org):
    ev = event(org)
    url = f"/api/events/{ev}/swiss/players"
    refused(org.call("POST", url, {"name": "Y" * 41, "player_id": "0001"}))
    assert org.call("POST", url, {"name": "Y" * 40, "player_id": "0001"}).status_code == 201


def test_a_date_that_is_no_day_is_refused(org: Org):
    for date in ("2026-99-99", "2026-02-30"):
        answer = org.call("POST", "/api/events", {"name": "Cup", "date": date, "tables": 1})
        assert answer.status_code == 400 and "date" in answer.json["details"], date
    good = org.call("POST", "/api/events", {"name": "Cup", "date": "2028-02-29", "tables": 1})
    assert good.status_code == 201
