"""The language of a page the server renders: the catalogues the web serves (web/i18n under
WEB_DIR, read by `server.core.i18n`), and the reader's language from `?lang=` or Accept-Language by
the one picker rule."""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app, has_request_context, request

from server.core.i18n import Catalogues, for_web_dir


def catalogues() -> Catalogues:
    """The catalogues the web serves: the server's pages read the same files."""
    return for_web_dir(current_app.config["WEB_DIR"])


def request_lang() -> str:
    """The page's language: `?lang=`, else the Accept-Language header, else English."""
    found = catalogues()
    if not has_request_context():
        return found.default
    return found.pick_lang(request.args.get("lang"), request.headers.get("Accept-Language"))


def request_t(prefix: str = "") -> tuple[str, Callable[..., str]]:
    """The request's language and its `t(key, **vars)` for keys under `prefix`."""
    lang = request_lang()
    return lang, catalogues().translator(lang, prefix)
