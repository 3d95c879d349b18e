"""Imports run one way between the app's concerns (docs/architecture.md): a concern imports
only itself and the concerns below it; the entry points above them (URL configuration, the
admin's index, management commands, the demo's answers) may import any concern, and no concern
imports them."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "annotation"
# Lowest first: each concern may import the ones before it.
CONCERNS = ("core", "models", "subtasks", "answers", "adjudicate", "datasets", "accounts", "annotate", "training", "studies", "results")
ENTRY_POINTS = ("urls", "api_urls", "admin", "apps", "demo_answers", "management", "migrations", "templatetags")


def concern_of(module: str) -> str:
    """``annotation.results.report`` -> ``results``; ``annotation`` itself -> ``annotation``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of the app in ``source``, also those inside functions;
    ``from annotation.x import y`` counts as ``annotation.x.y`` (y may be a module)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "annotation"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "annotation":
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def against_the_order(module: str, source: str) -> list[str]:
    """``line: module imports other`` for each import of ``source`` (the text of ``module``)
    that runs against the order."""
    own = concern_of(module)
    if own in ENTRY_POINTS:
        return []
    rank = CONCERNS.index(own)
    return [
        f"{line}: {module} imports {imported}"
        for line, imported in imported_modules(source)
        if concern_of(imported) != own
        and (concern_of(imported) not in CONCERNS or CONCERNS.index(concern_of(imported)) > rank)
    ]


def app_modules() -> list[Path]:
    return sorted(path for path in APP.rglob("*.py") if path != APP / "__init__.py")


def test_every_module_of_the_app_belongs_to_a_concern_or_an_entry_point():
    strays = [module_name(path) for path in app_modules() if concern_of(module_name(path)) not in CONCERNS + ENTRY_POINTS]
    assert strays == []


def test_imports_run_one_way_between_the_concerns():
    wrong = [found for path in app_modules() for found in against_the_order(module_name(path), path.read_text())]
    assert wrong == []


@pytest.mark.parametrize(("module", "source", "refused"), [
    ("annotation.core.http", "from annotation.results.exporting import Export\n", True),
    ("annotation.datasets.assigning", "from annotation.accounts import services\n", True),
    ("annotation.datasets.views", "def f():\n    from annotation.urls import urlpatterns\n", True),
    ("annotation.subtasks.limits", "import annotation.answers.refusals\n", True),
    ("annotation.results.report", "from annotation.training.selectors import below_control_threshold\n", False),
    ("annotation.adjudicate.services", "import annotation.answers.refusals\n", False),
    ("annotation.urls", "from annotation.results import views\n", False),
])
def test_the_check_finds_an_import_against_the_order(module, source, refused):
    assert bool(against_the_order(module, source)) == refused
