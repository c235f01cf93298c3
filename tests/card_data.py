"""Small card files the tests make: a 20-card `cards.cdb` per language with the clients' own
schema (`datas` and `texts`), an `lflist.conf` with two lists, and `.ydk` / `ydke://` decks.

The names are the cards' printed names, typed here for the tests; no client's database is
copied. The ydke link and the .ydk text are what the `ygopro-deck-encode` package's
`toYdkeURL()` and `toYdkString()` make of the deck YDKE_DECK (run once to make this fixture)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

# The schema of a YGOPro / EDOPro / YGOMobile cards.cdb.
DATAS = (
    "CREATE TABLE datas(id integer primary key, ot integer, alias integer, setcode integer, "
    "type integer, atk integer, def integer, level integer, race integer, attribute integer, "
    "category integer)"
)
TEXTS = (
    "CREATE TABLE texts(id integer primary key, name text, desc text, "
    + ", ".join(f"str{i} text" for i in range(1, 17))
    + ")"
)

BLUE_EYES, DARK_MAGICIAN, DARK_MAGICIAN_ALT = 89631139, 46986414, 36996508
POT_OF_GREED, MONSTER_REBORN, MIRROR_FORCE, ULTIMATE = 55144522, 83764718, 44095762, 23995346

# passcode, alias, English, Japanese, Traditional Chinese
CARDS: list[tuple[int, int, str, str, str]] = [
    (BLUE_EYES, 0, "Blue-Eyes White Dragon", "青眼の白龍", "青眼白龍"),
    (DARK_MAGICIAN, 0, "Dark Magician", "ブラック・マジシャン", "黑魔導"),
    (DARK_MAGICIAN_ALT, DARK_MAGICIAN, "Dark Magician", "ブラック・マジシャン", "黑魔導"),
    (POT_OF_GREED, 0, "Pot of Greed", "強欲な壺", "強欲之壺"),
    (MONSTER_REBORN, 0, "Monster Reborn", "死者蘇生", "死者甦生"),
    (MIRROR_FORCE, 0, "Mirror Force", "聖なるバリア －ミラーフォース－", "神聖防護罩 -反射鏡力-"),
    (ULTIMATE, 0, "Blue-Eyes Ultimate Dragon", "青眼の究極竜", "青眼究極龍"),
    (40640057, 0, "Kuriboh", "クリボー", "栗子球"),
    (38033121, 0, "Dark Magician Girl", "ブラック・マジシャン・ガール", "黑魔導女孩"),
    (5318639, 0, "Mystical Space Typhoon", "サイクロン", "旋風"),
    (12580477, 0, "Raigeki", "サンダー・ボルト", "雷擊"),
    (53129443, 0, "Dark Hole", "ブラック・ホール", "黑洞"),
    (70781052, 0, "Summoned Skull", "デーモンの召喚", "惡魔的召喚"),
    (4031928, 0, "Change of Heart", "心変わり", "心變"),
    (72302403, 0, "Swords of Revealing Light", "光の護封剣", "光之護封劍"),
    (97077563, 0, "Call of the Haunted", "リビングデッドの呼び声", "活死人的呼聲"),
    (15025844, 0, "Mystical Elf", "ホーリー・エルフ", "神聖精靈"),
    (74677422, 0, "Red-Eyes Black Dragon", "真紅眼の黒竜", "真紅眼黑龍"),
    (6368038, 0, "Gaia The Fierce Knight", "暗黒騎士ガイア", "暗黑騎士蓋亞"),
    (33396948, 0, "Exodia the Forbidden One", "封印されしエクゾディア", "被封印的艾克佐迪亞"),
]
COLUMN = {"en": 2, "ja": 3, "zh-Hant": 4}


def make_cdb(path: Path, lang: str) -> Path:
    """A 20-card cards.cdb of one language at `path`."""
    con = sqlite3.connect(path)
    with con:
        con.execute(DATAS)
        con.execute(TEXTS)
        for card in CARDS:
            code, alias = card[0], card[1]
            con.execute(
                "INSERT INTO datas VALUES (?, 3, ?, 0, 17, 3000, 2500, 8, 8192, 32, 0)",
                (code, alias),
            )
            strs = [""] * 16
            con.execute(
                f"INSERT INTO texts VALUES (?, ?, ?, {', '.join('?' * 16)})",
                (code, card[COLUMN[lang]], "An effect text.", *strs),
            )
    con.close()
    return path


def name(code: int, lang: str) -> str:
    """A card's name in a language."""
    return next(c[COLUMN[lang]] for c in CARDS if c[0] == code)


LFLIST = """#[2026.01 OCG][2026.01 TCG Whitelist]
!2026.01 OCG
#forbidden
55144522 0 --Pot of Greed
#limited
83764718 1 --Monster Reborn
#semi-limited
44095762 2 --Mirror Force
!2026.01 TCG Whitelist
$whitelist
89631139 3 --Blue-Eyes White Dragon
46986414 3 --Dark Magician
83764718 1 --Monster Reborn
"""

YDKE_DECK = {
    "main": [BLUE_EYES] * 3
    + [DARK_MAGICIAN] * 2
    + [POT_OF_GREED, MONSTER_REBORN]
    + [MIRROR_FORCE] * 2,
    "extra": [ULTIMATE],
    "side": [MONSTER_REBORN],
}
YDKE = "ydke://o6lXBaOpVwWjqVcFrvTMAq70zAJKcEkD7iX+BBLZoAIS2aAC!0iNuAQ==!7iX+BA==!"
YDK = (
    "#created by ygopro-deck-encode\n#main\n89631139\n89631139\n89631139\n46986414\n46986414\n"
    "55144522\n83764718\n44095762\n44095762\n#extra\n23995346\n!side\n83764718"
)


def legal_main(extra_codes: dict[int, int]) -> list[int]:
    """40 main-deck passcodes: `extra_codes` (passcode -> copies) and filler cards up to 40."""
    filler = [
        c[0]
        for c in CARDS
        if c[0] not in extra_codes and c[1] == 0 and c[0] not in (POT_OF_GREED, ULTIMATE)
    ]
    main = [code for code, n in extra_codes.items() for _ in range(n)]
    i = 0
    while len(main) < 40:
        main.append(filler[i // 3])
        i += 1
    return main
