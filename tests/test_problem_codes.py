"""Every problem the app raises has a code and its parameters, and its text comes from one
table (annotation.core.problems.MESSAGES) in English and in Polish."""

import ast
import importlib
import re
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext

from annotation.core.errors import NothingToExport, Refused
from annotation.core.problems import MESSAGES
from scoring.problems import MESSAGES as SCORER_MESSAGES

ROOT = Path(__file__).resolve().parent.parent
APP_PACKAGES = ("annotation", "polis_site")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]")


def calls(name: str):
    """(file, call) for every call of ``name`` (a function, or a method of that name) in the app."""
    for path in sorted(path for package in APP_PACKAGES for path in (ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                if called == name:
                    yield path.relative_to(ROOT), node


def test_no_refusal_is_made_of_a_ready_message():
    assert not list(calls("because")), "Refused.because is gone: a refusal is Refused.of(template, ...)"


def test_every_problem_made_by_hand_names_its_code():
    """A Problem built directly (not from a template) gives its code: the subtasks' limits, whose
    annotator's words are annotation.subtasks.problem_texts, and DRF's own errors."""
    for path, call in calls("Problem"):
        code = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "code"), None)
        assert code is not None, f"{path}:{call.lineno}: a Problem without a code"
        assert not (isinstance(code, ast.Constant) and not code.value), f"{path}:{call.lineno}: an empty code"


def test_every_template_named_is_in_the_table():
    """Each call of ``problem`` or ``Refused.of`` names its template (or the variable it was just
    chosen into) literally; each is a key of the table. ``Refused.of`` itself forwards its own."""
    named = 0
    for path, call in [*calls("problem"), *calls("of")]:
        if isinstance(call.args[0], ast.Name) and call.args[0].id == "template":
            assert path.parts[1] == "core", f"{path}:{call.lineno}: only annotation.core forwards a template"
            continue
        if isinstance(call.args[0], ast.Name):  # chosen a line above
            source = (ROOT / path).read_text().splitlines()[call.lineno - 2]
            templates = re.findall(r'"([a-z_/]+)"', source)
        else:
            templates = [node.value for node in ast.walk(call.args[0]) if isinstance(node, ast.Constant)]
        assert templates, f"{path}:{call.lineno}: the template is not named in the call"
        for template in templates:
            assert template in MESSAGES, f"{path}:{call.lineno}: {template!r} is not a template"
            named += 1
    assert named > 80


def test_the_app_and_the_scorer_have_their_own_templates():
    assert not set(MESSAGES) & set(SCORER_MESSAGES)


def subtask_tables() -> dict[str, dict]:
    """Each subtask's own table of texts (its rules' and cautions'), by the module defining it."""
    tables = {}
    for path in sorted((ROOT / "annotation" / "subtasks").glob("*/*.py")):
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        table = getattr(module, "MESSAGES", None)
        if isinstance(table, dict) and table is not MESSAGES and table is not SCORER_MESSAGES:
            tables[module.__name__] = table
    return tables


def test_a_subtask_s_rules_and_cautions_are_made_from_its_own_table():
    """Each ``problem_from`` call of a subtask's folder names a template of its own module's
    table literally; no template is one of the app's or the scorer's."""
    tables = subtask_tables()
    assert {"annotation.subtasks.numerals.answers", "annotation.subtasks.morphosyntax.answers"} <= set(tables)
    named = 0
    for path, call in calls("problem_from"):
        if path.parts[1] == "core":
            continue  # annotation.core.problems.problem forwards its own
        module = ".".join(path.with_suffix("").parts)
        assert isinstance(call.args[0], ast.Name) and call.args[0].id == "MESSAGES", f"{path}:{call.lineno}"
        assert isinstance(call.args[1], ast.Constant), f"{path}:{call.lineno}: the template is not named"
        assert call.args[1].value in tables[module], f"{path}:{call.lineno}: {call.args[1].value!r} is not in its table"
        named += 1
    assert named >= 4
    for table in tables.values():
        assert not set(table) & (set(MESSAGES) | set(SCORER_MESSAGES))


@pytest.mark.parametrize("module, template", sorted(
    (module, template) for module, table in subtask_tables().items() for template in table))
def test_every_subtask_template_is_said_in_polish_with_the_same_parameters(module, template):
    from django.utils.translation import ngettext

    text = subtask_tables()[module][template]
    forms = [(text, None)] if isinstance(text, str) else [(text[0], 1), (text[1], 5)]
    assert template.partition("/")[0]
    for english, count in forms:
        with translation.override("pl"):
            polish = gettext(english) if count is None else ngettext(text[0], text[1], count)
        assert polish != english, f"{template}: no Polish text in the catalogue"
        assert sorted(set(PLACEHOLDER.findall(polish))) == sorted(set(PLACEHOLDER.findall(english)))


@pytest.mark.parametrize("template", sorted(MESSAGES))
def test_every_template_is_said_in_polish_with_the_same_parameters(template):
    english = MESSAGES[template]
    with translation.override("pl"):
        polish = gettext(english)
    assert polish != english, f"{template}: no Polish text in the catalogue"
    assert sorted(set(PLACEHOLDER.findall(polish))) == sorted(set(PLACEHOLDER.findall(english)))


@pytest.mark.parametrize("template", sorted(MESSAGES))
def test_every_template_has_a_code(template):
    assert Refused.of(template, **dict.fromkeys(PLACEHOLDER.findall(MESSAGES[template]), 1)).problems[0].code


def test_a_refusal_carries_code_params_and_the_text_of_its_language():
    with translation.override("en"):
        refused = Refused.of("too_few_annotators", per_item=3, given=2)
    assert refused.messages == ["3 annotators per item need at least 3 annotators; 2 given"]
    [said] = refused.problems
    assert (said.code, dict(said.params), said.template) == ("too_few_annotators", {"per_item": 3, "given": 2},
                                                            "too_few_annotators")
    with translation.override("pl"):
        assert Refused.of("too_few_annotators", per_item=3, given=2).messages == [
            "3 anotatorów na pozycję wymaga co najmniej 3 anotatorów; podano 2"]
        exported = NothingToExport("majority", "d1", 4)
    [said] = exported.problems
    assert (said.code, dict(said.params)) == ("nothing_to_export", {"source": "majority", "dataset": "d1", "left_out": 4})
    assert exported.messages == ["source: Eksport majority zbioru d1 jest pusty (pominięte pozycje: 4)."]
