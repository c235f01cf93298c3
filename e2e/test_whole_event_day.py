"""A whole event day in Chromium against a real server, checked against standings computed by
hand: 16 players (one late, one no-show, one disqualified, one dropping after round 2), 4 Swiss
rounds and a top 4.

In Chromium: the organiser's page (registration, every step of the round cycle, the no-show's
result, a judge's result for a table still playing at End round, the drop, the top cut), two
judges' floor pages (one of them disqualifies a player from the table's page), the hall clock,
and two round-1 tables played on four phones (360x640): each seat's phone declares its deck,
plays rock-paper-scissors, chooses, and proposes LP entries the other phone confirms, and
both confirm each duel's and the match's result. The other tables are played over the
protocol, as phones do (e2e/test_tournament.py), at the same time. At every step: no request
a page makes is refused (staff pages' HTTP, phones' HTTP and websocket replies), and the
floor, the hall, End round and results.csv agree on which tables are still playing.

The server's SWISS_SEED fixes round 1's shuffle, so the day is the same each time; the expected
pairings and final standings are in e2e/data/whole_event_day.json, computed by hand (see its
comment), not by the app's code.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Response, WebSocket, expect

from clients.testing import LiveServer, isolated_database, start_server, stop_server
from e2e.steps import PHONE, play_match, sit_at_event
from e2e.test_tournament import _play
from tests.staff_actions import PASSWORD, Staff, create_organiser

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

DAY = json.loads((Path(__file__).parent / "data" / "whole_event_day.json").read_text())
LAPTOP = {"viewport": {"width": 1280, "height": 900}, "is_mobile": False, "has_touch": False}
NO_SHOW, DISQUALIFIED, DROPS, LATE = 15, 2, 8, 16


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, database_url: str
) -> Iterator[LiveServer]:
    """This module's own server, with round 1's random source fixed (SWISS_SEED)."""
    url = isolated_database(database_url, "whole_event_day")
    # A cheap password hash, as the in-process tests have (tests/conftest.py): the day's seven
    # logins need not cost the machine the production hash's time and memory.
    env = {"SWISS_SEED": str(DAY["seed"]), "PASSWORD_HASH_METHOD": "scrypt:1024:1:1"}
    server, process = start_server(tmp_path_factory.mktemp("whole_event_day"), url, env)
    try:
        yield server
    finally:
        stop_server(process)


def name(n: int) -> str:
    return f"Duelist {n:02}"


def login(page: Page, username: str) -> None:
    page.get_by_test_id("login-user").fill(username)
    page.get_by_test_id("login-pass").fill(PASSWORD)
    page.get_by_test_id("login-go").click()


class Refusals:
    """Every API request the pages make that the server refuses (4xx or 5xx), and every
    command a phone sends over its table's websocket that the server answers with a refusal
    (a reply `ok: false`, or an error frame)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def watch(self, page: Page) -> None:
        def on_response(r: Response) -> None:
            if "/api/" in r.url and r.request.method != "GET" and r.status >= 400:
                self.seen.append(f"{r.request.method} {r.url} -> {r.status} {r.text()[:200]}")

        def on_frame(payload: str | bytes) -> None:
            try:
                msg = json.loads(payload)
            except ValueError:
                return
            if not isinstance(msg, dict):
                return
            if (msg.get("type") == "reply" and msg.get("ok") is False) or msg.get("type") == (
                "error"
            ):
                self.seen.append(f"websocket on {page.url}: {json.dumps(msg)[:200]}")

        def on_socket(ws: WebSocket) -> None:
            ws.on("framereceived", on_frame)

        page.on("response", on_response)
        page.on("websocket", on_socket)

    def check(self) -> None:
        assert self.seen == [], "refused:\n" + "\n".join(self.seen)


def winner(t: dict) -> str:
    """Every match of the day: the lower registration number wins (the fixture's rule)."""
    return "A" if t["a"]["player"] < t["b"]["player"] else "B"


def over_protocol(server: Any, staff: Staff, event_id: int, tables: list[dict]) -> Any:
    """The tables' matches played by websocket phones (a coroutine to run)."""
    status, detail = staff.request("GET", f"/api/events/{event_id}")
    assert status == 200, detail
    claims = {t["code"]: t["claims"] for t in detail["tables"]}

    async def all_tables() -> None:
        await asyncio.gather(
            *(
                _play(
                    server,
                    t["code"],
                    claims[t["code"]],
                    {seat: f"{t[seat.lower()]['player']:010}" for seat in "AB"},
                    winner(t),
                )
                for t in tables
            )
        )

    return all_tables()


