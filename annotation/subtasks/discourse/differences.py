"""How discourse answers differ: the units whose head or relation differ, and each answer's tree."""

from __future__ import annotations

from django.utils.translation import gettext as _

from annotation.subtasks.differences import Differences, LabelledAnswers
from annotation.subtasks.discourse.widget import tree_view, units_in_text_order


def differences(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    units = units_in_text_order(payload)
    numbers = {unit.du_id: unit.number for unit in units}

    def attachment(answer: dict, du_id: str) -> str:
        for entry in answer.get("discourse_units") or []:
            if isinstance(entry, dict) and entry.get("du_id") == du_id:
                if entry.get("head") is None:
                    return _("root")
                return f"→ {numbers.get(entry.get('head'), '?')} {entry.get('relation') or ''}".rstrip()
        return "–"

    rows = []
    for unit in units:
        cells = [attachment(answer, unit.du_id) for _, answer in answers]
        rows.append({"unit": unit, "cells": cells, "differs": len(set(cells)) > 1})
    return Differences(
        template="annotation/adjudicate/differences/discourse.html",
        summaries=[
            # A unit counts for an answer no other answer agrees with there: two identical
            # trees beside a third are alone in none of its differences.
            _("%(count)s units differ from the others") % {"count": sum(
                row["cells"].count(row["cells"][index]) == 1 for row in rows
            )}
            for index in range(len(answers))
        ],
        details={
            "labels": [label for label, _ in answers],
            "rows": rows,
            "differing_count": sum(row["differs"] for row in rows),
            "trees": [{"label": label, **tree_view(payload, answer)} for label, answer in answers],
        },
    )
