"""The score sheet's one catalogue: every label of the printed sheet in zh-Hant, en and ja.

`pick_lang` chooses the language from `?lang=` or the Accept-Language header; `strings(lang)`
gives a `t(key, **vars)` for the templates. A key missing in a language falls back to English.
"""

from __future__ import annotations

from collections.abc import Callable

LANGS = ("zh-Hant", "en", "ja")
DEFAULT = "en"

EN: dict[str, str] = {
    "title": "Official score sheet",
    "title_many": "Score sheets ({n} tables)",
    "tools": "Sheet tools",
    "print": "Print",
    "back": "Back to the table",
    "csv": "Ledger (CSV)",
    "json": "Full log (JSON)",
    "times": "Times: {tz}",
    "missing": "No table has the code {code}.",
    "table": "Table {code}",
    "match_no": "match {n}",
    "event": "{event} · round {round} · table {number}",
    "meta": (
        "Rules {rules} · {minutes} min · table opened {opened} · printed {printed} · times {tz}"
    ),
    "seat": "Seat",
    "player": "Player",
    "player_id": "Player ID",
    "deck": "Deck (declared)",
    "duel_wins": "Duel wins",
    "match_result": "Match result:",
    "draw": "draw",
    "wins": "{name} wins",
    "nobody": "no one (draw)",
    "confirmed": "confirmed:",
    "not_confirmed": "not confirmed",
    "not_decided": "not decided yet",
    "duel": "Duel {n}",
    "extra_duel": "(Extra Duel)",
    "went_first": "{seat} went first",
    "chose": "{seat} chose",
    "started": "started {time}",
    "turn": "Turn",
    "prop": "Prop.",
    "conf": "Conf.",
    "time": "Time",
    "note": "Note",
    "start": "start",
    "result": "Result:",
    "in_progress": "in progress",
    "no_duel": "No duel has started.",
    "rolls": "Coin and die",
    "clock": "Clock",
    "rulings": "Judge calls and rulings",
    "penalties": "Penalties",
    "decks": "Decks between duels",
    "none": "None.",
    "chain_ok": "Hash chain verified",
    "chain_ok_detail": "{n} events, none altered, missing or reordered.",
    "chain_broken": "Hash chain BROKEN at event {seq}: {problem}.",
    "chain_broken_detail": (
        "This sheet may not match what the players confirmed; call the head judge."
    ),
    "head": "Head:",
    "pages": "Pages of the LP entries",
    "earlier": "Earlier",
    "later": "Later",
    "rows": "Entries {from}–{to} of {total}",
    "recovery": "Recovery code of this one-phone table (shown only on this phone): {code}",
    "receipts_ok": "This phone's {n} signed receipt(s) match the log.",
    "receipts_bad": (
        "This phone's receipt for event {seq} does NOT match the log: the log was changed "
        "after it was signed. Call the head judge."
    ),
    "signatures": "Signatures: A ______________ B ______________ Judge ______________",
    "reason.lp_zero": "LP 0",
    "reason.concede": "concession",
    "reason.time_lp": "time: more LP after the extra turns",
    "reason.time_draw": "time: equal LP",
    "reason.sudden_death": "sudden death",
    "reason.judge": "judge's decision",
    "reason.penalty": "penalty",
    "reason.wins": "duel wins",
    "reason.most_wins": "more duel wins after three duels",
    "reason.level_wins": "level duel wins after three duels",
    "reason.time_lead": "time: leading in duel wins",
    "reason.extra_duel": "Extra Duel",
    "reason.match_loss": "penalty: match loss",
    "reason.disqualification": "penalty: disqualification",
    "reason.disqualification_total": "penalty: disqualification",
}

