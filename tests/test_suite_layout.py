"""The suite's two folders share one module namespace: `make test` runs tests/ and e2e/ in one
pytest run (pyproject.toml's testpaths), and neither folder is a package, so two test files with
one name stop the run at collection."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_two_test_files_share_a_name_across_tests_and_e2e() -> None:
    names = Counter(
        path.name for folder in ("tests", "e2e") for path in (ROOT / folder).glob("test_*.py")
    )
    assert names, "no test files found"
    shared = sorted(name for name, count in names.items() if count > 1)
    assert shared == [], f"test files named twice across tests/ and e2e/: {shared}"
