import { timeZone } from "./dom.js";

// The link to a table's printable score sheet, in the viewer's language and the venue's time zone
// (the viewer's own when the server names none).
// The zone goes in the URL (?tz=) so the server writes the times, and a printed PDF shows
// the same local times as the screen (see docs/decisions.md).

export function viewerZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return "";
  }
}

export function sheetHref(code, lang) {
  const query = new URLSearchParams();
  if (lang) query.set("lang", lang);
  const tz = timeZone() || viewerZone(); // the venue's zone when the server names one
  if (tz) query.set("tz", tz);
  return `/t/${encodeURIComponent(code)}/sheet?${query}`;
}
