"""The suite's two folders share one module namespace: `make test` runs tests/ and e2e/ in one
pytest run (pyproject.toml's testpaths), and neither folder is a package, so two test files with
one name stop the run at collection."""

import ast
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


def predicate_is_an_expression(node: ast.Call) -> bool:
    """A `wait_for_function` whose predicate is a string that is not a function's source."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "wait_for_function"):
        return False
    if not node.args or not isinstance(node.args[0], (ast.Constant, ast.JoinedStr)):
        return False  # a name: a constant whose text is checked where it is made
    parts = [node.args[0]] if isinstance(node.args[0], ast.Constant) else node.args[0].values
    text = "".join(
        p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)
    )
    return "=>" not in text and not text.lstrip().startswith(("function", "async"))


def test_browser_tests_wait_on_functions_not_expressions() -> None:
    """Playwright polls a predicate given as an expression with `eval`, which the app's CSP
    refuses (script-src 'self'): such a wait passes when its first look is true and fails with
    an EvalError when it has to poll, so on a slow run only. A function polls without eval."""
    found = []
    for path in sorted((ROOT / "e2e").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and predicate_is_an_expression(node):
                found.append(f"{path.name}:{node.lineno}")
    assert found == [], f"wait_for_function on an expression (write it as a function): {found}"


def test_the_wait_check_sees_an_expression() -> None:
    bare = ast.parse('page.wait_for_function("window.__tones > 0")').body[0]
    arrow = ast.parse('page.wait_for_function("() => window.__tones > 0")').body[0]
    formatted = ast.parse('page.wait_for_function(f"window.__tones > {n}")').body[0]
    assert isinstance(bare, ast.Expr) and isinstance(bare.value, ast.Call)
    assert isinstance(arrow, ast.Expr) and isinstance(arrow.value, ast.Call)
    assert isinstance(formatted, ast.Expr) and isinstance(formatted.value, ast.Call)
    assert predicate_is_an_expression(bare.value)
    assert predicate_is_an_expression(formatted.value)
    assert not predicate_is_an_expression(arrow.value)
