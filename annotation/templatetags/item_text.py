"""``{{ item.payload|item_text:subtask }}``: an item's first text, to show beside its id (a
flag's row), where an id alone tells the reader nothing."""

from django import template

from annotation.subtasks.item_fields import item_text as first_text

register = template.Library()


@register.filter
def item_text(payload: dict, subtask: str) -> str:
    return first_text(subtask, payload)
