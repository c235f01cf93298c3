"""The dependency ranges (pyproject.toml) and the lock (requirements.lock) that `make install`
installs from: every runtime dependency is bounded above, so `make lock` cannot move one across
a release that may break it unreviewed, and every pin of the lock is within its range."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def requirements(section: str | None = None) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = project["optional-dependencies"][section] if section else project["dependencies"]
    return [Requirement(text) for text in found]


def locked() -> dict[str, str]:
    pins = re.findall(
        r"^([A-Za-z0-9_.\-]+)==([^\s\\]+)", (ROOT / "requirements.lock").read_text(), re.M
    )
    return {canonicalize_name(name): version for name, version in pins}


def test_every_runtime_dependency_has_an_upper_bound():
    unbounded = [
        str(r)
        for r in requirements()
        if not any(s.operator in ("<", "<=", "~=", "==") for s in r.specifier)
    ]
    assert unbounded == []


def test_every_dependency_is_locked_within_its_range():
    pins = locked()
    for r in requirements() + requirements("test"):
        version = pins.get(canonicalize_name(r.name))
        assert version is not None, f"{r.name} is not in requirements.lock"
        assert r.specifier.contains(version, prereleases=True), (
            f"{r.name}=={version} is outside {r}"
        )
