"""The HTTP API described as OpenAPI 3, from the routes and their marshmallow schemas.

`GET /api/openapi.json` serves it. Paths come from the app's URL map (every `/api/` route), so a
new route is described without an edit here; its request body is described when its schema is
listed in `BODY_SCHEMAS`.
"""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Blueprint, Flask, Response, jsonify

from server.compat import real_app

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


def build_spec(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of `app`'s `/api/` routes."""
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
        if not rule.rule.startswith("/api/") or rule.endpoint == "openapi.spec":
            continue
        path, parameters = _path_and_parameters(rule.rule)
        for method in METHODS:
            if method.upper() not in (rule.methods or ()):
                continue
            view = app.view_functions.get(rule.endpoint)
            doc = (view.__doc__ or rule.endpoint).strip().splitlines()[0] if view else ""
            operation: dict[str, Any] = {
                "operationId": f"{rule.endpoint}.{method}",
                "summary": doc,
                "responses": {
                    "200": {"description": "done"},
                    "201": {"description": "created"},
                    "400": error,
                    "401": error,
                    "403": error,
                    "404": error,
                    "409": error,
                    "429": error,
                },
            }
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
