// The link to a table's printable score sheet, in the viewer's language and time zone.
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
  const tz = viewerZone();
  if (tz) query.set("tz", tz);
  return `/t/${encodeURIComponent(code)}/sheet?${query}`;
}
