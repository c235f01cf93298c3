"""The field's own formats (R1.6, R2.4, R2.5): `.ydk` files and `ydke://` links, `lflist.conf`
ban lists, and card names in three languages loaded from a `cards.cdb` or a CSV, on small
files the tests make (tests/card_data.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import ValidationError

from server.__main__ import main
from server.api.arguments import LOADERS
from server.api.context import services
from server.api.presteps import before
from server.core.errors import DomainError
from server.rules import RuleError, admit
from server.rules.cardfiles import encode_ydke, parse_lflist, parse_ydke, pick_lflist
from server.rules.decklist import BanList, check, parse
from server.store import banlists, cards
from tests import card_data as cd

FILLER = [c[0] for c in cd.CARDS if c[1] == 0 and c[0] not in cd.YDKE_DECK["main"]][:12]


def english_japanese_list() -> str:
    """40 main-deck cards: 2 Blue-Eyes under their English name, 2 under their Japanese one."""
    lines = ["Main Deck", "2 Blue-Eyes White Dragon", "2 青眼の白龍"]
    lines += [f"3 {cd.name(code, 'en')}" for code in FILLER]
    return "\n".join(lines)


# --- .ydk and ydke:// (pure) ----------------------------------------------------------------


def test_r1_6_ydke_link_from_the_encoder_reads_by_passcode() -> None:
    parts = parse_ydke(cd.YDKE)
    for part, codes in cd.YDKE_DECK.items():
        expected: dict[str, int] = {}
        for code in codes:
            expected[str(code)] = expected.get(str(code), 0) + 1
        assert parts[part] == expected
    assert encode_ydke(parts) == cd.YDKE  # the same link the encoder made, round-tripped


def test_r1_6_ydk_file_and_ydke_link_are_one_list() -> None:
    from_ydk, from_link = parse(cd.YDK), parse(cd.YDKE)
    assert from_ydk == from_link
    assert from_ydk.main[str(cd.BLUE_EYES)] == 3 and from_ydk.side == {str(cd.MONSTER_REBORN): 1}
    assert from_ydk.counts() == {"main": 9, "extra": 1, "side": 1}


@pytest.mark.parametrize(
    ("link", "part"),
    [
        ("ydke://o6lXBaOpVw!0iNuAQ==!7iX+BA==!", "main"),  # cut short: 6 bytes
        ("ydke://o6lXBQ==!0iN*uAQ==!7iX+BA==!", "extra"),  # not base64
    ],
)
def test_r1_6_a_broken_ydke_part_is_named(link: str, part: str) -> None:
    deck, problems = check(link)
    assert deck.counts() == {"main": 0, "extra": 0, "side": 0}
    assert [(p["rule"], p["code"], p.get("part")) for p in problems] == [
        ("R1.6", "unreadable", part)
    ]
    assert part in str(problems[0]["message"])


# --- lflist.conf (pure) ---------------------------------------------------------------------


def test_r2_5_lflist_lists_by_header_with_names_and_a_whitelist() -> None:
    lists = parse_lflist(cd.LFLIST)
    assert [x.header for x in lists] == ["2026.01 OCG", "2026.01 TCG Whitelist"]
    ocg = pick_lflist(cd.LFLIST, "2026.01 ocg")
    assert dict(ocg.entries) == {
        "55144522": "forbidden",
        "83764718": "limited",
        "44095762": "semi_limited",
    }
    assert ocg.names["55144522"] == "Pot of Greed" and not ocg.whitelist
    white = BanList.build("w", pick_lflist(cd.LFLIST, "2026.01 TCG Whitelist").ban_entries())
    _, problems = check(cd.YDK, white)
    found = {(p["code"], p["card"]) for p in problems if p["rule"] == "R2.5"}
    # Not on the whitelist: forbidden; Monster Reborn, 1 in the deck and 1 in the side: limited.
    assert found == {
        ("forbidden", "55144522"),
        ("forbidden", "23995346"),
        ("forbidden", "44095762"),
        ("limited", "83764718"),
    }


def test_r2_5_lflist_choice_and_bad_lines_are_named() -> None:
    with pytest.raises(RuleError, match="2026.01 OCG, 2026.01 TCG Whitelist"):
        pick_lflist(cd.LFLIST)  # two lists: the organiser chooses one by its header
    with pytest.raises(RuleError) as bad:
        parse_lflist(cd.LFLIST.replace("83764718 1 --Monster", "83764718 5 --Monster"))
    assert bad.value.details == {"line": 6} and "unknown status 5" in bad.value.message


# --- R2.4 and R2.5 across languages (pure, with the names the edge gives) --------------------


def test_r2_4_copies_under_two_languages_names_are_one_card_with_names() -> None:
    text = english_japanese_list()
    _, without = check(text)
    assert [p for p in without if p["rule"] == "R2.4"] == []  # today's reading: two cards
    names = {"blue-eyes white dragon": str(cd.BLUE_EYES), "青眼の白龍": str(cd.BLUE_EYES)}
    _, problems = check(text, None, names)
    assert [(p["rule"], p["card"], p["count"]) for p in problems] == [
        ("R2.4", str(cd.BLUE_EYES), 4)
    ]


def test_r2_5_a_ban_list_by_english_name_holds_for_a_japanese_name() -> None:
    bans = BanList.build("csv", [("Pot of Greed", "forbidden")])
    names = {"pot of greed": str(cd.POT_OF_GREED), "強欲な壺": str(cd.POT_OF_GREED)}
    _, problems = check("1 強欲な壺", bans, names)
    assert ("R2.5", "forbidden", str(cd.POT_OF_GREED)) in {
        (p["rule"], p["code"], p.get("card")) for p in problems
    }


# --- loading card names (store, command line) ----------------------------------------------


@pytest.fixture
def names_loaded(app: Flask, tmp_path: Path) -> Flask:
    """English and Japanese names loaded from two 20-card cards.cdb files."""
    with app.app_context():
        for lang in ("en", "ja"):
            rows = cards.read_file(cd.make_cdb(tmp_path / f"cards-{lang}.cdb", lang))
            assert cards.save(lang, rows) == 20
    return app


def test_r2_4_load_cards_command_reads_a_cdb_and_a_csv(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    cdb = cd.make_cdb(tmp_path / "cards.cdb", "ja")
    assert main(["load-cards", str(cdb), "--lang", "ja"]) == 0
    csv = tmp_path / "zh.csv"
    csv.write_text("passcode,name\n89631139,青眼白龍\n46986414,黑魔導\n", encoding="utf-8")
    assert main(["load-cards", str(csv), "--lang", "zh-Hant"]) == 0
    found = cards.resolve(["青眼の白龍", "黑魔導", str(cd.DARK_MAGICIAN_ALT)])
    assert found == {
        "青眼の白龍": str(cd.BLUE_EYES),
        "黑魔導": str(cd.DARK_MAGICIAN),
        str(cd.DARK_MAGICIAN_ALT): str(cd.DARK_MAGICIAN),  # an alternate artwork
    }
    assert cards.names_of([str(cd.BLUE_EYES), str(cd.MIRROR_FORCE)], "zh-Hant") == {
        str(cd.BLUE_EYES): "青眼白龍",
        str(cd.MIRROR_FORCE): cd.name(cd.MIRROR_FORCE, "ja"),  # no Chinese name: Japanese
    }
    # A truncated download is refused, naming the file; the names loaded before stay.
    cut = tmp_path / "cut.cdb"
    cut.write_bytes(cdb.read_bytes()[:3000])
    assert main(["load-cards", str(cut), "--lang", "ja"]) == 1
    assert "cut.cdb" in capsys.readouterr().err
    assert cards.resolve(["青眼の白龍"]) == {"青眼の白龍": str(cd.BLUE_EYES)}


def test_r2_4_bad_card_files_load_nothing(names_loaded: Flask, tmp_path: Path) -> None:
    whole = cd.make_cdb(tmp_path / "whole.cdb", "ja").read_bytes()
    cut = tmp_path / "cut.cdb"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DomainError, match="cut.cdb"):
        cards.read_file(cut)
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("89631139,青眼白龍\nBlue-Eyes,no passcode\n", encoding="utf-8")
    with pytest.raises(DomainError) as bad:
        cards.read_file(bad_csv)
    assert bad.value.details == {"line": 2}
    with names_loaded.app_context():
        assert cards.names_of([str(cd.BLUE_EYES)], "ja") == {str(cd.BLUE_EYES): "青眼の白龍"}


def test_r2_5_an_lflist_with_an_unknown_status_loads_nothing() -> None:
    with pytest.raises(DomainError) as bad:
        banlists.read(cd.LFLIST.replace("55144522 0", "55144522 7"), "lflist.conf", "2026.01 OCG")
    assert bad.value.details == {"line": 4}
    entries, names = banlists.read(cd.LFLIST, "lflist.conf", "2026.01 OCG")
    assert ("55144522", "forbidden") in entries and names["83764718"] == "Monster Reborn"


# --- at the table: the check and the registration ------------------------------------------


def seats(client: FlaskClient) -> tuple[str, str]:
    code = client.post("/api/tables", json={}).json["code"]
    a = client.post(f"/api/tables/{code}/join", json={"name": "Yugi"}).json["token"]
    client.post(f"/api/tables/{code}/join", json={"name": "Kaiba"})
    return code, a


def register(app: Flask, code: str, token: str, args: dict[str, Any]) -> RuleError | None:
    """deck.register by the socket's own path (validation, pre-steps, the rules); the refusal."""
    with app.app_context():
        actor = services().tables.store.seat_actor(code, token)
        assert actor is not None
        declared = admit("deck.register", actor)
        now = services().clock()
        try:
            loaded = before(declared, code, LOADERS["deck.register"](args), actor, now)
            services().tables.command(code, "deck.register", loaded, actor, None, now)
        except RuleError as exc:
            return exc
    return None


