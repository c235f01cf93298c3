// The language picker, shared by the table's bar and the home screen.

import { h } from "../dom.js";
import { LANGS, lang, setLang, t } from "../i18n.js";

/** A language picker (a native select: big enough and accessible everywhere). */
export function langSelect() {
  const sel = h("select", {
    class: "lang",
    testid: "lang",
    "aria-label": t("lang.label"),
    onchange: (e) => setLang(e.target.value),
  });
  for (const l of LANGS) sel.append(h("option", { value: l.code, text: l.label, selected: l.code === lang() }));
  return sel;
}
