"""Every page in zh-Hant and in ja, read as the people of the event would read it: no text node
(nor accessible name, placeholder or title) holds an English word of the en catalogue. Names
and the words people typed themselves (players' and judges' notes, a call's reason), codes and
numbers aside.

The pages: a phone at a table in each phase (registration, before the duel, the duel with a
pending entry, a dispute and a judge call, between duels, the match over) as a seat and as a
spectator, the home and join screens; the judges' floor and a table's page with its log; the
organiser's events and event page; the hall clock; the score sheet (one table, several); the
standings (printable and public); the table cards; the players' event page. Each in a browser
whose language is zh-TW or ja-JP, the way players' and judges' phones are set.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from clients.testing import as_the_server
from e2e.steps import PHONE
from server.core.i18n import load
from server.projections.sheet import filled_log
from server.rules.base import event_words
from server.store import EventStore, bind, db, open_database
from tests.sheet_match import StoreTable, actor, play_match
from tests.staff_actions import Staff, create_organiser
from tests.tables import tables_of

LAPTOP = {"viewport": {"width": 1280, "height": 800}}
LOCALES = {"zh-Hant": "zh-TW", "ja": "ja-JP"}
CATALOGUES = load().texts
TOKEN = re.compile(r"[A-Za-z0-9]+")
PLACEHOLDER = re.compile(r"\{\w+\}")


def words(text: str) -> list[str]:
    """Its words: runs of letters; a run with a digit is a code or a number, not a word."""
    return [w for w in TOKEN.findall(text) if len(w) > 1 and not any(c.isdigit() for c in w)]


def english_words() -> set[str]:
    """Every word of the English catalogue, lower case."""
    found: set[str] = set()
    for text in CATALOGUES["en"].values():
        found |= {w.lower() for w in words(PLACEHOLDER.sub(" ", text))}
    return found


def kept_in(lang: str) -> set[str]:
    """Latin words the language's own catalogue keeps as they are (LP, ID, CSV, OCG ...), as
    written; the app's name is a name (removed from the text with the others)."""
    found: set[str] = set()
    for key, text in CATALOGUES[lang].items():
        if key != "app.name":
            found |= set(words(PLACEHOLDER.sub(" ", text)))
    return found


COLLECT = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    const parent = node.parentElement;
    // translate="no" (HTML's own mark) is a code shown as it is: an event's type, a file format.
    if (!parent || parent.closest("script, style, noscript, [translate=no]")) continue;
    const text = node.nodeValue.trim();
    if (text) out.push([text, parent.closest("[data-testid]")?.dataset.testid || parent.tagName]);
  }
  out.push([document.title, "title"]);
  for (const el of document.querySelectorAll("[aria-label], [placeholder], [title], [alt]")) {
    if (el.closest("[translate=no]")) continue;
    for (const a of ["aria-label", "placeholder", "title", "alt"]) {
      const v = el.getAttribute(a);
      if (v) out.push([v, `${el.dataset.testid || el.tagName}@${a}`]);
    }
  }
  return out;
}"""


@dataclass
class Sweep:
    lang: str
    names: set[str]
    english: set[str] = field(default_factory=english_words)
    found: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.kept = kept_in(self.lang)
        # Longest first, so "Duel Table" goes before a name inside it.
        self.strip = sorted(self.names | {CATALOGUES["en"]["app.name"]}, key=len, reverse=True)
        self.strip += [entry.label for entry in load().languages]

    def english_in(self, text: str) -> list[str]:
        for name in self.strip:
            text = text.replace(name, " ")
        return [w for w in words(text) if w.lower() in self.english and w not in self.kept]

    def check(self, page: Page, where: str) -> None:
        page.wait_for_load_state("load")
        # The page's script has put its words in (until then a staff page is the static HTML,
        # its title in English), then the live parts (sockets, polls) have drawn.
        expect(page.locator("html")).to_have_attribute("lang", self.lang)
        page.wait_for_timeout(400)
        for text, at in page.evaluate(COLLECT):
            bad = self.english_in(text)
            if bad:
                self.found.append(f"{where} [{at}]: {' '.join(bad)}  <- {text[:90]!r}")


class EventTable(StoreTable):
    """One of an event's tables, driven through the store like a phone and a judge would; it
    keeps its seats' tokens (a phone holding a seat) and every word typed at it."""

    def __init__(self, store: EventStore, code: str, typed: set[str]) -> None:
        self.store = store
        self.now = int(time.time() * 1000)
        self.code = code
        self.entries = []
        self.staff_start = True
        self.tokens: dict[str, str] = {}
        self.typed = typed

    def do(self, who: Any, cmd: str, **args: Any) -> list[dict[str, Any]]:
        for key in ("note", "reason", "infraction_note"):
            if isinstance(args.get(key), str) and args[key]:
                self.typed.add(args[key])
        return super().do(who, cmd, **args)

    def join(self) -> EventTable:
        for seat, name in (("A", "Yugi"), ("B", "Kaiba")):
            joined = tables_of(self.store).join(self.code, seat, name, "", self.now)
            self.tokens[seat] = joined.token
        return self


