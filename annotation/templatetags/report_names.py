"""Filters that name the report's keys for people in the page's language
(annotation.results.labels): ``{{ row.source|source_name }}``, ``{{ row.scored_on|scored_on_name }}``,
``{{ key|agreement_name }}``, ``{{ key|metric_name }}``, ``{{ subtask|score_name }}``, ``{{ text|page_figures }}``: the
figures of a text written for downloads ("50.0% [0.0, 50.0]", "10,000") in the page's locale,
and ``{{ iso|moment }}``: a stored ISO time as an aware datetime, which ``|date`` shows in the
site's time zone."""

import re
from datetime import datetime

from django import template
from django.utils.formats import get_format

from annotation.results import labels

register = template.Library()


@register.filter
def source_name(source: str, fill: str = "") -> str:
    return labels.source_name(source, fill or "")


register.filter("scored_on_name", labels.scored_on_name)
register.filter("agreement_name", labels.agreement_name)
register.filter("metric_name", labels.metric_name)
register.filter("score_name", labels.score_name)


@register.filter
def moment(iso: str | None) -> datetime | None:
    return None if not iso else datetime.fromisoformat(iso)


THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


DECIMALS = re.compile(r"(?<=\d)\.(?=\d)")


@register.filter
def page_figures(text: object) -> str:
    grouped = THOUSANDS.sub(lambda _match: get_format("THOUSAND_SEPARATOR"), str(text))
    return DECIMALS.sub(lambda _match: get_format("DECIMAL_SEPARATOR"), grouped)
