// Readable lines for judges: "Yugi proposed 1800 damage to Kaiba, Kaiba rejected: it was 800".

import { t } from "../i18n.js";

/** One LP change in words, with the seat's player name. */
export function changeText(c, names) {
  const name = names[c.seat] || c.seat;
  return t(`run.chg.${c.kind}`, { n: c.amount, name });
}

/** A disputed entry: who proposed what, who rejected it and why. */
export function disputeLine(d, names) {
  const by = names[d.by] || d.by;
  const who = names[d.rejected_by || d.seat] || d.rejected_by || d.seat;
  const what = (d.changes || []).map((c) => changeText(c, names)).join(t("run.and"));
  const reason = d.reason !== undefined ? d.reason : d.detail;
  return `${t("run.proposed", { by, what })}, ${reason ? t("run.rejected_reason", { name: who, reason }) : t("run.rejected", { name: who })}`;
}
