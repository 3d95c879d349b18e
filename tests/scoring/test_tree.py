"""scoring.subtasks.discourse.tree_problems: every problem code, by hand."""

from scoring.subtasks import load_schema
from scoring.subtasks.discourse import RELATIONS, TREE_MESSAGES, tree_problems

DU_IDS = ["1", "2", "3", "4"]


def unit(du_id, head=None, relation=None):
    return {"du_id": du_id, "head": head, "relation": relation}


def valid_units():
    return [unit("1"), unit("2", "1", "Cause"), unit("3", "1", "Elaboration"), unit("4", "3", "Contrast")]


def test_relations_are_the_21_seed_labels_and_match_the_schemas():
    assert len(RELATIONS) == 21 and len(set(RELATIONS)) == 21
    assert "Co-occurence" in RELATIONS and "Feedback dependence" in RELATIONS
    for kind in ("output", "gold"):
        enum = load_schema("discourse", kind)["properties"]["discourse_units"]["items"]["properties"]["relation"]["enum"]
        assert enum == [*RELATIONS, None]


def test_every_code_has_a_message():
    codes = {"duplicate_du", "unknown_du", "missing_du", "no_root", "multiple_roots", "root_with_relation",
             "unknown_head", "self_attachment", "cycle", "missing_relation", "unknown_relation"}
    assert set(TREE_MESSAGES) == codes


def test_a_valid_tree_has_no_problems_in_any_order():
    assert tree_problems(DU_IDS, valid_units()) == {}
    assert tree_problems(DU_IDS, list(reversed(valid_units()))) == {}


def test_unknown_head():
    units = valid_units()
    units[3] = unit("4", "9", "Contrast")
    assert tree_problems(DU_IDS, units) == {"4": ["unknown_head"]}


def test_self_attachment():
    units = valid_units()
    units[1] = unit("2", "2", "Cause")
    assert tree_problems(DU_IDS, units) == {"2": ["self_attachment"]}


def test_cycle_is_reported_on_each_du_of_the_cycle_only():
    units = [unit("1"), unit("2", "3", "Cause"), unit("3", "2", "Cause"), unit("4", "3", "Contrast")]
    assert tree_problems(DU_IDS, units) == {"2": ["cycle"], "3": ["cycle"]}


def test_a_cycle_without_any_root():
    units = [unit("1", "4", "Cause"), unit("2", "1", "Cause"), unit("3", "2", "Cause"), unit("4", "3", "Cause")]
    assert tree_problems(DU_IDS, units) == {"": ["no_root"], "1": ["cycle"], "2": ["cycle"], "3": ["cycle"], "4": ["cycle"]}


def test_two_roots():
    units = valid_units()
    units[1] = unit("2")
    assert tree_problems(DU_IDS, units) == {"1": ["multiple_roots"], "2": ["multiple_roots"]}


def test_duplicate_du_first_entry_is_checked():
    units = [*valid_units(), unit("4", "4", "Bogus")]
    assert tree_problems(DU_IDS, units) == {"4": ["duplicate_du"]}


def test_missing_and_unknown_du():
    units = [unit("1"), unit("2", "1", "Cause"), unit("3", "1", "Cause"), unit("5", "1", "Cause")]
    assert tree_problems(DU_IDS, units) == {"5": ["unknown_du"], "4": ["missing_du"]}


def test_root_with_relation_missing_relation_and_unknown_relation():
    units = [unit("1", None, "Cause"), unit("2", "1", None), unit("3", "1", "Co-occurrence"), unit("4", "3", "")]
    assert tree_problems(DU_IDS, units) == {
        "1": ["root_with_relation"],
        "2": ["missing_relation"],
        "3": ["unknown_relation"],
        "4": ["missing_relation"],
    }


def test_malformed_entries_do_not_raise():
    units = ["x", {"head": None}, {"du_id": 3}, unit("1"), unit("2", 7, "Cause")]
    found = tree_problems(["1", "2"], units)
    assert found == {"": ["unknown_du"], "2": ["unknown_head"]}


def test_empty_answer():
    assert tree_problems(["1", "2"], []) == {"1": ["missing_du"], "2": ["missing_du"], "": ["no_root"]}



def test_a_relation_that_is_no_string_is_unknown():
    units = valid_units()
    units[1] = unit("2", "1", ["Cause"])
    assert tree_problems(DU_IDS, units) == {"2": ["unknown_relation"]}