def play_over_protocol(server: Any, staff: Staff, event_id: int, tables: list[dict]) -> None:
    """The tables' matches played by websocket phones; the lower registration number wins."""
    if not tables:
        return
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's loop
        pool.submit(asyncio.run, over_protocol(server, staff, event_id, tables)).result(timeout=180)


def playing_by_csv(staff: Staff, event_id: int, round_no: int) -> set[int]:
    status, raw = staff.request("GET", f"/api/events/{event_id}/results.csv")
    assert status == 200 and raw.startswith("\ufeff"), status
    rows = csv.DictReader(io.StringIO(raw.removeprefix("\ufeff")))
    return {int(r["table"]) for r in rows if int(r["round"]) == round_no and not r["match_winner"]}


def playing_by_end_round(staff: Staff, event_id: int) -> set[int]:
    status, body = staff.request("GET", f"/api/events/{event_id}/round/unfinished")
    assert status == 200, body
    return {t["number"] for t in body["tables"]}


def agree(
    staff: Staff, event_id: int, round_no: int, expected: set[int], floors: list[Page], hall: Page
) -> None:
    """The floor (both judges), the hall, End round and results.csv: the same tables playing."""
    for floor in floors:
        cards = floor.locator("[data-testid^=floor-table-]")
        expect(cards.first).to_be_visible()
        deadline = time.monotonic() + 15
        while True:
            phases = floor.eval_on_selector_all(
                "[data-testid^=floor-table-]",
                "els => els.map(e => [e.dataset.testid.slice(12), e.dataset.phase])",
            )
            on_floor = {int(n) for n, phase in phases if phase != "match_over"}
            if on_floor == expected or time.monotonic() > deadline:
                break
            floor.wait_for_timeout(200)
        assert on_floor == expected, (round_no, phases)
    expect(hall.get_by_test_id("hall-playing")).to_have_attribute(
        "data-playing", str(len(expected)), timeout=15_000
    )
    assert playing_by_end_round(staff, event_id) == expected
    assert playing_by_csv(staff, event_id, round_no) == expected


