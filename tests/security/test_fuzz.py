"""Generated hostile input (hypothesis, derandomized: the same examples on every run).

- Import: a valid sample line of each subtask mutated (a field replaced by any JSON value,
  removed, nested, given an answer key or junk) as line 2 of a file: either it is still a
  valid line, or the import is refused with every problem on that line, and nothing is written.
- Answers: any JSON value posted as a draft and as a submit on the item page and through the
  API, and any text to every widget partial: never a server error; a refusal is a 4xx with a
  message and stores nothing.

Examples per test and subtask: IMPORT_EXAMPLES and ANSWER_EXAMPLES below (6 subtasks each).
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.datasets.importing import import_dataset
from annotation.models import Annotation, Dataset, Item
from tests.item_pages import htmx_post
from tests.security.conftest import make_queue, sample_records

pytestmark = pytest.mark.django_db

SUBTASKS = ["morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas"]
IMPORT_EXAMPLES = 30
ANSWER_EXAMPLES = 15
FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
ANSWER_KEYS = ["answer", "corrected_sentence", "answers", "commas", "optional", "head", "relation", "gold",
               "discourse_units", "du_id"]


def paths(value, prefix=()):
    """Every path to a value inside ``value`` (keys and indexes)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def replaced(value, path, new):
    if not path:
        return new
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = replaced(value[head], rest, new)
    return copy


@st.composite
def mutated_lines(draw, subtask: str) -> str:
    record = sample_records(subtask, 2)[1]
    path = draw(st.sampled_from([p for p in paths(record) if p]))
    kind = draw(st.sampled_from(["replace", "remove", "nest", "answer_key", "junk"]))
    if kind == "replace":
        record = replaced(record, path, draw(json_values))
    elif kind == "remove":
        container = record
        for step in path[:-1]:
            container = container[step]
        container = dict(container) if isinstance(container, dict) else list(container)
        del container[path[-1]]
        record = replaced(record, path[:-1], container)
    elif kind == "nest":
        depth = draw(st.integers(min_value=10, max_value=3000))
        return json.dumps(record)[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}"
    elif kind == "answer_key":
        record = {**record, draw(st.sampled_from(ANSWER_KEYS)): draw(json_values)}
    else:
        return draw(st.sampled_from(["{", "[]", "null", '"x"', "{\"id\": \"\\u0000\"}", "1e400", "\x00", "\ufeff{}"]))
    return json.dumps(record, ensure_ascii=False)


@pytest.mark.parametrize("subtask", SUBTASKS)
def test_a_malformed_input_line_is_refused_on_its_line_or_is_valid(subtask):
    first = json.dumps(sample_records(subtask, 1)[0], ensure_ascii=False)

    @settings(FUZZ, max_examples=IMPORT_EXAMPLES)
    @given(line=mutated_lines(subtask))
    def check(line):
        data = (first + "\n" + line + "\n").encode("utf-8", "surrogatepass")
        try:
            dataset = import_dataset(subtask=subtask, name="fuzz", inputs=SourceFile("in.jsonl", data))
        except Refused as refused:
            assert refused.problems
            assert {(problem.file, problem.line) for problem in refused.problems} == {("in.jsonl", 2)}, refused.problems
            assert not Dataset.objects.exists() and not Item.objects.exists()
        else:
            dataset.delete()

    check()


@pytest.mark.parametrize("subtask", SUBTASKS)
def test_any_answer_on_the_item_page_and_the_api_is_stored_or_refused_with_a_message(subtask):
    queue = make_queue(subtask)
    item = queue.item

    @settings(FUZZ, max_examples=ANSWER_EXAMPLES)
    @given(answer=json_values | st.dictionaries(st.sampled_from(ANSWER_KEYS), json_values, max_size=3))
    def check(answer):
        text = json.dumps(answer)
        for intent in ("draft", "submit"):
            before = list(Annotation.objects.values_list("version", "answer"))
            response = htmx_post(queue.client, queue.page, {"intent": intent, "answer": text, "version": "0"})
            assert response.status_code in (200, 409, 422), response.status_code
            if response.status_code >= 400:
                assert "<li>" in response.content.decode()
                assert list(Annotation.objects.values_list("version", "answer")) == before
            status = "submitted" if intent == "submit" else "draft"
            body = {"item": item.pk, "answer": answer, "status": status, "version": 0}
            before = list(Annotation.objects.values_list("version", "answer"))
            response = queue.client.post("/api/annotations/", body, content_type="application/json")
            assert response.status_code in (200, 201, 400, 409, 422), response.status_code
            if response.status_code >= 400:
                assert response.json()
                assert list(Annotation.objects.values_list("version", "answer")) == before
        Annotation.objects.all().delete()

    check()


PARTIALS = {"discourse": ("tree", "answer"), "morphosyntax": ("diff", "corrected_sentence"),
            "numerals": ("form_check", "answer")}


@pytest.mark.parametrize("subtask", sorted(PARTIALS))
def test_any_input_to_a_widget_partial_is_drawn_or_refused(subtask):
    queue = make_queue(subtask)
    partial, field_name = PARTIALS[subtask]

    @settings(FUZZ, max_examples=ANSWER_EXAMPLES)
    @given(value=st.text(max_size=200) | json_values.map(json.dumps))
    def check(value):
        response = htmx_post(queue.client, f"{queue.page}?partial={partial}", {field_name: value})
        assert response.status_code in (200, 400), response.status_code
        assert not Annotation.objects.exists()

    check()

