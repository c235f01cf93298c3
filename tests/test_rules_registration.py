"""Deck lists at the table: the ban list in force (R2.5), registering a list card by card
(R1.6, R2.1-R2.5), its privacy, side decking by card (R6.8, R2.6) and the return to the
registered list at every match (R2.7)."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules import event_for, view
from tests.rules_helpers import Table

BANS = [
    ["Pot of Greed", "forbidden"],
    ["強欲な壺", "forbidden"],
    ["強欲之壺", "forbidden"],
    ["Monster Reborn", "limited"],
    ["Mirror Force", "semi_limited"],
]


def main_cards(n: int = 40, prefix: str = "Card") -> list[str]:
    """Lines of ``n`` distinct-enough cards, three copies each."""
    lines = [f"3 {prefix} {i}" for i in range(n // 3)]
    if n % 3:
        lines.append(f"{n % 3} {prefix} {n // 3}")
    return lines


def deck_text(
    extra_main: list[str] | None = None,
    main: int = 40,
    side: list[str] | None = None,
    extra: list[str] | None = None,
) -> str:
    """A list: ``main`` filler cards minus the ones ``extra_main`` lines add."""
    added = sum(int(line.split()[0]) for line in extra_main or [])
    lines = ["Main Deck", *main_cards(main - added), *(extra_main or [])]
    if extra:
        lines += ["Extra Deck", *extra]
    if side:
        lines += ["Side Deck", *side]
    return "\n".join(lines)


LEGAL = deck_text(
    ["3 Kuriboh", "1 Monster Reborn"],
    side=["2 Mirror Force", "3 Raigeki"],
    extra=["2 Dark Paladin"],
)


def with_bans(t: Table | None = None) -> Table:
    t = t or Table().join()
    t.do("judge", "banlist.set", name="2026-10", entries=BANS)
    return t


def registered(text_a: str = LEGAL, text_b: str = LEGAL) -> Table:
    """Both seats registered their lists and confirmed each other's: duel 1's checklist."""
    t = with_bans()
    t.do("A", "deck.register", text=text_a)
    t.do("B", "deck.register", text=text_b)
    t.do("A", "deck.confirm", seat="B")
    t.do("B", "deck.confirm", seat="A")
    assert t.state.phase == "pregame"
    return t


def problems_of(t: Table, text: str) -> list[dict[str, Any]]:
    err = t.refuse("A", "deck.register", "deck_illegal", text=text)
    found: list[dict[str, Any]] = err.details["problems"]
    for p in found:
        assert str(p["message"]).startswith(str(p["rule"]))
        assert str(p["rule"]) in err.message
    return found


# --- the ban list in force (R2.5) ---------------------------------------------------------


@pytest.mark.parametrize("who", ["judge", "organiser", "system"])
def test_r2_5_banlist_set_by_staff_or_the_server(who: str) -> None:
    t = Table().join()
    t.do(who, "banlist.set", name="2026-10", entries=BANS)
    assert t.state.banlist is not None and t.state.banlist.name == "2026-10"
    assert view(t.state)["banlist"] == {"name": "2026-10", "size": 5}


def test_r2_5_a_seat_never_sends_ban_list_entries() -> None:
    t = Table().join()
    t.refuse("A", "banlist.set", "forbidden", name="mine", entries=[])


@pytest.mark.parametrize(
    "args",
    [
        {"name": "x", "entries": [["Card", "banned-ish"]]},
        {"name": "x", "entries": [["Card"]]},
        {"name": "x", "entries": "Pot of Greed"},
        {"name": "", "entries": [["Card", "limited"]]},
        {"name": "x" * 81, "entries": []},
    ],
)
def test_r2_5_banlist_set_refusals(args: dict[str, Any]) -> None:
    Table().join().refuse("judge", "banlist.set", "invalid", **args)


def test_r2_5_banlist_only_before_any_list_is_registered() -> None:
    t = with_bans()
    t.do("A", "deck.register", text=LEGAL)
    t.refuse("judge", "banlist.set", "lists_registered", name="other", entries=[])


def test_r2_5_banlist_cleared_with_no_name() -> None:
    t = with_bans()
    t.do("judge", "banlist.set", name="", entries=[])
    assert t.state.banlist is None and view(t.state)["banlist"] is None
    t.refuse("judge", "banlist.set", "already_done", name="")


# --- registering a list (R1.6, R2.1-R2.5) -------------------------------------------------


def test_r1_6_a_legal_list_is_registered_with_its_counts() -> None:
    t = with_bans()
    (e,) = t.do("A", "deck.register", text=LEGAL)
    assert e.type == "deck.registered" and e.data["counts"] == {"main": 40, "extra": 2, "side": 5}
    deck = t.state.decks["A"]
    assert deck.registered is not None and deck.registered.to_dict() == e.data["counts"]
    assert deck.cards == deck.current_cards and not deck.confirmed
    assert deck.cards is not None and deck.cards.main["Kuriboh"] == 3
    assert t.replayed() == t.state


def test_r6_2_opponent_confirms_a_registered_list_like_counts() -> None:
    t = with_bans()
    t.do("A", "deck.register", text=LEGAL)
    t.refuse("A", "deck.confirm", "own_entry", seat="A")
    t.do("B", "deck.confirm", seat="A")
    t.do("B", "deck.declare", main=40, extra=0, side=0)
    events = t.do("A", "deck.confirm", seat="B")
    assert t.types(events) == ["deck.confirmed", "pregame.opened"]


def test_r2_8_registering_again_needs_a_new_confirmation() -> None:
    t = with_bans()
    t.do("A", "deck.register", text=LEGAL)
    t.do("B", "deck.confirm", seat="A")
    t.do("A", "deck.register", text=deck_text(["3 Kuriboh"]))
    assert not t.state.decks["A"].confirmed


def test_r2_8_no_registration_once_the_match_is_under_way() -> None:
    t = registered()
    t.start_duel()
    t.refuse("A", "deck.register", "wrong_phase", text=LEGAL)


@pytest.mark.parametrize(
    ("text", "rule", "part", "count"),
    [
        (deck_text(main=39), "R2.1", "main", 39),
        (deck_text(main=61), "R2.1", "main", 61),
        (deck_text(extra=main_cards(16, "Fusion")), "R2.2", "extra", 16),
        (deck_text(side=main_cards(16, "Side")), "R2.3", "side", 16),
    ],
)
def test_r2_1_r2_3_register_refuses_sizes(text: str, rule: str, part: str, count: int) -> None:
    (found,) = problems_of(with_bans(), text)
    assert (found["rule"], found["code"], found["part"], found["count"]) == (
        rule,
        "deck_size",
        part,
        count,
    )


def test_r2_4_register_counts_copies_across_main_side_and_extra() -> None:
    text = deck_text(["3 Kuriboh"], side=["1 kuriboh"])
    (found,) = problems_of(with_bans(), text)
    assert (found["rule"], found["card"], found["count"]) == ("R2.4", "Kuriboh", 4)


@pytest.mark.parametrize(
    ("lines", "side", "card", "code"),
    [
        (["1 Pot of Greed"], [], "Pot of Greed", "forbidden"),
        ([], ["1 pot of greed"], "Pot of Greed", "forbidden"),  # the side deck counts too
        (["1 Monster Reborn"], ["1 Monster Reborn"], "Monster Reborn", "limited"),
        (["2 Mirror Force"], ["1 Mirror Force"], "Mirror Force", "semi_limited"),
    ],
)
def test_r2_5_register_refuses_ban_list_counts(
    lines: list[str], side: list[str], card: str, code: str
) -> None:
    (found,) = problems_of(with_bans(), deck_text(lines, side=side))
    assert (found["rule"], found["code"], found["card"]) == ("R2.5", code, card)


def test_r2_5_without_a_ban_list_only_the_construction_rules_apply() -> None:
    t = Table().join()
    t.do("A", "deck.register", text=deck_text(["1 Pot of Greed"]))


@pytest.mark.parametrize(
    ("line", "card"),
    [
        ("1 強欲な壺", "強欲な壺"),  # Japanese
        ("１ 強欲之壺", "強欲之壺"),  # Chinese, full-width count
        ("1 ＰＯＴ　ＯＦ　ＧＲＥＥＤ", "Pot of Greed"),  # full-width English, ideographic space
        ("Pot of Greed ×1", "Pot of Greed"),
    ],
)
def test_r2_5_forbidden_names_in_three_languages_and_full_width(line: str, card: str) -> None:
    text = deck_text([line]) if line[0] != "P" else LEGAL + "\n" + line
    (found,) = problems_of(with_bans(), text)
    assert (found["rule"], found["code"], found["card"]) == ("R2.5", "forbidden", card)


def test_r2_1_r2_4_r2_5_every_problem_is_named_at_once() -> None:
    text = deck_text(["1 Pot of Greed", "3 Kuriboh"], main=39, side=["3 Kuriboh", "3 Mirror Force"])
    found = problems_of(with_bans(), text)
    assert [(p["rule"], p["code"]) for p in found] == [
        ("R2.1", "deck_size"),
        ("R2.4", "too_many_copies"),
        ("R2.5", "semi_limited"),
        ("R2.5", "forbidden"),
    ]


def test_r1_6_unreadable_line_is_a_named_problem() -> None:
    (found,) = problems_of(with_bans(), LEGAL + "\n61 Kuriboh")
    assert (found["rule"], found["code"]) == ("R1.6", "unreadable")


def test_r1_6_register_refuses_non_text() -> None:
    t = with_bans()
    t.refuse("A", "deck.register", "invalid", text=40)
    t.refuse("A", "deck.register", "invalid", text="x" * 8001)
    t.refuse("judge", "deck.register", "forbidden", text=LEGAL)


# --- privacy --------------------------------------------------------------------------------


def test_r1_6_the_list_is_seen_by_its_seat_and_judges_only() -> None:
    t = with_bans()
    (e,) = t.do("A", "deck.register", text=LEGAL)
    mine, theirs = view(t.state, "A")["decks"], view(t.state, "B")["decks"]
    assert mine["A"]["cards"]["registered"]["main"]["Kuriboh"] == 3
    assert theirs["A"]["cards"] is None and theirs["A"]["list"] is True
    assert theirs["A"]["declared"] == {"main": 40, "extra": 2, "side": 5}
    assert view(t.state)["decks"]["A"]["cards"] is None  # spectators
    judge = view(t.state, None, privileged=True)["decks"]["A"]["cards"]
    assert judge["registered"] == judge["current"] == e.data["cards"]
    env = {"seq": 9, **e.to_dict()}
    assert "cards" not in event_for(env, "B")["data"]
    assert "cards" not in event_for(env, None)["data"]
    assert event_for(env, "A")["data"]["cards"] == e.data["cards"]
    assert event_for(env, None, privileged=True)["data"]["cards"] == e.data["cards"]


# --- side decking by card (R6.8, R2.6) and back at each match (R2.7) -----------------------


def after_duel_one() -> Table:
    t = registered()
    t.win_duel("A")
    for seat in "AB":
        t.do(seat, "deck.check", ok=True)
    assert t.state.phase == "between"
    return t


def test_r6_8_side_decking_by_card_keeps_counts_and_the_current_list() -> None:
    t = after_duel_one()
    (e,) = t.do(
        "B",
        "side.exchange",
        main_in={"mirror force": 2},  # matched to the registered spelling
        main_out={"ＫＵＲＩＢＯＨ": 2},
    )
    assert e.data["main"] == {"in": 2, "out": 2} and e.data["extra"] == {"in": 0, "out": 0}
    assert e.data["cards"] == {"main_in": {"Mirror Force": 2}, "main_out": {"Kuriboh": 2}}
    deck = t.state.decks["B"]
    assert deck.current_cards is not None and deck.cards is not None
    assert deck.current_cards.main["Mirror Force"] == 2 and deck.current_cards.main["Kuriboh"] == 1
    assert deck.current_cards.counts() == deck.cards.counts()
    assert deck.cards.main["Kuriboh"] == 3  # the registration is unchanged
    judge = view(t.state, privileged=True)["decks"]["B"]["cards"]
    assert judge["current"]["side"] == {"Kuriboh": 2, "Raigeki": 3}
    assert judge["registered"]["side"] == {"Mirror Force": 2, "Raigeki": 3}
    assert "current" not in event_for({"seq": 1, **e.to_dict()}, "A")["data"]
    assert t.replayed() == t.state


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"main_in": {"Mirror Force": 2}, "main_out": {"Kuriboh": 1}}, "count_changed"),
        ({"main_in": {"Pot of Greed": 1}, "main_out": {"Kuriboh": 1}}, "not_in_side"),  # R2.6
        ({"main_in": {"Raigeki": 1}, "main_out": {"Blue-Eyes": 1}}, "not_in_deck"),
        ({"extra_in": {"Raigeki": 1}, "extra_out": {"Kuriboh": 1}}, "not_in_deck"),
        ({"main_in": {"Raigeki": 0}, "main_out": {"Kuriboh": 0}}, "invalid_count"),
        ({"main_in": {}, "main_out": {}}, "invalid"),
        ({"main": {"in": 1, "out": 1}}, "by_card"),  # a registered list names its cards
    ],
)
def test_r6_8_r2_6_by_card_refusals(args: dict[str, Any], code: str) -> None:
    after_duel_one().refuse("A", "side.exchange", code, **args)


def test_r6_8_by_card_needs_a_registered_list() -> None:
    t = Table().register()
    t.win_duel("A")
    t.do("A", "deck.check", ok=True)
    t.refuse("A", "side.exchange", "no_list", main_in={"X": 1}, main_out={"Y": 1})
    t.do("A", "side.exchange", main={"in": 1, "out": 1})  # counts only, as before


def test_r2_7_the_next_match_starts_from_the_registered_list() -> None:
    t = after_duel_one()
    t.do("A", "side.exchange", main_in={"Raigeki": 3}, main_out={"Kuriboh": 3})
    t.do("A", "between.ready")
    t.do("B", "between.ready")
    t.win_duel("A")
    t.do("A", "match.confirm")
    t.do("B", "match.confirm")
    t.do("A", "match.new")
    t.do("B", "match.new")
    deck = t.state.decks["A"]
    assert deck.current_cards == deck.cards and deck.confirmed
    assert t.state.banlist is not None and t.state.phase == "pregame"
    assert t.replayed() == t.state


def test_r2_6_judges_see_each_current_deck_against_its_registration() -> None:
    t = after_duel_one()
    t.do("A", "side.exchange", extra_in={}, main_in={"Raigeki": 1}, main_out={"Card 0": 1})
    decks = view(t.state, privileged=True)["decks"]
    assert decks["A"]["cards"]["current"]["main"]["Raigeki"] == 1
    assert decks["A"]["cards"]["registered"]["main"]["Card 0"] == 3
    assert decks["B"]["cards"]["current"] == decks["B"]["cards"]["registered"]
