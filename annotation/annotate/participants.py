"""Panel participants on the annotator's pages (a read): their way is the study's, so the pages
that end a queue or a training round, and the home page, send them to its continue page."""

from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse

from annotation.models import StudyParticipant


def study_page(user: AbstractBaseUser) -> str | None:
    """The continue page of the study ``user`` takes part in (None: they are no participant)."""
    token = StudyParticipant.objects.filter(user_id=user.pk).values_list("study__token", flat=True).first()
    return None if token is None else reverse("study_continue", args=[token])
