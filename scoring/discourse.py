"""Discourse trees: the relation inventory and the one tree check of the project."""

from __future__ import annotations

# Spelled exactly as in the task description, including its "Co-occurence".
RELATIONS: tuple[str, ...] = (
    "Alternative",
    "Attribution",
    "Cause",
    "Co-occurence",
    "Comment",
    "Concession",
    "Condition",
    "Contrast",
    "Elaboration",
    "Entity-elaboration",
    "Exemplification",
    "Feedback dependence",
    "Formatting",
    "Manner",
    "Metatext",
    "Purpose",
    "Question-Answer",
    "Repetition",
    "Sequence-Elaboration",
    "Similarity",
    "Substitution",
)
_RELATION_SET = frozenset(RELATIONS)

PASSAGE = ""  # the key of problems that concern the passage as a whole

TREE_MESSAGES: dict[str, str] = {
    "duplicate_du": "the DU is given more than once",
    "unknown_du": "the DU is not a DU of this passage",
    "missing_du": "the DU is not given",
    "no_root": "no DU is the root (head and relation null)",
    "multiple_roots": "more than one DU is a root",
    "root_with_relation": "the root (head null) has a relation; it must be null",
    "unknown_head": "the head is not a DU of this passage",
    "self_attachment": "the DU is its own head",
    "cycle": "the DU is on a cycle of heads",
    "missing_relation": "the DU has a head but no relation",
    "unknown_relation": "the relation is not one of the 21 labels",
}


def tree_problems(du_ids: list[str], units: list[dict]) -> dict[str, list[str]]:
    """Problem codes per du_id of a predicted tree; ``{}`` means a valid tree.

    ``du_ids`` are the passage's DUs; ``units`` the answer's ``{"du_id", "head",
    "relation"}`` entries, possibly malformed. A valid tree gives every DU exactly
    once, has one root (head and relation null), heads that name other DUs of the
    passage, no cycle, and relations from ``RELATIONS``.

    Codes on the passage key ``""``: ``no_root``, and ``unknown_du`` for an entry
    that is not an object with a string du_id. Codes on a du_id: ``duplicate_du``,
    ``unknown_du``, ``missing_du``, ``multiple_roots`` (on each root),
    ``root_with_relation``, ``unknown_head``, ``self_attachment``, ``cycle`` (on each
    DU of the cycle), ``missing_relation``, ``unknown_relation``. When a du_id is
    given twice, its first entry is the one checked.
    """
    problems: dict[str, list[str]] = {}

    def add(key: str, code: str) -> None:
        codes = problems.setdefault(key, [])
        if code not in codes:
            codes.append(code)

    known = set(du_ids)
    heads: dict[str, object] = {}
    for unit in units:
        du_id = unit.get("du_id") if isinstance(unit, dict) else None
        if not isinstance(du_id, str):
            add(PASSAGE, "unknown_du")
            continue
        if du_id in heads:
            add(du_id, "duplicate_du")
            continue
        if du_id not in known:
            add(du_id, "unknown_du")
        heads[du_id] = unit.get("head")
        relation = unit.get("relation")
        head = heads[du_id]
        if head is None:
            if relation is not None:
                add(du_id, "root_with_relation")
        else:
            if head == du_id:
                add(du_id, "self_attachment")
            elif not isinstance(head, str) or head not in known:
                add(du_id, "unknown_head")
            if relation is None or relation == "":
                add(du_id, "missing_relation")
        if relation is not None and relation != "" and relation not in _RELATION_SET:
            add(du_id, "unknown_relation")

    for du_id in du_ids:
        if du_id not in heads:
            add(du_id, "missing_du")

    roots = [du_id for du_id, head in heads.items() if head is None]
    if not roots:
        add(PASSAGE, "no_root")
    elif len(roots) > 1:
        for du_id in roots:
            add(du_id, "multiple_roots")

    for du_id in _cycle_members(heads):
        add(du_id, "cycle")
    return problems


def _cycle_members(heads: dict[str, object]) -> list[str]:
    """DUs on a cycle of length two or more (a self-attachment is reported apart)."""
    on_cycle: list[str] = []
    settled: set[str] = set()
    for start in heads:
        path: dict[str, int] = {}
        node: object = start
        while isinstance(node, str) and node in heads and node not in settled and node not in path:
            path[node] = len(path)
            node = heads[node]
        if isinstance(node, str) and node in path and heads[node] != node:
            members = list(path)[path[node]:]
            on_cycle.extend(members)
        settled.update(path)
    return on_cycle
