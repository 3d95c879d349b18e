"""Every ``wait_for_function`` of the browser tests passes a function, never a bare expression.

Playwright evaluates a bare expression string with ``eval`` on every poll; the first poll runs
inside DevTools' own evaluation, which the page's Content Security Policy exempts, and every
later one from ``requestAnimationFrame``, which it does not (``script-src 'self'`` forbids
eval). Such a wait passes while the page is quick and fails once the first poll comes too
early, as it did in CI under load. A function (``"() => ..."``) is compiled once by DevTools
and only called afterwards."""

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def bare_expression_waits(source: str, filename: str) -> list[str]:
    """``file:line`` of every ``wait_for_function`` in ``source`` whose first argument is a
    string literal that is not a function."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "wait_for_function"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and not is_function(node.args[0].value)
        ):
            found.append(f"{filename}:{node.lineno}")
    return found


def is_function(javascript: str) -> bool:
    text = javascript.lstrip()
    return text.startswith(("function", "async ")) or (text.startswith("(") and "=>" in text.split(")", 1)[-1][:4])


@pytest.mark.parametrize(
    "javascript, function",
    [
        ("() => window.Polis !== undefined", True),
        ("(count) => document.querySelectorAll('li').length === count", True),
        ("function () { return window.ready; }", True),
        ("window.Polis !== undefined", False),
        ("(window.Polis !== undefined)", False),
    ],
)
def test_a_function_is_told_from_a_bare_expression(javascript, function):
    assert is_function(javascript) is function


def test_a_bare_expression_wait_is_found():
    source = 'page.wait_for_function("window.Polis !== undefined")\npage.wait_for_function("() => true")\n'
    assert bare_expression_waits(source, "example.py") == ["example.py:1"]


def test_no_browser_test_waits_for_a_bare_expression():
    found = [
        hit
        for path in sorted(TESTS.rglob("*.py"))
        for hit in bare_expression_waits(path.read_text(), str(path.relative_to(TESTS.parent)))
    ]
    assert found == []
