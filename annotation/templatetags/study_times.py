"""``{{ seconds|minutes }}``: a study's times (seconds, or milliseconds with ``ms``) in minutes
with one decimal, in the page's language; none: a dash."""

from django import template
from django.template.defaultfilters import floatformat

register = template.Library()


@register.filter
def minutes(value: float | None, unit: str = "s") -> str:
    if value is None:
        return "—"
    seconds = value / 1000 if unit == "ms" else value
    return floatformat(seconds / 60, 1)