JA: dict[str, str] = {
    "title": "公式スコアシート",
    "title_many": "スコアシート（{n}卓）",
    "tools": "シートの操作",
    "print": "印刷",
    "back": "テーブルに戻る",
    "csv": "LP記録（CSV）",
    "json": "全ログ（JSON）",
    "times": "時刻：{tz}",
    "missing": "コード {code} のテーブルはありません。",
    "table": "テーブル {code}",
    "match_no": "第{n}マッチ",
    "event": "{event} · 第{round}回戦 · {number}番テーブル",
    "meta": "ルール {rules} · {minutes}分 · 開始 {opened} · 印刷 {printed} · 時刻 {tz}",
    "seat": "席",
    "player": "プレイヤー",
    "player_id": "プレイヤーID",
    "deck": "デッキ（申告）",
    "duel_wins": "デュエル勝利数",
    "match_result": "マッチ結果：",
    "draw": "引き分け",
    "wins": "{name} の勝ち",
    "nobody": "なし（引き分け）",
    "confirmed": "確認：",
    "not_confirmed": "未確認",
    "not_decided": "未決定",
    "duel": "デュエル {n}",
    "extra_duel": "（エクストラデュエル）",
    "went_first": "{seat} が先攻",
    "chose": "{seat} が選択",
    "started": "開始 {time}",
    "turn": "ターン",
    "prop": "提案",
    "conf": "確認",
    "time": "時刻",
    "note": "メモ",
    "start": "開始",
    "result": "結果：",
    "in_progress": "進行中",
    "no_duel": "デュエルはまだ始まっていません。",
    "rolls": "コインとサイコロ",
    "clock": "時計",
    "rulings": "ジャッジ呼び出しと裁定",
    "penalties": "ペナルティ",
    "decks": "デュエル間のデッキ",
    "none": "なし。",
    "chain_ok": "ハッシュチェーン検証済み",
    "chain_ok_detail": "{n}件のイベント、改ざん・欠落・順序変更なし。",
    "chain_broken": "ハッシュチェーンがイベント {seq} で壊れています：{problem}。",
    "chain_broken_detail": (
        "このシートはプレイヤーが確認した内容と一致しない可能性があります。"
        "ヘッドジャッジを呼んでください。"
    ),
    "head": "ヘッド：",
    "pages": "LP記録のページ",
    "earlier": "前へ",
    "later": "次へ",
    "rows": "{total} 行中 {from}–{to} 行",
    "recovery": "この1台モードの卓の復元コード（この端末にのみ表示）：{code}",
    "receipts_ok": "この端末の署名付きレシート{n}件はログと一致します。",
    "receipts_bad": (
        "この端末のイベント {seq} のレシートはログと一致しません：署名後にログが変更されました。"
        "ヘッドジャッジを呼んでください。"
    ),
    "signatures": "署名：A ______________ B ______________ ジャッジ ______________",
    "reason.lp_zero": "LP 0",
    "reason.concede": "投了",
    "reason.time_lp": "時間切れ：追加ターン後のLPが多い",
    "reason.time_draw": "時間切れ：LP同点",
    "reason.sudden_death": "サドンデス",
    "reason.judge": "ジャッジの裁定",
    "reason.penalty": "ペナルティ",
    "reason.wins": "デュエル勝利数",
    "reason.most_wins": "3デュエル後の勝利数が多い",
    "reason.level_wins": "3デュエル後の勝利数が同じ",
    "reason.time_lead": "時間切れ：勝利数でリード",
    "reason.extra_duel": "エクストラデュエル",
    "reason.match_loss": "ペナルティ：マッチの敗北",
    "reason.disqualification": "ペナルティ：失格",
    "reason.disqualification_total": "ペナルティ：失格",
}

