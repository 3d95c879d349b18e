"""What a browser test checks once the page has saved or refused: where the page went and
what is stored."""

import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation
from tests.item_pages import AssignedItem


def expect_submitted_and_next(page: Page, saved: AssignedItem, next_item: AssignedItem, answer: dict) -> None:
    """Save & next stored ``answer`` as submitted and opened the next item."""
    expect(page).to_have_url(re.compile(re.escape(next_item.url) + "$"))
    stored = saved.stored()
    assert (stored.answer, stored.status) == (answer, Annotation.Status.SUBMITTED)


def expect_nothing_submitted(page: Page, item: AssignedItem) -> None:
    """The page refused: it stays on the item and no answer is submitted."""
    expect(page).to_have_url(re.compile(re.escape(item.url) + "$"))
    assert not Annotation.objects.filter(status=Annotation.Status.SUBMITTED).exists()
