"""The web app's text files are sent gzip-compressed to clients that accept it."""

from __future__ import annotations

import gzip
from pathlib import Path

from flask.testing import FlaskClient

WEB = Path(__file__).resolve().parent.parent / "web"


def test_text_files_are_gzipped_when_accepted(client: FlaskClient):
    response = client.get("/js/table.js", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response.headers["Vary"]
    body = response.get_data()
    assert int(response.headers["Content-Length"]) == len(body)
    assert gzip.decompress(body) == (WEB / "js" / "table.js").read_bytes()
    assert len(body) < (WEB / "js" / "table.js").stat().st_size / 2
    # Revalidation by the compressed representation's ETag.
    again = client.get(
        "/js/table.js",
        headers={"Accept-Encoding": "gzip", "If-None-Match": response.headers["ETag"]},
    )
    assert again.status_code == 304


def test_identity_without_accept_encoding_and_for_images(client: FlaskClient):
    with client.get("/css/app.css") as plain:
        assert "Content-Encoding" not in plain.headers
        assert plain.get_data() == (WEB / "css" / "app.css").read_bytes()
    with client.get("/icons/icon-192.png", headers={"Accept-Encoding": "gzip"}) as icon:
        assert "Content-Encoding" not in icon.headers
        assert icon.get_data() == (WEB / "icons" / "icon-192.png").read_bytes()
    page = client.get("/t/ABCDEF", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(page.get_data()) == (WEB / "index.html").read_bytes()