def test_r2_4_half_japanese_half_english_2_plus_2_is_refused_once_names_are_loaded(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    code, a = seats(client)
    text = english_japanese_list()
    # A seat cannot send names of its own (to split a card in two): an unknown argument.
    with pytest.raises(ValidationError, match="names"):
        register(app, code, a, {"text": text, "names": {"青眼の白龍": "1"}})
    assert register(app, code, a, {"text": text}) is None  # no names loaded: as today
    with app.app_context():
        for lang in ("en", "ja"):
            cards.save(lang, cards.read_file(cd.make_cdb(tmp_path / f"{lang}.cdb", lang)))
    code, a = seats(client)
    refused = register(app, code, a, {"text": text})
    assert refused is not None and refused.code == "deck_illegal"
    assert [(p["rule"], p["card"], p["count"]) for p in refused.details["problems"]] == [
        ("R2.4", str(cd.BLUE_EYES), 4)
    ]
    # The refusal's words name the card, not its passcode.
    assert "Blue-Eyes White Dragon" in refused.message and str(cd.BLUE_EYES) not in refused.message


def test_r1_6_check_reads_a_ydke_link_and_names_it_in_the_readers_language(
    names_loaded: Flask, client: FlaskClient
) -> None:
    with names_loaded.app_context():
        cards.save("zh-Hant", [(c[0], c[0], c[4]) for c in cd.CARDS])
    code, a = seats(client)
    answer = client.post(
        f"/api/tables/{code}/decklist/check?lang=zh-Hant",
        json={"text": cd.YDKE},
        headers={"Authorization": f"Bearer {a}"},
    )
    assert answer.status_code == 200
    body = answer.json
    assert body["cards"]["main"][str(cd.BLUE_EYES)] == 3
    assert body["names"][str(cd.BLUE_EYES)] == "青眼白龍"
    assert body["names"][str(cd.MIRROR_FORCE)] == "神聖防護罩 -反射鏡力-"
    assert body["counts"] == {"main": 9, "extra": 1, "side": 1}


# --- the names routes and the organiser's lflist.conf ----------------------------------------


def test_r1_6_suggestions_in_the_players_language(names_loaded: Flask, client: FlaskClient):
    ja = client.get("/api/cards/suggest?q=青眼&lang=ja").json["cards"]
    assert [c["name"] for c in ja] == ["青眼の白龍", "青眼の究極竜"]
    assert ja[0]["passcode"] == str(cd.BLUE_EYES)
    en = client.get("/api/cards/suggest?q=dark+mag&lang=en").json["cards"]
    # The alternate artwork is the same card: suggested once.
    assert [c["name"] for c in en] == ["Dark Magician", "Dark Magician Girl"]
    # No Chinese names loaded: the names of a loaded language.
    zh = client.get("/api/cards/suggest?q=クリボー&lang=zh-Hant").json["cards"]
    assert [c["name"] for c in zh] == ["クリボー"]
    bad = client.get("/api/cards/suggest?q=&lang=en")
    assert bad.status_code == 400 and bad.json["code"] == "invalid"


def test_r1_6_names_of_passcodes_in_the_readers_language(names_loaded: Flask, client):
    codes = f"{cd.BLUE_EYES},{cd.DARK_MAGICIAN_ALT},99999999"
    ja = client.get(f"/api/cards/names?codes={codes}&lang=ja").json["names"]
    # A passcode no file names is left out (shown by passcode), not refused.
    assert ja == {
        str(cd.BLUE_EYES): "青眼の白龍",
        str(cd.DARK_MAGICIAN_ALT): "ブラック・マジシャン",
    }
    bad = client.get("/api/cards/names?codes=1;DROP")
    assert bad.status_code == 400 and bad.json["code"] == "invalid"


def organiser(app: Flask, client: FlaskClient) -> tuple[dict[str, str], int]:
    """An organiser logged in (headers with the CSRF token) and an event of one table."""
    tournament = app.extensions["duel_table"].tournament
    tournament.create_account("lflister", "correct horse battery", "organiser", 0)
    headers = {"Origin": "http://localhost"}
    me = client.post(
        "/api/auth/login",
        json={"username": "lflister", "password": "correct horse battery"},
        headers=headers,
    ).json
    headers["X-CSRF-Token"] = me["csrf"]
    event = client.post(
        "/api/events", json={"name": "OCG", "date": "2026-12-01", "tables": 1}, headers=headers
    ).json
    return headers, event["id"]


def test_r2_5_an_organiser_loads_one_list_of_an_lflist_conf(app: Flask, client: FlaskClient):
    headers, event = organiser(app, client)
    path = f"/api/events/{event}/banlist"
    both = {"text": cd.LFLIST, "filename": "lflist.conf"}
    unnamed = client.post(path, json={**both, "name": "Mine"}, headers=headers)
    assert unnamed.status_code == 400 and "2026.01 TCG Whitelist" in unnamed.json["message"]
    loaded = client.post(path, json={**both, "name": "2026.01 OCG"}, headers=headers)
    assert loaded.status_code == 200 and loaded.json["size"] == 3
    with app.app_context():
        assert ["55144522", "forbidden"] in banlists.entries_of("2026.01 OCG")
        # The comments' names name the passcodes until a language's names are loaded.
        assert cards.names_of(["55144522"], "ja") == {"55144522": "Pot of Greed"}
    bad = client.post(
        path,
        json={**both, "text": cd.LFLIST.replace("44095762 2", "44095762 9"), "name": "Bad"},
        headers=headers,
    )
    assert bad.status_code == 400 and bad.json["details"] == {"line": 8}
    with app.app_context():
        assert "Bad" not in [b["name"] for b in banlists.listing()]
    # A whitelist is put in force at the event's table like any list.
    white = client.post(path, json={**both, "name": "2026.01 TCG Whitelist"}, headers=headers)
    assert white.status_code == 200 and white.json["applied"] == 1, white.json
    with app.app_context():
        assert ["*", "forbidden"] in banlists.entries_of("2026.01 TCG Whitelist")