def phone(
    browser: Browser, server: str, lang: str, code: str = "", seat: str = "", token: str = ""
) -> BrowserContext:
    context = browser.new_context(**PHONE, base_url=server, locale=LOCALES[lang])
    context.set_default_timeout(8000)
    if seat:
        held = {code: {"seat": seat, "token": token, "name": "", "at_ms": 0}}
        held_text = json.dumps(json.dumps(held))
        script = f"localStorage.setItem('dt.seats', {held_text})"
        context.add_init_script(f"if (location.protocol.startsWith('http')) {script}")
    return context


def staff_context(browser: Browser, server: str, lang: str, who: Staff) -> BrowserContext:
    context = browser.new_context(**LAPTOP, base_url=server, locale=LOCALES[lang])
    context.set_default_timeout(8000)
    context.add_cookies([{"name": c.name, "value": c.value, "url": server} for c in who.jar])
    return context


@pytest.fixture(scope="module")
def event_day(live_server) -> dict[str, Any]:
    """An event in its first round: tables in every phase, a finished match, alerts, standings."""
    suffix = uuid.uuid4().hex[:4]
    organiser, judge = f"kanri{suffix}", f"shinpan{suffix}"
    create_organiser(live_server, organiser)
    org = Staff(live_server).login(organiser)
    ev = org.create_event("Taipei 2026", 6)
    org.add_judge(ev["id"], judge)
    jdg = Staff(live_server).login(judge)
    for name, pid in (("Ryo", "0101"), ("Mai", "0102"), ("Jonouchi", "0103")):
        status, body = org.request(
            "POST", f"/api/events/{ev['id']}/swiss/players", {"name": name, "player_id": pid}
        )
        assert status == 201, body
    status, body = org.request("POST", f"/api/events/{ev['id']}/swiss/players/3/drop")
    assert status == 200, body
    status, body = org.request("PATCH", f"/api/events/{ev['id']}/swiss", {"public": True})
    assert status == 200, body
    # Every table paired with the players who sit there (the swiss players stand apart).
    org.pair_by_hand(ev, {t["number"]: ("Yugi", "Kaiba") for t in ev["tables"]})
    status, body = org.request("POST", f"/api/events/{ev['id']}/round/start")
    assert status == 200, body

    bind(open_database(live_server.database_url, str(live_server.data_dir)))
    store = EventStore(db)
    # Signed as the server signs (its key file): the sheets' chains verify.
    as_the_server(store, Path(live_server.data_dir), live_server.database_url)
    typed: set[str] = {"Pegasus"}
    codes = [t["code"] for t in ev["tables"]]
    tables = {
        name: EventTable(store, code, typed)
        for name, code in zip(
            ("over", "duel", "registration", "pregame", "between", "free"), codes, strict=True
        )
    }
    play_match(store, table=tables["over"])
    duel = tables["duel"].join().register().start_duel(first="A")
    duel.do("A", "coin.toss", count=1)
    duel.do("B", "die.roll", count=1)
    duel.lp("A", ("B", "damage", 1800), note="Kuriboh")
    rejected = int(
        duel.do("A", "lp.propose", changes=[{"seat": "B", "kind": "damage", "amount": 3000}])[0][
            "data"
        ]["entry"]
    )
    duel.do("B", "lp.reject", entry=rejected, reason="2000?")
    duel.do("judge", "penalty.record", seat="B", level="warning", infraction="slow_play", note="")
    duel.do("A", "judge.call", reason="Kuriboh?")
    duel.do("A", "lp.propose", changes=[{"seat": "B", "kind": "cost", "amount": 500}])
    tables["registration"].join()
    tables["pregame"].join().register()
    between = tables["between"].join().register().start_duel(first="A")
    between.lp("A", ("B", "damage", 8000))
    between.results()
    names = {"Yugi", "Kaiba", "Ryo", "Mai", "Jonouchi", "Taipei 2026", organiser, judge}
    return {
        "event": ev,
        "org": org,
        "judge": jdg,
        "tables": tables,
        "names": names | typed,
        "server": live_server,
        "actor": actor,
    }


