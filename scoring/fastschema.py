"""A fast yes-check for the project's JSON Schemas, compiled from the same schema files.

jsonschema's validator costs tens of microseconds per record, which dominated the
scoring of 10,000 lines. ``compile_schema`` turns a schema that uses only the
keywords of ``scoring/schemas/`` into a plain predicate that answers "valid" in a
few microseconds. It is only ever a shortcut: ``True`` means the record is valid;
``False`` means "ask jsonschema", which then decides and explains. A schema using
any other keyword gets no shortcut (``None``), so a new keyword can never make the
shortcut accept what jsonschema refuses. tests/scoring/test_fastschema.py checks
that on many mutated records ``True`` is only ever given to records jsonschema accepts.
"""

from __future__ import annotations

from typing import Callable

Predicate = Callable[[object], bool]

_ANNOTATIONS = {"$schema", "$id", "title", "description"}
_TYPES = {
    "string": lambda value: isinstance(value, str),
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
}


class Unsupported(Exception):
    """The schema uses a keyword (or form of one) this shortcut does not implement."""


def compile_schema(schema: dict) -> Predicate | None:
    """A predicate that is True only for records valid under ``schema``; None if unsupported."""
    try:
        return _compile(schema)
    except Unsupported:
        return None


def _compile(schema: object) -> Predicate:
    if not isinstance(schema, dict):
        raise Unsupported(schema)
    checks: list[Predicate] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        build = _KEYWORDS.get(keyword)
        if build is None:
            raise Unsupported(keyword)
        checks.append(build(value, schema))
    if len(checks) == 1:
        return checks[0]

    def every_check(instance: object) -> bool:
        for check in checks:
            if not check(instance):
                return False
        return True
    return every_check


def _type(value, schema) -> Predicate:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or any(name not in _TYPES for name in names):
        raise Unsupported("type")
    tests = [_TYPES[name] for name in names]
    # integer-valued floats (1.0) are integers to JSON Schema: the shortcut says "ask"
    return tests[0] if len(tests) == 1 else (lambda instance: any(test(instance) for test in tests))


def _enum(value, schema) -> Predicate:
    if not isinstance(value, list) or not all(member is None or isinstance(member, str) for member in value):
        raise Unsupported("enum")
    strings = frozenset(member for member in value if member is not None)
    allows_null = None in value
    return lambda instance: (isinstance(instance, str) and instance in strings) or (allows_null and instance is None)


def _properties(value, schema) -> Predicate:
    rules = {name: _compile(rule) for name, rule in value.items()}

    def each_property(instance: object) -> bool:
        if isinstance(instance, dict):
            for name, item in instance.items():
                rule = rules.get(name)
                if rule is not None and not rule(item):
                    return False
        return True
    return each_property


def _required(value, schema) -> Predicate:
    names = frozenset(value)
    return lambda instance: not isinstance(instance, dict) or names.issubset(instance)


def _additional_properties(value, schema) -> Predicate:
    if value is True:
        return lambda instance: True
    if value is not False or "patternProperties" in schema:
        raise Unsupported("additionalProperties")
    allowed = frozenset(schema.get("properties", {}))
    return lambda instance: not isinstance(instance, dict) or allowed.issuperset(instance)


def _items(value, schema) -> Predicate:
    rule = _compile(value)

    def each_item(instance: object) -> bool:
        if isinstance(instance, list):
            for item in instance:
                if not rule(item):
                    return False
        return True
    return each_item


def _unique_items(value, schema) -> Predicate:
    if value is not True:
        return lambda instance: True

    def unique(instance: object) -> bool:
        if not isinstance(instance, list):
            return True
        # only lists of strings and non-boolean integers are judged here; anything else: ask
        for item in instance:
            if not (type(item) is str or type(item) is int):
                return False
        return len(set(instance)) == len(instance)
    return unique


def _min_length(value, schema) -> Predicate:
    return lambda instance: not isinstance(instance, str) or len(instance) >= value


def _min_items(value, schema) -> Predicate:
    return lambda instance: not isinstance(instance, list) or len(instance) >= value


def _minimum(value, schema) -> Predicate:
    return lambda instance: isinstance(instance, bool) or not isinstance(instance, (int, float)) or instance >= value


_KEYWORDS: dict[str, Callable[[object, dict], Predicate]] = {
    "type": _type,
    "enum": _enum,
    "properties": _properties,
    "required": _required,
    "additionalProperties": _additional_properties,
    "items": _items,
    "uniqueItems": _unique_items,
    "minLength": _min_length,
    "minItems": _min_items,
    "minimum": _minimum,
}
