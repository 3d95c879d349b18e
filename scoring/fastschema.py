"""The fast yes-check of a JSON Schema: fastjsonschema, for schemas it reads as we do.

jsonschema's validator costs tens of microseconds per record, which made scoring 10,000
lines take about a second. fastjsonschema compiles a schema to Python code that answers
in a few microseconds, but implements drafts 4 to 2019-09, not our schemas' 2020-12. The
keywords in ``FAST_KEYWORDS`` mean the same in both (``items`` only in its one-schema
form), so a schema made only of them gets the fast check; any other schema gets none
(``None``) and is checked by jsonschema alone, so a schema may use any keyword.

The check is only ever a shortcut: ``True`` means the record is valid; ``False`` means
"ask jsonschema", which then decides and explains (tests/scoring/test_fastschema.py checks
on many mutated records that ``True`` is only given to records jsonschema accepts).
"""

from __future__ import annotations

from typing import Callable

import fastjsonschema

Predicate = Callable[[object], bool]

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description"})
FAST_KEYWORDS = frozenset({
    "type", "enum", "properties", "required", "additionalProperties", "items", "uniqueItems",
    "minLength", "minItems", "minimum",
})


def uses_fast_keywords_only(schema: object) -> bool:
    """Whether ``schema`` and all its subschemas use only ``FAST_KEYWORDS`` and annotations."""
    if not isinstance(schema, dict):
        return False
    for keyword, value in schema.items():
        if keyword in ANNOTATIONS:
            continue
        if keyword not in FAST_KEYWORDS:
            return False
        if keyword == "properties" and not all(uses_fast_keywords_only(rule) for rule in value.values()):
            return False
        if keyword == "items" and not uses_fast_keywords_only(value):
            return False
        if keyword == "additionalProperties" and not (isinstance(value, bool) or uses_fast_keywords_only(value)):
            return False
    return True


def compile_schema(schema: dict) -> Predicate | None:
    """A predicate that is True only for records valid under ``schema``; None if the schema
    uses a keyword off the list."""
    if not uses_fast_keywords_only(schema):
        return None
    schema, unique_paths = without_property_unique_items(schema)
    # use_default=False: never write a schema's defaults into the record being checked
    check = fastjsonschema.compile(schema, use_default=False, detailed_exceptions=False)

    def is_valid(record: object) -> bool:
        try:
            check(record)
        except fastjsonschema.JsonSchemaException:
            return False
        return all(surely_distinct(value_at(record, path)) for path in unique_paths)
    return is_valid


def without_property_unique_items(schema: dict, path: tuple[str, ...] = ()) -> tuple[dict, list[tuple[str, ...]]]:
    """``schema`` without the ``uniqueItems`` of values reached through ``properties`` alone, and
    the paths (property names) of those values: fastjsonschema checks uniqueItems with a
    recursive closure made anew for every array it checks, a reference cycle left for the
    garbage collector each time (a report checks some 80,000 commas answers)."""
    paths = [path] if schema.get("uniqueItems") is True else []
    stripped = {keyword: value for keyword, value in schema.items() if not (keyword == "uniqueItems" and value is True)}
    if isinstance(schema.get("properties"), dict):
        stripped["properties"] = {}
        for name, rule in schema["properties"].items():
            stripped["properties"][name], found = without_property_unique_items(rule, (*path, name))
            paths += found
    return stripped, paths


def value_at(record: object, path: tuple[str, ...]) -> object:
    """The value at ``path`` (property names) in ``record``, or None where there is none."""
    for name in path:
        if not isinstance(record, dict) or name not in record:
            return None
        record = record[name]
    return record


def surely_distinct(value: object) -> bool:
    """True when ``value`` is no array (uniqueItems does not apply to it), or a list of strings
    and integers (no booleans) with no item twice, where JSON's equality is Python's; False
    otherwise, which leaves the answer to jsonschema."""
    if not isinstance(value, (list, tuple)):
        return True
    if isinstance(value, tuple) or not all(isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool))
                                           for item in value):
        return False
    return len(set(value)) == len(value)