def phones_pages(
    browser: Browser, event_day: dict[str, Any], lang: str, sweep: Sweep, new: Any
) -> None:
    """The phones: home, a free table's join screen, each phase as a seat and as a spectator."""
    server, tables = event_day["server"], event_day["tables"]
    page = new(phone(browser, server, lang))
    page.goto("/")
    expect(page.get_by_test_id("home-screen")).to_be_visible()
    sweep.check(page, "home")
    page.goto(f"/t/{tables['free'].code}")
    expect(page.get_by_test_id("join-screen")).to_be_visible()
    sweep.check(page, "join")
    for name in ("registration", "pregame", "duel", "between", "over"):
        t = tables[name]
        for seat in ("A", "B"):
            page = new(phone(browser, server, lang, t.code, seat, t.tokens[seat]))
            page.goto(f"/t/{t.code}")
            expect(page.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
            sweep.check(page, f"table {name} seat {seat}")
        page = new(phone(browser, server, lang))
        page.goto(f"/t/{t.code}?watch")
        expect(page.get_by_test_id("conn-status")).to_have_attribute("data-status", "online")
        sweep.check(page, f"table {name} spectator")


def staff_pages(
    browser: Browser, event_day: dict[str, Any], lang: str, sweep: Sweep, new: Any
) -> None:
    """The judges' and the organiser's pages."""
    server, ev, tables = event_day["server"], event_day["event"], event_day["tables"]
    # The judges: the floor, a table's page with its log, the duel table's calls.
    page = new(staff_context(browser, server, lang, event_day["judge"]))
    page.goto("/judge")
    expect(page.locator("main.staff-main")).to_be_visible()
    page.wait_for_timeout(500)
    sweep.check(page, "judge events")
    page.goto(f"/judge/e/{ev['id']}")
    expect(page.locator("[data-testid^=floor-table-]").first).to_be_visible()
    sweep.check(page, "floor")
    for name in ("over", "duel"):
        page.goto(f"/judge/e/{ev['id']}/t/{tables[name].code}")
        expect(page.get_by_test_id("judge-log")).to_be_visible()
        page.wait_for_timeout(500)
        sweep.check(page, f"judge table {name}")

    # The organiser: events, the event, the cards, the standings.
    page = new(staff_context(browser, server, lang, event_day["org"]))
    page.goto("/organiser")
    expect(page.get_by_test_id("ev-create")).to_be_visible()
    page.wait_for_timeout(500)
    sweep.check(page, "organiser events")
    page.goto(f"/organiser/e/{ev['id']}")
    expect(page.get_by_test_id("event-title")).to_be_visible()
    expect(page.get_by_test_id("cycle-step")).to_be_visible()
    page.wait_for_timeout(800)
    sweep.check(page, "organiser event")
    page.goto(f"/organiser/events/{ev['id']}/cards")
    sweep.check(page, "cards")
    page.goto(f"/organiser/events/{ev['id']}/standings")
    sweep.check(page, "standings (print)")
    codes = ",".join(tables[n].code for n in ("over", "duel"))
    page.goto(f"/sheets?codes={codes}")
    sweep.check(page, "sheets of a round")


def public_pages(
    browser: Browser, event_day: dict[str, Any], lang: str, sweep: Sweep, new: Any
) -> None:
    """The public pages: the hall clock, the standings, the players' event page, the sheet."""
    server, ev, tables = event_day["server"], event_day["event"], event_day["tables"]
    page = new(phone(browser, server, lang))
    page.goto(f"/e/{ev['slug']}/hall")
    expect(page.get_by_test_id("hall-clock")).not_to_be_empty()
    sweep.check(page, "hall")
    page.goto(f"/e/{ev['slug']}/standings")
    sweep.check(page, "standings (public)")
    # The players' event page: before and after a player finds themselves.
    page.goto(f"/e/{ev['slug']}")
    expect(page.get_by_test_id("ev-title")).to_be_visible()
    sweep.check(page, "event page")
    page.get_by_test_id("ev-find-input").fill("Ryo")
    page.get_by_test_id("ev-find-go").click()
    page.locator("[data-testid^=ev-pick-]").first.click()
    expect(page.get_by_test_id("ev-me")).to_be_visible()
    sweep.check(page, "event page, a player")
    for name in ("over", "duel"):
        page.goto(f"/t/{tables[name].code}/sheet")
        sweep.check(page, f"sheet {name}")


PAGES = {"phones": phones_pages, "staff": staff_pages, "public": public_pages}


@pytest.mark.parametrize("pages", list(PAGES))
@pytest.mark.parametrize("lang", ["zh-Hant", "ja"])
def test_no_english_word_on_any_page(
    browser: Browser, event_day: dict[str, Any], lang: str, pages: str
):
    sweep = Sweep(lang, event_day["names"])
    opened: list[BrowserContext] = []

    def new(context: BrowserContext) -> Page:
        opened.append(context)
        return context.new_page()

    try:
        PAGES[pages](browser, event_day, lang, sweep, new)
    finally:
        for context in opened:
            context.close()
    report = Path(__file__).resolve().parent.parent / "data" / f"english-{lang}-{pages}.txt"
    report.parent.mkdir(exist_ok=True)
    report.write_text("\n".join(sweep.found) + "\n", encoding="utf-8")
    assert sweep.found == [], f"{len(sweep.found)} English lines, listed in {report}"


@pytest.mark.parametrize("lang", ["zh-Hant", "ja"])
def test_a_refusal_is_said_whole_in_the_readers_language(
    browser: Browser, event_day: dict[str, Any], lang: str, script_errors
):
    """A refusal is the server's code and details; the page words all of it (no "被拒絕：That
    round has started."): a real one from the staff API, and one at a table."""
    server, ev = event_day["server"], event_day["event"]
    sweep = Sweep(lang, event_day["names"])
    script_errors.allow(r"status of 409")  # the refusal asked for
    context = staff_context(browser, server, lang, event_day["org"])
    try:
        page = context.new_page()
        page.goto(f"/organiser/e/{ev['id']}")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        said = page.evaluate(
            """async (id) => {
                const common = await import('/js/staff/common.js');
                await common.whoami();
                const again = await common.call('POST', `/api/events/${id}/round/next`);
                const toast = await import('/js/toast.js');
                return {status: again.status, code: again.body.code, message: again.body.message,
                        staff: common.refusal(again.body),
                        phone: toast.errorText({code: 'wrong_phase', message: 'The duel is over.'}),
                        unknown: toast.errorText({code: 'no_such_code', message: 'Some words.'})};
            }""",
            ev["id"],
        )
    finally:
        context.close()
    # The next round refused: this one's results are not in (or it has not ended).
    assert said["status"] == 409 and said["code"] in ("results_missing", "round_not_ended"), said
    catalogue = CATALOGUES[lang]
    assert said["staff"] == catalogue["staff.refused"].replace(
        "{message}", catalogue[f"err.{said['code']}"]
    )
    assert said["message"] not in said["staff"]  # the server's English is not shown
    assert said["phone"] == catalogue["err.wrong_phase"]
    assert said["unknown"] == catalogue["err.unknown_code"].replace("{code}", "no_such_code")
    for text in (said["staff"], said["phone"]):  # (an unknown code is shown as the code)
        assert sweep.english_in(text) == [], text


def test_calls_and_old_logs_are_said_in_words(new_phone):
    """A call the server makes is a code and its values: worded from the catalogue, the player's
    words after it as typed. A log written before codes (English inside the reason, the ruling
    in the closing note) is still read in words: the judges' log gets it with its codes filled
    from the event's declaration (`filled_log`, as `GET /api/staff/tables/<code>` sends it),
    and each event is worded from its declared words (sent with that log)."""
    page = new_phone(locale="ja-JP")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    lp_old = "LP entry #2 disputed: 2000?"
    old_log = [
        {
            "seq": 1,
            "type": "judge.called",
            "actor": {"role": "system"},
            "at_ms": 1,
            "data": {"call": 1, "seat": "B", "reason": lp_old, "entry": 2, "duel": None},
        },
        {
            "seq": 2,
            "type": "judge.closed",
            "actor": {"role": "judge", "name": "P"},
            "at_ms": 2,
            "data": {"call": 1, "judge": "P", "note": "dispute void"},
        },
    ]
    old_call, old_closed = (e["data"] for e in filled_log(old_log))
    said = page.evaluate(
        """async ([declared, oldCallData, oldClosedData]) => {
            const i18n = await import('/js/i18n.js');
            const words = await import('/js/words.js');
            words.setEventWords(declared);
            const call = (data) =>
                words.eventWords({type: 'judge.called', data, actor: {role: 'system'}});
            const closed = (data) => words.eventWords({type: 'judge.closed', data});
            const deckOld = 'Deck count problem after the duel (R7.5): 41';
            return {
                coded: i18n.callReason('2000?', {code: 'lp_disputed', entry: 2}),
                expected: i18n.t('call.lp_disputed', {entry: 2}) + ': 2000?',
                deck: i18n.callReason('41', {code: 'deck_problem', deck: 'B', seat: 'B'}),
                deckOld: i18n.callReason(deckOld, {deck: 'B', seat: 'B'}),
                deckExpected: i18n.t('call.deck_problem') + ': 41',
                oldCall: call(oldCallData),
                newCall: call(
                    {call: 1, seat: 'B', code: 'lp_disputed', reason: '2000?', entry: 2, duel: null}
                ),
                oldClosed: closed(oldClosedData),
                newClosed: closed({call: 1, judge: 'P', note: '', code: 'dispute_void'}),
                typed: i18n.callReason('LP entry #2 disputed: 2000?', {code: null, entry: null}),
            };
        }""",
        [event_words(), old_call, old_closed],
    )
    assert said["coded"] == said["expected"]
    assert said["deck"] == said["deckOld"] == said["deckExpected"]
    assert said["oldCall"] == said["newCall"]
    assert said["newCall"]["note"] == said["expected"]
    assert said["oldClosed"] == said["newClosed"] and said["newClosed"]["note"] == ""
    assert "closed" not in said["newClosed"]["text"] and "void" not in said["newClosed"]["text"]
    # A player's own words that copy the server's stay as typed.
    assert said["typed"] == "LP entry #2 disputed: 2000?"
