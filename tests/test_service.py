"""The table service (server/service/tables.py): every append and its publish in one place; and the
store's refusals carry a kind, never an HTTP status, which the edge maps in one place."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from server.api.http import STATUS_OF_KIND, status_of
from server.core.errors import (
    AppError,
    Busy,
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    Unauthenticated,
)
from server.rules import Actor, RuleError, get_ruleset
from server.service.hub import LocalHub
from server.service.tables import TableService
from server.store import Appended, EventStore

SERVER = Path(__file__).resolve().parent.parent / "server"
T0 = 1_764_484_800_000


def calls_of(path: Path, attribute: str) -> list[int]:
    """The lines of `path` calling `<anything>.<attribute>(...)`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attribute
    ]


def test_only_the_service_and_the_hub_publish():
    outside = {
        str(path.relative_to(SERVER.parent)): lines
        for path in sorted(SERVER.rglob("*.py"))
        if path.relative_to(SERVER).as_posix() not in ("service/hub.py", "service/tables.py")
        and (lines := calls_of(path, "publish"))
    }
    assert outside == {}


def test_the_store_names_no_http_status():
    """Below the edge a refusal has a kind; `status=` is the edge's. events.py is left as it
    is until its split into chain, cache and writers lands."""
    offenders = []
    for path in sorted((SERVER / "store").glob("*.py")):
        if path.name == "events.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(k.arg == "status" for k in node.keywords):
                offenders.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Name) and node.id == "AppError":
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (DomainError("invalid"), 400),
        (Unauthenticated("bad_login"), 401),
        (Forbidden("forbidden"), 403),
        (NotFound("no_such_event"), 404),
        (Conflict("round_started"), 409),
        (Busy("busy"), 503),
        (AppError("too_large", status=413), 413),
        (AppError("seat_needed"), 400),
    ],
)
def test_the_edge_maps_each_kind_to_its_status(error: DomainError, status: int):
    assert status_of(error) == status


def test_every_kind_has_a_status():
    kinds = {DomainError, *DomainError.__subclasses__()} - {AppError}
    assert kinds == set(STATUS_OF_KIND)


def test_an_unknown_event_over_http_is_still_404(client):
    answer = client.get("/api/hall/no-such-slug")
    assert answer.status_code == 404
    assert answer.get_json()["code"] == "no_such_event"


def published_to(hub: LocalHub, code: str) -> list[int]:
    seen: list[int] = []
    hub.subscribe(code, lambda _code, seq: seen.append(seq))
    return seen


def seated(store: EventStore) -> tuple[TableService, LocalHub, str]:
    hub = LocalHub()
    tables = TableService(store, hub)
    code = tables.create_table(get_ruleset(), T0)
    for seat, name in (("A", "Yugi"), ("B", "Kaiba")):
        tables.join(code, seat, name, "", T0)
    return tables, hub, code


def test_a_command_publishes_its_new_seq_after_the_answer(store: EventStore):
    tables, hub, code = seated(store)
    order: list[str] = []
    hub.subscribe(code, lambda _c, seq: order.append(f"publish {seq}"))
    done = tables.command(
        code,
        "deck.declare",
        {"main": 40, "extra": 15, "side": 15},
        Actor("seat", "A"),
        "d1",
        T0,
        answered=lambda result: order.append(f"answer {result.seq}"),
    )
    assert order == [f"answer {done.seq}", f"publish {done.seq}"]


def test_a_repeated_command_is_answered_but_not_published(store: EventStore):
    tables, hub, code = seated(store)
    args = {"main": 40, "extra": 15, "side": 15}
    tables.command(code, "deck.declare", args, Actor("seat", "A"), "d1", T0)
    seen = published_to(hub, code)
    again = tables.command(code, "deck.declare", args, Actor("seat", "A"), "d1", T0)
    assert again.duplicate and seen == []


def test_a_refused_command_publishes_nothing(store: EventStore):
    tables, hub, code = seated(store)
    seen = published_to(hub, code)
    with pytest.raises(RuleError):
        tables.command(code, "lp.confirm", {"entry": 99}, Actor("seat", "A"), "x", T0)
    assert seen == []


def test_a_released_seat_closes_its_phone_before_the_publish(store: EventStore):
    tables, hub, code = seated(store)
    order: list[str] = []
    hub.subscribe(code, lambda _c, seq: order.append("publish"))
    tables.release_seat(code, "A", "judge J", T0, ended=lambda old: order.append("ended"))
    assert order == ["ended", "publish"]
    assert store.snapshot(code).state.seats["A"].joined is False


def test_a_staff_members_ids_are_apart_from_a_seats_and_from_other_staff(store: EventStore):
    """docs/protocol.md, command ids: an id is its sender's (a seat, or a staff login); the same
    sender's id with other content is `id_reused` and writes nothing."""
    from server.core.errors import Conflict
    from server.service.tables import command_digest, phone_command_id, sender_of

    tables, _hub, code = seated(store)
    seat, ayako, ren = Actor("seat", "A"), Actor("judge", name="ayako"), Actor("judge", name="ren")

    def send(actor: Actor, cmd: str, args: dict) -> Appended:
        stored = phone_command_id("1", sender_of(actor))
        return tables.command(code, cmd, args, actor, stored, T0, digest=command_digest(cmd, args))

    assert not send(seat, "coin.toss", {}).duplicate
    assert not send(ayako, "clock.start", {}).duplicate  # the judge's "1" is not seat A's
    assert not send(ren, "clock.pause", {}).duplicate  # nor another judge's
    assert send(ayako, "clock.start", {}).duplicate  # the same again: a retry
    seq = store.snapshot(code).seq
    with pytest.raises(Conflict) as reused:
        send(seat, "coin.toss", {"count": 2})
    assert reused.value.code == "id_reused" and store.snapshot(code).seq == seq


def test_every_table_turn_counts_toward_the_collectors_measure_of_a_busy_hall(
    store: EventStore,
):
    """The worker's full collection waits for a quiet minute measured in table turns
    (`server/runtime/gctune.py`, its default measure): a command is one."""
    from server.runtime import gctune

    tables, _hub, code = seated(store)
    before = gctune.turns_taken()
    tables.command(
        code, "deck.declare", {"main": 40, "extra": 15, "side": 15}, Actor("seat", "A"), "t1", T0
    )
    assert gctune.turns_taken() > before
    assert inspect.signature(gctune.tune).parameters["activity"].default is gctune.turns_taken
