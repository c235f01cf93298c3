"""Every request schema lives in `server/api/schemas.py`, every route that reads a body or a
query string has its schema there, and the OpenAPI document describes each of them."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from server.api import openapi
from server.api.schemas import BODIES, QUERIES

API = Path(__file__).resolve().parent.parent / "server" / "api"


def test_marshmallow_schemas_are_defined_in_one_module():
    outside = []
    for path in sorted(API.glob("*.py")):
        if path.name in ("schemas.py", "openapi.py"):  # openapi.py: the error shape it answers
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                getattr(base, "id", getattr(base, "attr", "")) == "Schema" for base in node.bases
            ):
                outside.append(f"{path.name}: {node.name}")
    assert outside == []


def test_every_route_that_reads_a_body_or_a_query_has_its_schema(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert set(BODIES) <= endpoints
    assert set(QUERIES) <= endpoints
    for endpoint, view in app.view_functions.items():
        source = inspect.getsource(view)
        assert ("load_body()" in source) == (endpoint in BODIES), endpoint
        assert ("load_query()" in source) == (endpoint in QUERIES), endpoint


def test_the_openapi_document_describes_every_body_and_query(app):
    with app.app_context():
        spec = openapi.build_spec(app)
    operations = {
        op["operationId"].rsplit(".", 1)[0]: op
        for methods in spec["paths"].values()
        for op in methods.values()
    }
    for endpoint, schema in BODIES.items():
        ref = operations[endpoint]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        component = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
        declared = {field.data_key or name for name, field in schema().fields.items()}
        assert set(component["properties"]) == declared, endpoint
    for endpoint, schema in QUERIES.items():
        names = {p["name"] for p in operations[endpoint]["parameters"] if p["in"] == "query"}
        assert names == {field.data_key or name for name, field in schema().fields.items()}


def test_the_store_names_no_http_status():
    """The store raises domain errors; the edge alone picks the status (`status_of`)."""
    store = API.parent / "store"
    found = [
        f"{path.name}: {line.strip()}"
        for path in sorted(store.glob("*.py"))
        for line in path.read_text().splitlines()
        if "AppError" in line or "status=" in line
    ]
    assert found == []


def test_the_openapi_document_lists_every_route(app):
    # Every rule of the URL map, pages and sockets too (not only /api/): what the document
    # leaves out the HTTP fuzzer (reliability/openapi_fuzz.py) never reaches.
    with app.app_context():
        spec = openapi.build_spec(app)
    listed = {
        (path, method)
        for path, methods in spec["paths"].items()
        for method in methods
        if method in openapi.METHODS
    }
    missing = []
    for rule in app.url_map.iter_rules():
        path, _ = openapi._path_and_parameters(rule.rule)
        for method in sorted(rule.methods or ()):
            if method.lower() in openapi.METHODS and (path, method.lower()) not in listed:
                missing.append(f"{method} {rule.rule}")
    assert missing == []
    assert "/s/{slug}/{number}/{seat}" in spec["paths"]
    assert "/e/{slug}/standings" in spec["paths"]
    socket = spec["paths"]["/ws/table/{code}"]["get"]
    assert "101" in socket["responses"] and "protocol.md" in socket["description"]
    page = spec["paths"]["/t/{code}/sheet"]["get"]
    assert "text/html" in page["responses"]["200"]["content"]
