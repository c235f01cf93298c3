"""The round's results export (`/api/events/<id>/results.csv`) escapes cells a spreadsheet
would run as a formula the same way as every other export (`projections.sheet.csv_safe`): a plain
negative number stays a number, anything else starting with = + - @ is quoted as text."""

from __future__ import annotations

import csv
import io

from tests.test_event_rounds import Org, event


def test_results_csv_keeps_a_negative_number_and_quotes_a_formula(app, client) -> None:
    org = Org(client, app)
    ev = event(org, tables=1)
    r = org.post(f"/api/events/{ev['id']}/pairings", {"csv": "1,-1800,-7,=1+2,@SUM(A1)\n"})
    assert r.status_code == 200, r.json
    r = client.get(f"/api/events/{ev['id']}/results.csv")
    assert r.status_code == 200
    (row,) = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert (row["player_a"], row["player_a_id"]) == ("-1800", "-7")
    assert (row["player_b"], row["player_b_id"]) == ("'=1+2", "'@SUM(A1)")
    assert row["wins_a"] == "0"
