"""annotation.core.sql_rows: hand-written reads and writes give what the ORM gives."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from annotation.core import sql_rows
from annotation.core.roles import UserWithRolesBackend
from annotation.models import Annotation, AnnotationRevision
from tests.annotate.conftest import wsd_records
from tests.factories import assign_in_order, make_dataset, make_user

pytestmark = pytest.mark.django_db


def field_values(row) -> dict:
    return {field.attname: getattr(row, field.attname) for field in type(row)._meta.concrete_fields}


def read(model, pk):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql_rows.columns(model, 't')} FROM {sql_rows.table(model)} t WHERE t.id = %s", [pk])
        return sql_rows.instance(model, cursor.fetchone())


def test_a_row_read_by_hand_is_the_instance_the_orm_loads():
    user = make_user("annotator")
    user.last_login = timezone.now()
    user.save()
    dataset = make_dataset("wsd", wsd_records(1))
    item = dataset.items.get()
    annotation = Annotation.objects.create(
        item=item, annotator=user, answer={"answer": "B", "nested": [1, {"a": None}]}, status="submitted",
        submitted_at=timezone.now(), metadata={"confirmed_unknown_words": ["dwudziesty"]},
    )
    for model, pk in ((User, user.pk), (Annotation, annotation.pk)):
        by_hand, by_orm = read(model, pk), model.objects.get(pk=pk)
        assert field_values(by_hand) == field_values(by_orm)
        assert not by_hand._state.adding and by_hand._state.db == by_orm._state.db
    assert UserWithRolesBackend().get_user(user.pk).is_active is True


def test_an_insert_and_an_update_by_hand_store_what_the_orm_reads_back():
    user = make_user("annotator")
    dataset = make_dataset("wsd", wsd_records(1))
    assign_in_order(dataset, user)
    now = timezone.now()
    annotation = Annotation(
        item=dataset.items.get(), annotator=user, answer={"answer": "A"}, status="draft", active_ms=5, version=1,
        created_at=now, updated_at=now, normalised_answer="", metadata={},
    )
    names = ("item_id", "annotator_id", "answer", "status", "active_ms", "version", "created_at", "updated_at",
             "normalised_answer", "metadata")
    sql_rows.insert(annotation, names)
    assert annotation.pk is not None and not annotation._state.adding
    annotation.answer, annotation.version = {"answer": "C"}, 2
    sql_rows.update(annotation, ("answer", "version"))
    assert field_values(Annotation.objects.get()) == field_values(annotation)
    revision = AnnotationRevision(annotation=annotation, version=2, answer={"answer": "C"}, status="draft", created_at=now)
    sql_rows.insert(revision, ("annotation_id", "version", "answer", "status", "active_ms", "created_at"))
    assert field_values(AnnotationRevision.objects.get()) == field_values(revision)
