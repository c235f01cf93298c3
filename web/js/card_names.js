// Card names for passcodes. A deck list given by a .ydk file or a ydke:// link (or matched to
// loaded card names) keeps each card by its passcode; the screens show it by its name in the
// reader's language, asked of the server once per passcode and language. Names come into the
// elements when they arrive; a passcode no loaded file names stays as it is.

import { api } from "./api.js";
import { lang } from "./i18n.js";

const known = new Map(); // `${lang}:${passcode}` -> name ("" once asked and not named)

const isPasscode = (card) => /^\d{1,10}$/.test(card);

/** Names the server already gave (the deck-list check's answer), for this page's language. */
export function rememberNames(names) {
  const l = lang();
  for (const [code, name] of Object.entries(names || {})) if (name) known.set(`${l}:${code}`, name);
}

/** A card as it is shown now: its known name, else as it is (a typed name, a passcode). */
export function cardLabel(card) {
  return known.get(`${lang()}:${card}`) || card;
}

/** Show each [element, card, format(name) -> text] by the card's name once it is known. */
export function nameCards(items) {
  const l = lang();
  const paint = () => {
    for (const [el, card, format] of items) {
      const name = known.get(`${l}:${card}`);
      if (name) el.textContent = format ? format(name) : name;
    }
  };
  const missing = [...new Set(items.map(([, c]) => c).filter((c) => isPasscode(c) && !known.has(`${l}:${c}`)))].slice(0, 200);
  paint();
  if (!missing.length) return;
  for (const c of missing) known.set(`${l}:${c}`, "");
  api("GET", `/api/cards/names?codes=${missing.join(",")}&lang=${encodeURIComponent(l)}`).then((res) => {
    for (const c of missing) known.set(`${l}:${c}`, (res.ok && res.body.names && res.body.names[c]) || "");
    paint();
  });
}
