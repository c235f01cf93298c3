// The hall clock's strings (merged into the shared catalogues by hall.js).

export const en = {
  "hall.round": "Round {n}",
  "hall.waiting": "Starts soon",
  "hall.over": "Round over",
  "hall.time": "TIME",
  "hall.playing": "{n} of {total} tables still playing",
  "hall.extra": "Extra turns: tables {list}",
  "hall.offline": "Reconnecting…",
  "hall.fullscreen": "Full screen",
};

export const ja = {
  "hall.round": "第{n}ラウンド",
  "hall.waiting": "まもなく開始",
  "hall.over": "ラウンド終了",
  "hall.time": "タイム",
  "hall.playing": "対戦中 {n} / {total} 卓",
  "hall.extra": "エクストラターン：{list} 番テーブル",
  "hall.offline": "再接続中…",
  "hall.fullscreen": "全画面",
};

export const zhHant = {
  "hall.round": "第 {n} 輪",
  "hall.waiting": "即將開始",
  "hall.over": "本輪結束",
  "hall.time": "時間到",
  "hall.playing": "仍在比賽：{n} / {total} 桌",
  "hall.extra": "額外回合：第 {list} 桌",
  "hall.offline": "重新連線中…",
  "hall.fullscreen": "全螢幕",
};
