"""The raw JSON answer form: every subtask's fallback widget.

Shows the input record field by field and takes the answer fields as one JSON object,
which the item page checks with scoring like any other answer.
"""

import json

from annotation.subtasks.widgets import Widget
from scoring.subtasks import get_subtask


def _readable(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2)


def raw_widget(key: str) -> Widget:
    def context(payload: dict, answer: dict | None) -> dict:
        fields = get_subtask(key).answer_fields
        shown = answer if answer is not None else {name: None for name in fields}
        return {
            "raw_fields": [
                (name, _readable(value), not isinstance(value, str))
                for name, value in payload.items()
                if name != "id"
            ],
            "raw_answer_fields": fields,
            "raw_answer_text": json.dumps(shown, ensure_ascii=False, indent=2),
        }

    return Widget(
        template="annotation/widgets/raw.html",
        script="annotation/widgets/raw.js",
        context=context,
    )
