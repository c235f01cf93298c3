// Staff strings for running an event on the day: rounds, the hall clock, alerts, table cards.
// Merged into the shared catalogues with strings.js (see common.js).

export const en = {
  "run.round_refused": "Not started: {list}",
  "run.end_title": "End round {n}?",
  "run.end_none": "Every match of this round is over.",
  "run.end_playing": "{n} tables are still playing; their phones will be told the round has ended:",
  "run.end_confirm": "End the round",
  "run.cancel": "Cancel",
  "run.ended": "Round {n} ended; {count} tables still playing were told.",
  "run.no_names": "(no players)",
};

export const ja = {
  "run.round_refused": "開始できなかったテーブル：{list}",
  "run.end_title": "第{n}ラウンドを終了しますか？",
  "run.end_none": "このラウンドのマッチはすべて終わっています。",
  "run.end_playing": "{n} 卓がまだ対戦中です。その端末にラウンド終了が通知されます：",
  "run.end_confirm": "ラウンドを終了",
  "run.cancel": "キャンセル",
  "run.ended": "第{n}ラウンドを終了しました。対戦中の {count} 卓に通知しました。",
  "run.no_names": "（プレイヤーなし）",
};

export const zhHant = {
  "run.round_refused": "未能開始：{list}",
  "run.end_title": "結束第 {n} 輪？",
  "run.end_none": "本輪所有比賽均已結束。",
  "run.end_playing": "仍有 {n} 桌在比賽，其手機將收到本輪結束的通知：",
  "run.end_confirm": "結束本輪",
  "run.cancel": "取消",
  "run.ended": "第 {n} 輪已結束；已通知仍在比賽的 {count} 桌。",
  "run.no_names": "（無玩家）",
};
