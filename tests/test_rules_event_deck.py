"""One deck per event (R2.6): two lists are the same deck whatever their spelling, width or
case; another is refused with what differs."""

from __future__ import annotations

import pytest

from server.rules import RuleError
from server.rules.decklist import parse
from server.rules.event_deck import differences, require_event_list, same_list

REGISTERED = parse("Main\n3 Kuriboh\n2 Pot of Greed\nSide\n1 Mirror Force")


def test_r2_6_the_same_deck_typed_another_way_is_the_same_list():
    again = parse("main\nKURIBOH x3\n２ pot of greed\nside deck\nmirror  force")
    assert same_list(REGISTERED, again)
    require_event_list(REGISTERED, again)
    require_event_list(None, again)  # no list for the event yet: nothing to hold to


def test_r2_6_another_list_is_refused_naming_each_card_that_differs():
    other = parse("Main\n3 Kuriboh\n1 Pot of Greed\n1 Raigeki\nSide\n1 Mirror Force")
    assert not same_list(REGISTERED, other)
    assert differences(REGISTERED, other) == [
        {"part": "main", "card": "Pot of Greed", "registered": 2, "given": 1},
        {"part": "main", "card": "Raigeki", "registered": 0, "given": 1},
    ]
    with pytest.raises(RuleError) as refused:
        require_event_list(REGISTERED, other)
    assert refused.value.code == "deck_not_event_list"
    assert len(refused.value.details["differences"]) == 2


def test_r2_6_a_card_moved_from_side_to_main_is_another_list():
    moved = parse("Main\n3 Kuriboh\n2 Pot of Greed\n1 Mirror Force")
    assert [d["part"] for d in differences(REGISTERED, moved)] == ["main", "side"]