ZH_HANT: dict[str, str] = {
    "title": "正式計分表",
    "title_many": "計分表（{n} 桌）",
    "tools": "計分表工具",
    "print": "列印",
    "back": "回到桌面",
    "csv": "LP 紀錄（CSV）",
    "json": "完整紀錄（JSON）",
    "times": "時間：{tz}",
    "missing": "沒有代碼為 {code} 的桌子。",
    "table": "桌號 {code}",
    "match_no": "第 {n} 場比賽",
    "event": "{event} · 第 {round} 輪 · 第 {number} 桌",
    "meta": "規則 {rules} · {minutes} 分鐘 · 開桌 {opened} · 列印 {printed} · 時間 {tz}",
    "seat": "座位",
    "player": "玩家",
    "player_id": "玩家 ID",
    "deck": "牌組（申報）",
    "duel_wins": "決鬥勝場",
    "match_result": "比賽結果：",
    "draw": "平手",
    "wins": "{name} 獲勝",
    "nobody": "無（平手）",
    "confirmed": "確認：",
    "not_confirmed": "未確認",
    "not_decided": "尚未決定",
    "duel": "第 {n} 局",
    "extra_duel": "（加賽）",
    "went_first": "{seat} 先攻",
    "chose": "{seat} 選擇",
    "started": "開始 {time}",
    "turn": "回合",
    "prop": "提出",
    "conf": "確認",
    "time": "時間",
    "note": "備註",
    "start": "開始",
    "result": "結果：",
    "in_progress": "進行中",
    "no_duel": "尚未開始決鬥。",
    "rolls": "硬幣與骰子",
    "clock": "計時",
    "rulings": "裁判呼叫與裁定",
    "penalties": "判罰",
    "decks": "局間牌組",
    "none": "無。",
    "chain_ok": "雜湊鏈已驗證",
    "chain_ok_detail": "共 {n} 筆事件，沒有被修改、遺漏或調換順序。",
    "chain_broken": "雜湊鏈在事件 {seq} 斷裂：{problem}。",
    "chain_broken_detail": "本表可能與玩家確認的內容不符，請呼叫主裁判。",
    "head": "鏈頭：",
    "pages": "LP 記錄分頁",
    "earlier": "較早",
    "later": "較後",
    "rows": "第 {from}–{to} 行，共 {total} 行",
    "recovery": "這張單手機桌的找回碼（只在這支手機顯示）：{code}",
    "receipts_ok": "本手機的 {n} 張簽章收據與紀錄相符。",
    "receipts_bad": "本手機事件 {seq} 的收據與紀錄不符：紀錄在簽章後被修改。請呼叫主裁判。",
    "signatures": "簽名：A ______________ B ______________ 裁判 ______________",
    "reason.lp_zero": "LP 歸零",
    "reason.concede": "投降",
    "reason.time_lp": "時間到：加時回合後 LP 較多",
    "reason.time_draw": "時間到：LP 相同",
    "reason.sudden_death": "驟死",
    "reason.judge": "裁判判定",
    "reason.penalty": "判罰",
    "reason.wins": "決鬥勝場",
    "reason.most_wins": "三局後勝場較多",
    "reason.level_wins": "三局後勝場相同",
    "reason.time_lead": "時間到：勝場領先",
    "reason.extra_duel": "加賽",
    "reason.match_loss": "判罰：比賽判負",
    "reason.disqualification": "判罰：取消資格",
    "reason.disqualification_total": "判罰：取消資格",
}

CATALOGUE: dict[str, dict[str, str]] = {"en": EN, "ja": JA, "zh-Hant": ZH_HANT}


def _match(tag: str) -> str | None:
    """One language tag to one of ours: zh-Hant/zh-TW/zh-HK/zh-MO/zh -> zh-Hant, ja*, en*."""
    tag = tag.strip().lower()
    if tag.startswith("zh"):
        return "zh-Hant" if not any(x in tag for x in ("hans", "-cn", "-sg")) else None
    if tag.startswith("ja"):
        return "ja"
    if tag.startswith("en"):
        return "en"
    return None


def pick_lang(query: str | None, accept: str | None) -> str:
    """`?lang=` first, then the Accept-Language header by its q-values, else English."""
    if query:
        chosen = _match(query)
        if chosen:
            return chosen
    weighted: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept or "").split(",")):
        tag, _, params = part.partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        chosen = _match(tag)
        if chosen and q > 0:
            weighted.append((-q, i, chosen))
    return sorted(weighted)[0][2] if weighted else DEFAULT


def strings(lang: str) -> Callable[..., str]:
    """`t(key, **vars)` in `lang`; English when a key is missing."""
    table = CATALOGUE.get(lang, EN)

    def t(key: str, **values: object) -> str:
        text = table.get(key) or EN.get(key, key)
        return text.format(**values) if values else text

    return t


def score_text(names: dict[str, str], winner: str | None, wins: dict[str, int]) -> str:
    """The match result written winner first: "Yugi 2-1 Kaiba" (a draw: seat A first)."""
    first = winner if winner in ("A", "B") else "A"
    second = "B" if first == "A" else "A"
    return f"{names[first]} {wins[first]}-{wins[second]} {names[second]}"
