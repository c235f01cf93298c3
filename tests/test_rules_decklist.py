"""Deck lists and ban lists (R1.6, R2.1-R2.6, R6.8 by card)."""

from __future__ import annotations

from typing import Any

import pytest

from server.rules import RuleError
from server.rules.decklist import BanList, DeckList, check, exchange, fold, parse, problems

BANS = BanList.build(
    "2008-03",
    [
        ("Pot of Greed", "forbidden"),
        ("Monster Reborn", "limited"),
        ("Mirror Force", "Semi-Limited"),
    ],
)


def deck(main: int = 40, extra: int = 0, side: int = 0) -> DeckList:
    """A legal-looking list of distinct cards, three copies each."""

    def cards(prefix: str, n: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in range(n):
            out[f"{prefix} {i // 3}"] = out.get(f"{prefix} {i // 3}", 0) + 1
        return out

    return DeckList(cards("Main", main), cards("Extra", extra), cards("Side", side))


def test_r1_6_parse_formats_and_headers() -> None:
    text = """// my deck
    Main Deck (3)
    3 Dark Magician
    Monster Reborn x1
    #extra
    2x Dark Paladin
    サイドデッキ:
    Ｍｉｒｒｏｒ　Ｆｏｒｃｅ
    """
    d = parse(text, BANS)
    assert d.main == {"Dark Magician": 3, "Monster Reborn": 1}
    assert d.extra == {"Dark Paladin": 2}
    assert d.side == {"Mirror Force": 1}  # full-width folded to the list's spelling
    assert DeckList.from_dict(d.to_dict()) == d


def test_r1_6_same_card_spelled_twice_is_one_entry() -> None:
    d = parse("2 dark magician\n1 DARK  MAGICIAN")
    assert d.main == {"dark magician": 3}
    assert fold("ＤＡＲＫ　Magician") == "dark magician"


@pytest.mark.parametrize(
    "text", ["\n".join(["1 X"] * 201), "61 Kuriboh", "1 " + "x" * 81, "3 " + "y" * 90]
)
def test_r1_6_parse_refusals(text: str) -> None:
    with pytest.raises(RuleError) as info:
        parse(text)
    assert info.value.code == "invalid"


def test_r1_6_ban_list_refusals() -> None:
    with pytest.raises(RuleError):
        BanList.build("x", [("Card", "banned-ish")])
    with pytest.raises(RuleError):
        BanList.build("x", [("  ", "limited")])


def test_r2_1_r2_3_a_legal_list_has_no_problems() -> None:
    assert problems(deck(40, 15, 15), BANS) == []


@pytest.mark.parametrize(
    ("counts", "rule", "part"),
    [
        ((39, 0, 0), "R2.1", "main"),
        ((61, 0, 0), "R2.1", "main"),
        ((40, 16, 0), "R2.2", "extra"),
        ((40, 0, 16), "R2.3", "side"),
    ],
)
def test_r2_1_r2_3_size_problems(counts: tuple[int, int, int], rule: str, part: str) -> None:
    (found,) = problems(deck(*counts))
    assert (found["rule"], found["code"], found["part"]) == (rule, "deck_size", part)


def test_r2_4_copies_counted_across_main_side_and_extra() -> None:
    d = DeckList({**deck().main, "Kuriboh": 2}, {}, {"kuriboh": 2})
    found = [p for p in problems(d) if p["rule"] == "R2.4"]
    assert found == [
        {"rule": "R2.4", "code": "too_many_copies", "card": "Kuriboh", "count": 4, "max": 3}
    ]


@pytest.mark.parametrize(
    ("card", "copies", "code"),
    [
        ("Pot of Greed", 1, "forbidden"),
        ("Monster Reborn", 2, "limited"),
        ("Mirror Force", 3, "semi_limited"),
    ],
)
def test_r2_5_ban_list(card: str, copies: int, code: str) -> None:
    d = DeckList(dict(deck().main), {}, {card: copies})
    (found,) = problems(d, BANS)
    assert (found["rule"], found["code"], found["count"]) == ("R2.5", code, copies)
    assert problems(DeckList(dict(deck().main), {}, {card: copies - 1}), BANS) == []


def registered() -> DeckList:
    return DeckList({**deck(37).main, "Kuriboh": 3}, {"Dark Paladin": 1}, {"Mirror Force": 2})


def test_r6_8_exchange_by_card_keeps_counts() -> None:
    reg = registered()
    new = exchange(reg, reg, {"main_in": {"Mirror Force": 2}, "main_out": {"Kuriboh": 2}})
    assert new.counts() == reg.counts()
    assert new.main["Kuriboh"] == 1 and new.main["Mirror Force"] == 2
    assert new.side == {"Kuriboh": 2}
    back = exchange(new, reg, {"main_in": {"Kuriboh": 2}, "main_out": {"Mirror Force": 2}})
    assert back == reg


@pytest.mark.parametrize(
    ("moves", "code"),
    [
        ({"main_in": {"Mirror Force": 2}, "main_out": {"Kuriboh": 1}}, "count_changed"),
        ({"main_in": {"Mirror Force": 1}, "main_out": {"Pot of Greed": 1}}, "not_in_deck"),
        ({"main_in": {"Raigeki": 1}, "main_out": {"Kuriboh": 1}}, "not_in_side"),  # R2.6
        ({"extra_in": {"Mirror Force": 2}, "extra_out": {"Dark Paladin": 2}}, "not_in_deck"),
        ({"main_in": {"Mirror Force": -1}, "main_out": {"Kuriboh": -1}}, "not_registered"),
    ],
)
def test_r6_8_r2_6_exchange_refusals(moves: dict[str, Any], code: str) -> None:
    reg = registered()
    with pytest.raises(RuleError) as info:
        exchange(reg, reg, moves)
    assert info.value.code == code


CJK_BANS = BanList.build(
    "2026-10",
    [("強欲な壺", "forbidden"), ("強欲之壺", "forbidden"), ("死者蘇生", "limited")],
)


@pytest.mark.parametrize(
    ("text", "part", "card", "copies"),
    [
        ("メインデッキ\n３ ブラック・マジシャン", "main", "ブラック・マジシャン", 3),
        ("主牌組\n黑魔導 ×２", "main", "黑魔導", 2),
        ("副牌組\n２x 聖なるバリア －ミラーフォース－", "side", "聖なるバリア -ミラーフォース-", 2),
        ("Ｅｘｔｒａ Ｄｅｃｋ\n１ Ｄａｒｋ Ｐａｌａｄｉｎ", "extra", "Dark Paladin", 1),
    ],
)
def test_r1_6_parse_japanese_chinese_and_full_width(
    text: str, part: str, card: str, copies: int
) -> None:
    assert dict(parse(text).part(part)) == {card: copies}


@pytest.mark.parametrize(
    ("line", "card"),
    [("1 強欲な壺", "強欲な壺"), ("1 強欲之壺", "強欲之壺"), ("２ 死者蘇生", "死者蘇生")],
)
def test_r2_5_ban_list_in_japanese_and_chinese(line: str, card: str) -> None:
    d = parse("\n".join(["30 Filler", "10 Other", line]), CJK_BANS)
    # "30 Filler" breaks R2.4 too; the ban-list problem is named with it
    found = [p for p in problems(d, CJK_BANS) if p["rule"] == "R2.5"]
    assert [(p["card"], p["max"]) for p in found] == [(card, CJK_BANS.limits[fold(card)])]


def test_r2_4_copies_counted_across_full_width_spellings() -> None:
    d = parse("3 Kuriboh\nExtra\n1 ＫＵＲＩＢＯＨ")
    (found,) = [p for p in problems(d) if p["rule"] == "R2.4"]
    assert (found["card"], found["count"]) == ("Kuriboh", 4)


def test_r1_6_check_names_every_problem_with_a_message() -> None:
    text = "\n".join(["3 Pot of Greed", "3 Monster Reborn", "Side", "1 Monster Reborn"])
    d, found = check(text, BANS)
    assert d.counts() == {"main": 6, "extra": 0, "side": 1}
    assert [(p["rule"], p["code"]) for p in found] == [
        ("R2.1", "deck_size"),
        ("R2.4", "too_many_copies"),
        ("R2.5", "limited"),
        ("R2.5", "forbidden"),
    ]
    assert all(str(p["message"]).startswith(str(p["rule"]) + ":") for p in found)
    assert "Pot of Greed is forbidden" in str(found[-1]["message"])


def test_r1_6_check_turns_an_unreadable_line_into_a_problem() -> None:
    d, found = check("3 Kuriboh\n99 Kuriboh")
    assert d == DeckList() and found[0]["rule"] == "R1.6" and found[0]["line"] == 2