def test_a_whole_event_day_ends_in_the_standings_computed_by_hand(
    live_server, browser: Browser, script_errors
):
    script_errors.allow(r"/api/auth/me")  # the judges' page asks whether it is logged in yet
    # Eight pages on one machine: a page's answer may take longer than expect's 5 s default.
    expect.set_options(timeout=15_000)
    started = time.monotonic()
    suffix = uuid.uuid4().hex[:6]
    organiser, judges = f"org{suffix}", [f"ja{suffix}", f"jb{suffix}"]
    create_organiser(live_server, organiser)
    staff = Staff(live_server).login(organiser)
    ev = staff.create_event("Winter Cup", 8)
    eid = ev["id"]
    for j in judges:
        staff.add_judge(eid, j)
    refusals = Refusals()
    # The day's pages, not the offline shell (e2e/test_pwa.py): eight service workers each
    # caching the whole shell would only slow the day down.
    pages = {"base_url": live_server, "service_workers": "block"}
    contexts = [browser.new_context(**pages, **LAPTOP) for _ in range(4)]
    contexts += [browser.new_context(**pages, **PHONE) for _ in range(4)]
    for c in contexts:
        c.set_default_timeout(20_000)
    org, floor_a, floor_b, hall, *phones = (c.new_page() for c in contexts)
    floors = [floor_a, floor_b]
    for page in (org, floor_a, floor_b, *phones):
        refusals.watch(page)
    try:
        org.goto(f"/organiser/e/{eid}")
        login(org, organiser)
        expect(org.get_by_test_id("swiss")).to_be_visible()
        for floor, judge in zip(floors, judges, strict=True):
            floor.goto("/judge")
            login(floor, judge)
            expect(floor.get_by_test_id("floor")).to_be_visible()
        hall.goto(f"/e/{ev['slug']}/hall")

        def register(n: int) -> None:
            org.get_by_test_id("player-name").fill(name(n))
            org.get_by_test_id("player-id").fill(f"{n:010}")
            org.get_by_test_id("player-add").click()
            expect(org.get_by_test_id(f"player-{n}")).to_contain_text(name(n))

        for n in range(1, LATE):
            register(n)
        refusals.check()

        def summary() -> dict[str, Any]:
            status, s = staff.request("GET", f"/api/events/{eid}/swiss")
            assert status == 200, s
            return s

        def primary(testid: str) -> None:
            """The step's one primary button (the page refreshes itself every 5 s)."""
            button = org.get_by_test_id(testid)
            expect(button).to_be_visible(timeout=15_000)
            button.click()

        for round_no in range(1, 5):
            key = str(round_no)
            if round_no == 2:
                register(LATE)  # arrives late: plays from round 2 on
            if round_no == 3:
                org.get_by_test_id(f"drop-{DROPS}").click()  # drops after round 2
                expect(org.get_by_test_id(f"drop-{DROPS}")).to_have_count(0)
            primary("cycle-pair")
            expect(org.get_by_test_id("round-start")).to_be_visible()
            s = summary()
            tables = s["rounds"][-1]["tables"]
            paired = [[t["a"]["player"], t["b"]["player"]] for t in tables]
            assert paired == DAY["pairings"][key], round_no
            bye = (s["rounds"][-1].get("bye") or {}).get("player")
            assert bye == DAY["byes"].get(key), round_no
            everyone = {t["table"] for t in tables}
            primary("round-start")
            expect(org.get_by_test_id("round-started")).to_be_visible()
            agree(staff, eid, round_no, everyone, floors, hall)

            in_page: list[dict] = []  # tables played on the phones
            by_hand: list[dict] = []  # tables whose result a staff page enters
            left: list[dict] = []  # still playing at End round: a judge's result ends them
            if round_no == 1:
                # Two tables on four real phones, each seat by its card's claim and the
                # pairing's player ID.
                event = staff.request("GET", f"/api/events/{eid}")[1]
                in_page = [tables[2], tables[4]]
                for pair, t in zip((phones[:2], phones[2:]), in_page, strict=True):
                    for phone, seat in zip(pair, "AB", strict=True):
                        n = t[seat.lower()]["player"]
                        pid = f"{n:010}"
                        sit_at_event(phone, live_server, event, t["code"], seat, name(n), pid)
                        expect(phone.get_by_test_id("clock")).to_be_visible()
                # The no-show: the organiser enters the judge's result (his opponent wins).
                t = next(t for t in tables if NO_SHOW in (t["a"]["player"], t["b"]["player"]))
                assert t not in in_page
                by_hand.append(t)
                org.get_by_test_id(f"result-pick-{t['table']}").select_option(
                    "A" if t["b"]["player"] == NO_SHOW else "B"
                )
                org.get_by_test_id(f"result-enter-{t['table']}").click()
                agree(staff, eid, round_no, everyone - {t["table"]}, floors, hall)
            if round_no == 3:
                # A judge disqualifies player 2 at his table, from the table's page.
                t = next(t for t in tables if DISQUALIFIED in (t["a"]["player"], t["b"]["player"]))
                by_hand.append(t)
                floor_b.get_by_test_id(f"floor-table-{t['table']}").click()
                seat = "A" if t["a"]["player"] == DISQUALIFIED else "B"
                floor_b.get_by_test_id("penalty-seat").select_option(seat)
                floor_b.get_by_test_id("penalty-level").select_option("disqualification")
                floor_b.get_by_test_id("penalty-infraction").select_option("cheating")
                floor_b.get_by_test_id("penalty-note").fill("cards marked on the sleeves")
                floor_b.get_by_test_id("penalty-go").click()
                floor_b.get_by_test_id("ruling-yes").click()  # it decides the match: asked first
                # The server's answer on the table's page before the judge goes back.
                expect(floor_b.get_by_test_id("judge-toast")).to_have_class(re.compile(r"\bok\b"))
                floor_b.get_by_test_id("back-to-floor").click()
                agree(staff, eid, round_no, everyone - {t["table"]}, floors, hall)

            if round_no == 2:
                left = [tables[-1]]  # not finished in time: ended by a judge's result
            others = [t for t in tables if t not in in_page + by_hand + left]
            # The phones' tables in the page while the others play over the protocol.
            with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's loop
                played = pool.submit(asyncio.run, over_protocol(live_server, staff, eid, others))
                for pair, t in zip((phones[:2], phones[2:]), in_page, strict=False):
                    names = {seat: name(t[seat.lower()]["player"]) for seat in "AB"}
                    play_match(pair[0], pair[1], winner(t), names)
                played.result(timeout=180)
            refusals.check()
            done = {t["table"] for t in others + in_page + by_hand}
            assert everyone - done == {t["table"] for t in left}
            agree(staff, eid, round_no, everyone - done, floors, hall)

            # End round: the tables still playing are named; the judges' results end them.
            # Every result in: nothing to end, the page's one primary button is the next step.
            step = org.get_by_test_id("cycle-step")
            if everyone - done:
                primary("round-end")
                dialog = org.get_by_test_id("end-round-dialog")
                expect(dialog).to_be_visible()
                shown = dialog.locator("[data-testid^=end-round-table-]")
                expect(shown).to_have_count(len(everyone - done))
                org.get_by_test_id("end-round-confirm").click()
                expect(step).to_have_attribute("data-step", "results")
                for t in tables:
                    if t["table"] in done:
                        continue
                    org.get_by_test_id(f"cycle-result-pick-{t['table']}").select_option(winner(t))
                    org.get_by_test_id(f"cycle-result-{t['table']}").click()
                    expect(org.get_by_test_id(f"cycle-waiting-{t['table']}")).to_have_count(0)
            expect(step).to_have_attribute("data-step", "results_in")
            expect(org.get_by_test_id("round-end")).to_have_count(0)
            agree(staff, eid, round_no, set(), floors, hall)
            expect(org.get_by_test_id("swiss-progress")).to_contain_text(f"{round_no} of 4")
            refusals.check()

        # The final Swiss standings: exactly the hand-computed fixture.
        s = summary()
        got = [
            {
                k: row[k]
                for k in (
                    *("rank", "player", "points", "wins", "losses", "omw", "oomw"),
                    *("dropped", "disqualified"),
                )
            }
            for row in s["standings"]
        ]
        assert got == DAY["standings"]
        for row in DAY["standings"]:
            line = org.get_by_test_id(f"standing-{row['rank']}")
            expect(line).to_contain_text(name(row["player"]))
            mark = "(DQ)" if row["disqualified"] else "(Drop)" if row["dropped"] else None
            if mark:  # the organiser's page says which: a disqualification is not a drop
                expect(line).to_contain_text(mark)
        status, raw = staff.request("GET", f"/api/events/{eid}/standings.csv")
        assert status == 200 and raw.startswith("\ufeff"), status
        ranked = list(csv.DictReader(io.StringIO(raw.removeprefix("\ufeff"))))
        assert [r["name"] for r in ranked] == [name(row["player"]) for row in DAY["standings"]]
        marks = [("yes" if row["disqualified"] else "") for row in DAY["standings"]]
        assert [r["disqualified"] for r in ranked] == marks

        # Top 4: seeded by those standings; the lower number wins each match.
        org.get_by_test_id("cycle-cut-size").select_option("4")
        primary("cycle-cut")
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "start")
        s = summary()
        cut = [[t["a"]["player"], t["b"]["player"]] for t in s["rounds"][-1]["tables"]]
        assert cut == DAY["top4"]
        expect(org.get_by_test_id("round-start")).to_be_visible()
        primary("round-start")
        # Started on the server before its tables are played (they wait for the round).
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "playing")
        cut_round = s["rounds"][-1]["number"]
        agree(staff, eid, cut_round, {1, 2}, floors, hall)
        play_over_protocol(live_server, staff, eid, s["rounds"][-1]["tables"])
        agree(staff, eid, cut_round, set(), floors, hall)
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "results_in")
        expect(org.get_by_test_id("round-end")).to_have_count(0)
        primary("cycle-cut-next")
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "start")
        expect(org.get_by_test_id("round-start")).to_be_visible()
        s = summary()
        final = s["rounds"][-1]["tables"]
        assert len(final) == 1
        primary("round-start")
        expect(org.get_by_test_id("cycle-step")).to_have_attribute("data-step", "playing")
        final_round = s["rounds"][-1]["number"]
        agree(staff, eid, final_round, {1}, floors, hall)  # only the cut's table counts
        play_over_protocol(live_server, staff, eid, final)
        agree(staff, eid, final_round, set(), floors, hall)
        expect(org.get_by_test_id("champion")).to_contain_text(name(DAY["champion"]))
        assert summary()["champion"]["player"] == DAY["champion"]
        refusals.check()
        # How long it took is printed, not asserted: a shared machine's hour sets it.
        print(f"the whole event day took {time.monotonic() - started:.0f} s")
    finally:
        expect.set_options(timeout=5_000)
        for c in contexts:
            c.close()
