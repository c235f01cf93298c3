"""The rules package stays pure (STYLE.md 4): no web framework, database, serialisation, clock,
randomness, environment or network in it. Walks the AST of every file in server/rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "server" / "rules"
FORBIDDEN = {
    "flask",
    "flask_sock",
    "peewee",
    "marshmallow",
    "json",
    "time",
    "random",
    "secrets",
    "datetime",
    "os",
    "socket",
    "redis",
    "gevent",
    "threading",
    "asyncio",
    "sqlite3",
    "server.store",
    "server.api",
    "server.service.hub",
}
FILES = sorted(RULES.glob("*.py"))


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "__import__"
        ):
            found.add("__import__")
    return found


def test_the_package_has_files() -> None:
    assert {p.name for p in FILES} >= {"base.py", "ledger.py", "match.py", "clock.py", "table.py"}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_rules_module_imports_nothing_impure(path: Path) -> None:
    bad = sorted(
        name
        for name in imported_modules(path)
        if name == "__import__" or any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    )
    assert bad == [], f"{path.name} imports {bad}"


def test_the_checker_sees_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os.path\nfrom json import dumps\nfrom . import base\n")
    assert imported_modules(sample) == {"os.path", "json"}
