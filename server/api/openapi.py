"""The HTTP API described as OpenAPI 3, from the routes and their marshmallow schemas.

`GET /api/openapi.json` serves it. Paths come from the app's URL map, every route: the JSON API
under `/api/`, the pages (HTML, the files of the front end, redirects) and the websockets (a
GET that upgrades; their messages are in docs/protocol.md), so a new route is described
without an edit here and the HTTP fuzzer (`reliability/openapi_fuzz.py`) reaches it; a request
body is described when its schema is listed in `BODY_SCHEMAS`.
"""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, Flask, Response, jsonify

from server.core.compat import real_app

from .schemas import BODIES, QUERIES, ErrorSchema

bp = Blueprint("openapi", __name__)

SPEC_KEY = "openapi_spec"
METHODS = ("get", "post", "put", "patch", "delete")
_CONVERTER = re.compile(r"<(?:(?P<conv>[a-z]+):)?(?P<name>[a-zA-Z_][a-zA-Z0-9_]*)>")
_TYPES = {"int": {"type": "integer", "minimum": 0}, "float": {"type": "number"}}


def _path_and_parameters(rule: str) -> tuple[str, list[dict[str, Any]]]:
    parameters = []
    for match in _CONVERTER.finditer(rule):
        schema = _TYPES.get(match["conv"] or "", {"type": "string", "maxLength": 64})
        parameters.append({"name": match["name"], "in": "path", "required": True, "schema": schema})
    return _CONVERTER.sub(r"{\g<name>}", rule), parameters


def _responses(rule: str, error: dict[str, Any]) -> dict[str, Any]:
    """What a route answers, by its kind: the JSON API, a websocket, or a page."""
    refusals = {code: error for code in ("400", "401", "403", "404", "409", "413", "429")}
    if rule.startswith("/api/"):
        return {"200": {"description": "done"}, "201": {"description": "created"}, **refusals}
    if rule.startswith("/ws/"):
        return {"101": {"description": "switching to the websocket"}, **refusals}
    page = {"description": "the page", "content": {"text/html": {"schema": {"type": "string"}}}}
    return {
        "200": page,
        "302": {"description": "a redirect (a seat's link to its table)"},
        "304": {"description": "not modified (a file of the front end)"},
        **refusals,
    }


def build_spec(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of every route of `app`."""
    spec = APISpec(
        title="Duel Table",
        version="1",
        openapi_version="3.0.3",
        plugins=[MarshmallowPlugin()],
        info={"description": "HTTP API of Duel Table; the websocket is in docs/protocol.md."},
    )
    spec.components.schema("Error", schema=ErrorSchema)
    error = {"description": "refused", "content": {"application/json": {"schema": "Error"}}}
    bodies = BODIES
    for name, schema in bodies.items():
        spec.components.schema(name.replace(".", "_"), schema=schema)
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        path, parameters = _path_and_parameters(rule.rule)
        for method in METHODS:
            if method.upper() not in (rule.methods or ()):
                continue
            view = app.view_functions.get(rule.endpoint)
            doc = (view.__doc__ or rule.endpoint).strip().splitlines()[0] if view else ""
            operation: dict[str, Any] = {
                "operationId": f"{rule.endpoint}.{method}",
                "summary": doc,
                "responses": _responses(rule.rule, error),
            }
            if rule.rule.startswith("/ws/"):
                operation["description"] = (
                    "A websocket: a GET with `Upgrade: websocket` (101), then the messages of "
                    "docs/protocol.md. A plain GET is refused."
                )
            if rule.endpoint in QUERIES:
                parameters = [*parameters, {"in": "query", "schema": QUERIES[rule.endpoint]}]
            if parameters:
                operation["parameters"] = parameters
            if rule.endpoint in bodies:
                ref = f"#/components/schemas/{rule.endpoint.replace('.', '_')}"
                operation["requestBody"] = {
                    "required": False,
                    "content": {"application/json": {"schema": {"$ref": ref}}},
                }
            paths.setdefault(path, {})[method] = operation
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    return spec.to_dict()


@bp.get("/api/openapi.json")
def spec() -> Response:
    """This API as an OpenAPI 3 document."""
    app = real_app()
    document = app.extensions.get(SPEC_KEY)
    if document is None:
        document = app.extensions[SPEC_KEY] = build_spec(app)
    return jsonify(document)


def init_app(app: Flask) -> None:
    """Serve the document from `app`."""
    app.register_blueprint(bp)
