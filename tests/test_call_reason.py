"""A judge call's reason is for judges: never in the opponent's or a spectator's view, nor in
the public log; the caller's own phone, judges and the floor see it."""

from __future__ import annotations

from server.projections.floor import summarise
from server.rules import event_for, view
from server.rules.view import shared_view
from tests.rules_helpers import Table

REASON = "opponent is marking cards"


def called() -> Table:
    t = Table().register()
    t.do("A", "judge.call", reason=REASON)
    return t


def test_only_the_caller_and_judges_see_the_reason_in_the_view() -> None:
    s = called().state
    assert view(s, "A")["calls"][0]["reason"] == REASON
    assert view(s, privileged=True)["calls"][0]["reason"] == REASON
    for viewer in (view(s, "B"), view(s, None), shared_view(s)):
        assert REASON not in str(viewer)
    other = view(s, "B")["calls"][0]
    assert (other["seat"], other["status"], other["reason"]) == ("A", "open", "")


def test_the_event_hides_the_reason_from_the_opponent_and_the_public_log() -> None:
    t = called()
    envelope = {"seq": 9, **t.log[-1].to_dict()}
    assert envelope["type"] == "judge.called"
    assert event_for(envelope, "A")["data"]["reason"] == REASON
    assert event_for(envelope, None, privileged=True)["data"]["reason"] == REASON
    for seat in ("B", None):
        hidden = event_for(envelope, seat)
        assert REASON not in str(hidden)
        assert hidden["data"]["call"] == 1


def test_the_floor_shows_the_reason_to_judges() -> None:
    s = called().state
    summary = summarise(view(s, privileged=True), number=1, seq=1)
    assert summary["alerts"][0]["detail"] == REASON
