"""The judges' floor view of one table: a small projection of the table's view.

Pure: no I/O, no clock reads. `summarise` takes the view (`server.rules.view`) and returns what
a judge walking the floor needs at a glance: names, duel score, LP, phase, time, and alerts with
the server time each began (the screen shows their age)."""

from __future__ import annotations

from typing import Any

ALERT_ORDER = (
    "judge_call",
    "dispute",
    "seat_request",
    "seat_mismatch",
    "no_show",
    "time_called",
    "deck_problem",
    "window_over",
    "turn_over",
    "unconfirmed_result",
)
DECK_FLAGS = ("deck_check", "exchange_refused")


def dispute_calls(v: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Entry number -> the judge call its rejection made (server.rules.ledger.reject), for the
    table's disputes: the call that names the entry, never one merely worded like it."""
    entries = {d["entry"] for d in v["disputes"]}
    found: dict[int, dict[str, Any]] = {}
    for c in v["calls"]:
        entry = c.get("entry")
        if entry is not None and entry in entries and entry not in found:
            found[entry] = c
    return found


def phase_of(v: dict[str, Any]) -> dict[str, Any]:
    """What the table is doing: duel n, extra turn k/3, sudden death, between duels, ..."""
    t = v["time"]
    phase = v["phase"]
    out: dict[str, Any] = {"kind": phase, "duel": v["duel_no"]}
    if phase == "duel":
        stage = t.get("stage")
        if stage:  # the time-over stage's code (R5): the judges' screens word it
            # the stage's turns as the rules count them (`time_over.stage_turns`, in the view)
            out.update(stage=stage, n=t["extra_turn"], of=v["stage_turns"])
        if v.get("turn"):
            out["turn_no"] = v["turn"]["no"]
            out["turn_player"] = v["turn"]["player"]
    elif phase == "between" and v.get("window"):
        out["since_ms"] = v["window"]["started_ms"]
        out["limit_ms"] = v["window"]["limit_ms"]
    elif phase == "match_over":
        out["winner"] = v["match"]["winner"]
        out["reason"] = v["match"]["reason"]
    return out


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def seat_alerts(
    v: dict[str, Any], pairing: dict[str, dict[str, str]] | None, no_show_ms: int | None
) -> list[dict[str, Any]]:
    """A paired table's seats against its pairing: seats still empty `no_show_ms` after the
    round's start (tardiness, PENALTIES.md; `since_ms` is when that is due, the screen shows it
    from then on), and a seat taken under another name or ID than the pairing's."""
    if not pairing or not any(p["name"] for p in pairing.values()):
        return []
    found: list[dict[str, Any]] = []
    seats = v["seats"]
    started = v["clock"].get("started_ms")
    empty = [k for k in sorted(seats) if not seats[k]["joined"] and pairing[k]["name"]]
    if empty and started is not None and no_show_ms is not None and v["phase"] != "match_over":
        found.append(
            {
                "kind": "no_show",
                "since_ms": started + no_show_ms,
                "seat": empty[0] if len(empty) == 1 else None,
                "detail": ",".join(empty),
            }
        )
    for k in sorted(seats):
        seat, paired = seats[k], pairing[k]
        if not seat["joined"] or not paired["name"]:
            continue
        ids = seat["player_id"] and paired["player_id"]
        if not _same(seat["name"], paired["name"]) or (
            ids and not _same(seat["player_id"], paired["player_id"])
        ):
            found.append(
                {
                    "kind": "seat_mismatch",
                    "since_ms": None,
                    "seat": k,
                    "detail": f"{seat['name']} / {paired['name']}",
                }
            )
    return found


def alerts_of(
    v: dict[str, Any],
    phase_since_ms: int | None = None,
    pairing: dict[str, dict[str, str]] | None = None,
    no_show_ms: int | None = None,
) -> list[dict[str, Any]]:
    """Everything a judge should look at, most urgent kinds first, oldest first within a kind."""
    found: list[dict[str, Any]] = seat_alerts(v, pairing, no_show_ms)
    linked = dispute_calls(v)
    linked_calls = {c["call"] for c in linked.values()}
    for c in v["calls"]:
        if c["status"] != "closed" and c["call"] not in linked_calls:
            found.append(
                {
                    "kind": "judge_call",
                    "since_ms": c["at_ms"],
                    "seat": c["seat"],
                    "detail": c["reason"],
                    "entry": c["entry"],
                    "duel": c["duel"],
                    **(
                        {"code": c["code"], "params": c.get("params") or {}}
                        if c.get("code")
                        else {}
                    ),
                    "call": c["call"],
                    "status": c["status"],
                    "judge": c["judge"] or "",
                }
            )
    for d in v["disputes"]:
        if d["status"] == "open":
            call = linked.get(d["entry"])
            found.append(
                {
                    "kind": "dispute",
                    "since_ms": d["at_ms"],
                    "seat": d["rejected_by"],
                    "detail": d["reason"],
                    "entry": d["entry"],
                    "by": d["by"],
                    "changes": d["changes"],
                    "call": call["call"] if call else None,
                    "status": call["status"] if call else "open",
                    "judge": (call["judge"] if call else "") or "",
                }
            )
    for r in v.get("seat_requests", []):
        holder = v["seats"].get(r["seat"], {})
        found.append(
            {
                "kind": "seat_request",
                "since_ms": r["at_ms"],
                "seat": r["seat"],
                "detail": f"{r['name']} {r['player_id']}".strip(),
                "request": r["request"],
                "why": r["why"],
                "taken_by": holder.get("name", "") if holder.get("joined") else "",
                # Asked under the holder's own name (and ID, when both have one): one of the
                # two is not who they say.
                "twin": bool(holder.get("joined"))
                and _same(r["name"], holder.get("name", ""))
                and (
                    not (r["player_id"] and holder.get("player_id"))
                    or _same(r["player_id"], holder.get("player_id", ""))
                ),
            }
        )
    t = v["time"]
    if t["called"] and v["phase"] != "match_over":
        found.append(
            {
                "kind": "time_called",
                "since_ms": t["called_ms"],
                "seat": None,
                "detail": t.get("stage") or "",
            }
        )
    for f in v["flags"]:
        if f["kind"] in DECK_FLAGS and f["duel"] >= v["duel_no"] - 1 and v["phase"] != "duel":
            found.append(
                {
                    "kind": "deck_problem",
                    "since_ms": f["at_ms"],
                    "seat": f["seat"],
                    "detail": f["detail"],
                }
            )
    w = v.get("window")
    if w and w["flagged"] and v["phase"] in ("between", "pregame"):
        found.append(
            {
                "kind": "window_over",
                "since_ms": w["started_ms"] + w["limit_ms"],
                "seat": None,
                "detail": "",
            }
        )
    turn = v.get("turn")
    if v["phase"] == "duel" and turn:
        think_ms = v["ruleset"].get("think_seconds", 180) * 1000
        label = f"turn {turn['no']}"
        # This turn's flag: raised in this duel after the turn began (R4.3: charged to nobody,
        # so it names no seat; the last turn's flag has an earlier time).
        if any(
            f["kind"] == "turn_overtime"
            and f["duel"] == v["duel_no"]
            and f["at_ms"] > turn["started_ms"]
            for f in v["flags"]
        ):
            found.append(
                {
                    "kind": "turn_over",
                    "since_ms": turn["started_ms"] + think_ms,
                    "seat": None,  # R4.3: a neutral flag, charged to nobody
                    "detail": label,
                }
            )
    unconfirmed = v["phase"] in ("duel_result", "match_result")
    if unconfirmed:
        part = v["result"] if v["phase"] == "duel_result" else v["match"]
        waiting = [k for k, ok in (part or {}).get("confirmed", {}).items() if not ok]
        found.append(
            {
                "kind": "unconfirmed_result",
                "since_ms": phase_since_ms,
                "seat": None,
                "detail": ",".join(waiting),
            }
        )
    rank = {k: i for i, k in enumerate(ALERT_ORDER)}
    found.sort(key=lambda a: (rank[a["kind"]], a["since_ms"] or 0))
    return found


def summarise(
    v: dict[str, Any],
    *,
    number: int | None,
    seq: int,
    phase_since_ms: int | None = None,
    pairing: dict[str, dict[str, str]] | None = None,
    no_show_ms: int | None = None,
) -> dict[str, Any]:
    """One table on the floor view, from its view `v` at sequence number `seq` (and its
    pairing, at an event)."""
    clock = v["clock"]
    return {
        "code": v["code"],
        "number": number,
        "seq": seq,
        "names": {k: s["name"] for k, s in v["seats"].items()},
        "ids": {k: s["player_id"] for k, s in v["seats"].items()},
        "wins": dict(v["wins"]),
        "lp": dict(v["lp"]),
        "phase": phase_of(v),
        "clock": {
            "status": clock["status"],
            "deadline_ms": clock["deadline_ms"],
            "remaining_ms": clock["remaining_ms"],
        },
        "time_called": v["time"]["called"],
        "pairing": {k: p["name"] for k, p in pairing.items()} if pairing else None,
        "alerts": alerts_of(v, phase_since_ms, pairing, no_show_ms),
    }


def sort_key(summary: dict[str, Any]) -> tuple[int, int, int]:
    """Tables with alerts first (oldest alert first), then by table number."""
    alerts = summary["alerts"]
    if alerts:
        return (0, min(a["since_ms"] or 0 for a in alerts), summary["number"] or 0)
    return (1, 0, summary["number"] or 0)
