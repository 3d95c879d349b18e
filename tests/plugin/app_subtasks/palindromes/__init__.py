"""The toy seventh subtask in the app: no part of its own, so the raw JSON widget, the default
differences, limits, rules, demo answers, guideline and report breakdown."""
