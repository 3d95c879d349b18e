"""Organizer pages in Polish: what the scorer says in English (why an agreement figure is none)
said in Polish, and the agreement page saying why its disagreements are not the open cases."""

import ast
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone, translation

import scoring
from annotation.answers.normalised import normalised_answer
from annotation.datasets.assigning import assign
from annotation.models import Annotation
from tests.factories import make_dataset, make_user
from tests.organizer.conftest import import_sample

pytestmark = pytest.mark.django_db


def scorer_reasons() -> list[str]:
    """Every reason the scorer gives for an undefined agreement figure (``Undefined(...)``)."""
    reasons = []
    for path in Path(scoring.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {node.targets[0].id: node.value for node in tree.body
                     if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", "") == "Undefined":
                argument = node.exc.args[0]
                if isinstance(argument, ast.Name):
                    argument = constants[argument.id]
                if isinstance(argument, ast.JoinedStr):  # f"... {NAME}": the module's constant
                    argument = ast.Constant("".join(
                        part.value if isinstance(part, ast.Constant) else ast.literal_eval(constants[part.value.id])
                        for part in argument.values))
                reasons.append(ast.literal_eval(argument))
    return reasons


def test_every_reason_of_an_undefined_figure_is_said_in_polish():
    reasons = scorer_reasons()
    assert "no unit has two values (no item has two valid answers)" in reasons
    with translation.override("pl"):
        assert [reason for reason in reasons if translation.gettext(reason) == reason] == []


def test_the_agreement_page_gives_the_reason_in_polish(client):
    dataset = make_dataset("wsd", [{"id": "w1", "reference_sentence": "[[TARGET]]a[[/TARGET]]",
                                    "candidates": {label: "[[TARGET]]a[[/TARGET]]" for label in "ABCD"}}])
    client.force_login(make_user("organizer"))
    page = client.get(reverse("organizer_agreement", args=[dataset.pk]), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "żadna pozycja nie ma dwóch poprawnych odpowiedzi" in page
    assert "no item has two valid answers" not in page


def submit(item, annotator, answer: str) -> None:
    Annotation.objects.create(item=item, annotator=annotator, answer={"answer": answer}, status="submitted",
                              submitted_at=timezone.now(), normalised_answer=normalised_answer("wsd", {"answer": answer}))


def test_the_agreement_page_says_why_disagreements_are_not_open_cases(client):
    dataset = import_sample("wsd")
    annotators = [make_user(username=name) for name in ("ala", "bartek", "celina")]
    assign(dataset, annotators, 3)
    first, second = (dataset.items.order_by("ordinal")[n] for n in (0, 1))
    for annotator, answer in zip(annotators[:2], ("A", "B"), strict=True):  # two differ, the third not yet
        for item in (first, second):
            submit(item, annotator, answer)
    submit(first, annotators[2], "A")
    client.force_login(make_user("organizer"))
    response = client.get(reverse("organizer_agreement", args=[dataset.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert len(response.context["report"].disagreements) == 2
    assert response.context["cases"].to_do == 1
    html = response.content.decode()
    assert "Items whose answers disagree: 2; adjudication cases to settle: 1" in html
    assert "opens only once every annotator assigned to the item has answered" in html
