"""No private Django API anywhere in the project: no import of a ``_``-prefixed name of Django
(or of a library built on it), no override of a ``_``-prefixed method of their classes.
Such names change without notice between releases; ``Model._meta``, which Django documents,
is an attribute read and stays allowed."""

import ast
import importlib
import inspect
import pkgutil
import types
from pathlib import Path

import annotation
import polis_site

ROOT = Path(__file__).resolve().parent.parent
PROJECT_FOLDERS = ("annotation", "polis_site", "scoring", "bench", "scripts", "tests")
FRAMEWORKS = ("django", "rest_framework", "django_htmx", "drf_spectacular", "axes", "csp")


METHOD_KINDS = (types.FunctionType, classmethod, staticmethod, property)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _framework(module: str) -> bool:
    return module.split(".")[0] in FRAMEWORKS


def private_imports(source: str, filename: str) -> list[str]:
    """``file:line: name`` of every import of a private name of the frameworks in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names = []
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
            names = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            if _framework(module) and (any(_private(part) for part in module.split(".")) or any(map(_private, names))):
                found.append(f"{filename}:{node.lineno}: {module} {', '.join(names)}".rstrip())
    return found


def private_overrides(cls: type) -> list[str]:
    """``Class.method`` for every private method of a framework base class that ``cls`` redefines."""
    framework_bases = [base for base in cls.__mro__[1:] if _framework(base.__module__)]
    return [
        f"{cls.__module__}.{cls.__qualname__}.{name}"
        for name, value in vars(cls).items()
        if _private(name)
        and isinstance(value, METHOD_KINDS)  # not what a metaclass stores, such as _meta
        and any(name in vars(base) for base in framework_bases)
    ]


def project_sources() -> list[Path]:
    return [path for folder in PROJECT_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))] + [ROOT / "manage.py"]


def project_modules() -> list[str]:
    """Every module of polis_site and the app, as pkgutil finds them (a folder without an
    ``__init__.py`` would be skipped: test_the_search_reaches_every_module says so)."""
    # polis_site first: its urls module registers the path converters the app's URL modules use.
    return [
        module_info.name
        for package in (polis_site, annotation)
        for module_info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
    ]


def project_classes() -> list[type]:
    classes = []
    for name in project_modules():
        if name in ("polis_site.wsgi", "polis_site.asgi"):
            continue  # they set up Django again; they define no classes
        module = importlib.import_module(name)
        classes += [cls for _, cls in inspect.getmembers(module, inspect.isclass) if cls.__module__ == module.__name__]
    return classes


def test_the_search_reaches_every_module():
    on_disk = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for folder in ("annotation", "polis_site")
        for path in (ROOT / folder).rglob("*.py")
    } - {"annotation", "polis_site"}
    assert on_disk - set(project_modules()) == set()


def test_no_file_imports_a_private_name_of_django():
    found = [hit for path in project_sources() for hit in private_imports(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == []


def test_no_class_overrides_a_private_method_of_django():
    classes = project_classes()
    assert any(cls.__name__ == "SessionStore" for cls in classes)  # the search reaches polis_site
    assert [hit for cls in classes for hit in private_overrides(cls)] == []


def test_the_checks_find_what_they_look_for():
    from django.contrib.sessions.backends import db

    source = "from django.db.models.sql.query import _get_col\nimport django.utils._os\nfrom django.db import models\n"
    assert private_imports(source, "x.py") == [
        "x.py:1: django.db.models.sql.query _get_col",
        "x.py:2: django.utils._os",
    ]

    class Store(db.SessionStore):
        def _get_session_from_db(self):
            return None

        def load(self):
            return {}

    assert private_overrides(Store) == [f"{__name__}.{Store.__qualname__}._get_session_from_db"]
