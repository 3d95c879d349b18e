"""The six PoLiS subtasks: one registry entry each."""

SUBTASK_KEYS = ("morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas")
