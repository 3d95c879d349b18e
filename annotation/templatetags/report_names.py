"""Filters that name the report's keys for people in the page's language
(annotation.results.labels): ``{{ row.source|source_name }}``, ``{{ row.scored_on|scored_on_name }}``,
``{{ key|agreement_name }}``, ``{{ subtask|score_name }}``, and ``{{ iso|moment }}``: a stored ISO
time as an aware datetime, which ``|date`` shows in the site's time zone."""

from datetime import datetime

from django import template

from annotation.results import labels

register = template.Library()


@register.filter
def source_name(source: str, fill: str = "") -> str:
    return labels.source_name(source, fill or "")


@register.filter
def scored_on_name(scored_on: str) -> str:
    return labels.scored_on_name(scored_on)


@register.filter
def agreement_name(key: str) -> str:
    return labels.agreement_name(key)


@register.filter
def score_name(subtask: str) -> str:
    return labels.score_name(subtask)


@register.filter
def moment(iso: str | None) -> datetime | None:
    return None if not iso else datetime.fromisoformat(iso)
