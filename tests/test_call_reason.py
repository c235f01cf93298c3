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


def test_the_public_sheet_and_export_hide_the_reason_and_staff_read_it() -> None:
    """The score sheet and the exported log are open to anyone with the code when spectators
    are allowed: a call's reason is there only for the event's staff (`names`)."""
    from server.projections.sheet import build_sheet, public_log

    t = called()
    envelopes = [{"seq": i, **e.to_dict()} for i, e in enumerate(t.log, 1)]
    notes = [line.note for line in build_sheet(envelopes, None, False).matches[0].rulings]
    assert REASON not in notes and notes == [""]
    staff = [line.note for line in build_sheet(envelopes, None, True).matches[0].rulings]
    assert staff == [REASON]
    public = [e for e in public_log(envelopes, names=False) if e["type"] == "judge.called"]
    assert REASON not in str(public) and public[0]["hidden"] is True
    assert public[0]["data"]["call"] == 1 and public[0]["data"]["seat"] == "A"
    [kept] = [e for e in public_log(envelopes, names=True) if e["type"] == "judge.called"]
    assert kept["data"]["reason"] == REASON


def test_a_phones_device_id_is_read_by_judges_only() -> None:
    """One phone holding both seats joins with its device id; whoever reads that id could ask
    for the other seat under it and be handed the table's recovery code. Phones, spectators
    and the public export never see it."""
    from server.projections.sheet import public_log

    t = Table()
    t.do("system", "seat.join", seat="A", name="Yugi", player_id="", device="phone-1234")
    envelope = {"seq": 2, **t.log[-1].to_dict()}
    assert envelope["data"]["device"] == "phone-1234"
    for seat in ("A", "B", None):
        assert "phone-1234" not in str(event_for(envelope, seat))
    assert event_for(envelope, None, privileged=True)["data"]["device"] == "phone-1234"
    log = [{"seq": i, **e.to_dict()} for i, e in enumerate(t.log, 1)]
    assert "phone-1234" not in str(public_log(log, names=False))
