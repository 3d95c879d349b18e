"""scoring.reliability and scoring.agreement: hand-computed cases, and the test-only references
(krippendorff, statsmodels)."""

import random
from collections import Counter
from fractions import Fraction

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from scoring.agreement import agreement_figures, majority_answer
from scoring.reliability import (
    NO_PAIRABLE_UNIT,
    ONE_VALUE,
    AnswerTable,
    Undefined,
    alpha,
    fleiss_kappa,
    fleiss_units,
    masi_distance,
    masi_distances,
    nominal_alpha,
    observed_agreement,
)

NAN = np.nan


def units_of(matrix):
    """Value counts per unit (column) of a coders x units matrix with NaN for a missing value."""
    units = []
    for column in np.asarray(matrix, dtype=float).T:
        units.append(Counter(value for value in column.tolist() if not np.isnan(value)))
    return units


# Krippendorff's alpha ------------------------------------------------------------------------

def test_nominal_alpha_by_hand():
    # Two units: (a, a) and (a, b). n = 4; o_aa = 2, o_ab = o_ba = 1; n_a = 3, n_b = 1.
    # D_o = 2/4, D_e = (3*1 + 1*3) / (4*3) = 1/2 -> alpha = 1 - 1 = 0.
    assert nominal_alpha([Counter("aa"), Counter("ab")]) == 0.0
    # (a, a), (b, b), (a, b): n = 6, D_o = 2/6, n_a = n_b = 3, D_e = 18/30 -> 1 - (1/3)/(3/5) = 4/9.
    assert nominal_alpha([Counter("aa"), Counter("bb"), Counter("ab")]) == pytest.approx(4 / 9, abs=1e-15)


def test_alpha_leaves_out_units_with_one_value():
    assert nominal_alpha([Counter("aa"), Counter("bb"), Counter("ab"), Counter("c")]) == pytest.approx(4 / 9, abs=1e-15)


def test_alpha_reasons():
    with pytest.raises(Undefined, match="no unit has two values"):
        nominal_alpha([Counter("a"), Counter("b")])
    with pytest.raises(Undefined) as raised:
        nominal_alpha([Counter("aa"), Counter("aaa")])
    assert str(raised.value) == ONE_VALUE
    with pytest.raises(Undefined) as raised:
        alpha([Counter({frozenset({1}): 2})], masi_distances)
    assert str(raised.value) == ONE_VALUE
    with pytest.raises(Undefined) as raised:
        alpha([], masi_distances)
    assert str(raised.value) == NO_PAIRABLE_UNIT


@pytest.mark.parametrize("seed", range(20))
def test_nominal_alpha_equals_the_krippendorff_package(seed):
    generator = np.random.default_rng(seed)
    coders, n_units, n_values = generator.integers(2, 6), generator.integers(2, 60), generator.integers(2, 6)
    matrix = generator.integers(0, n_values, size=(coders, n_units)).astype(float)
    matrix[generator.random(matrix.shape) < 0.3] = NAN
    units = units_of(matrix)
    if sum(1 for counts in units if sum(counts.values()) >= 2) == 0:
        return
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    if np.isnan(expected):
        with pytest.raises(Undefined):
            nominal_alpha(units)
        return
    assert nominal_alpha(units) == pytest.approx(expected, abs=1e-9)
    # The general path with the nominal distance gives the same.
    assert alpha(units, lambda left, right: (np.asarray(left)[:, None] != np.asarray(right)[None, :]).astype(float)) == pytest.approx(expected, abs=1e-9)


def random_sets(generator, count):
    return [frozenset(np.flatnonzero(generator.random(5) < 0.4).tolist()) for _ in range(count)]


@pytest.mark.parametrize("seed", range(20))
def test_masi_alpha_equals_the_krippendorff_package_with_masi(seed):
    generator = np.random.default_rng(100 + seed)
    domain = sorted(set(random_sets(generator, 12)), key=sorted)
    coders, n_units = generator.integers(2, 5), generator.integers(3, 40)
    matrix = generator.integers(0, len(domain), size=(coders, n_units)).astype(float)
    matrix[generator.random(matrix.shape) < 0.25] = NAN
    table = np.array([[masi_distance(first, second) for second in domain] for first in domain])

    def masi_by_index(v1, v2, i1, i2, n_v, dtype=np.float64):
        return table[i1, i2]

    expected = krippendorff.alpha(reliability_data=matrix, value_domain=list(range(len(domain))),
                                  level_of_measurement=masi_by_index)
    units = [Counter({domain[int(index)]: count for index, count in counts.items()}) for counts in units_of(matrix)]
    if np.isnan(expected):
        with pytest.raises(Undefined):
            alpha(units, masi_distances)
        return
    assert alpha(units, masi_distances) == pytest.approx(expected, abs=1e-9)


# MASI -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("first, second, distance", [
    (set(), set(), Fraction(0)),
    ({1, 2}, {1, 2}, Fraction(0)),
    ({1}, {1, 2}, 1 - Fraction(1, 2) * Fraction(2, 3)),  # J = 1/2, subset
    (set(), {3}, 1 - 0 * Fraction(2, 3)),  # the empty set is a proper subset; J = 0
    ({1, 2}, {2, 3}, 1 - Fraction(1, 3) * Fraction(1, 3)),  # J = 1/3, overlap
    ({1, 2, 3}, {3, 4}, 1 - Fraction(1, 4) * Fraction(1, 3)),
    ({1}, {2}, Fraction(1)),
])
def test_masi_distance_by_hand(first, second, distance):
    assert masi_distance(frozenset(first), frozenset(second)) == float(distance)
    assert masi_distance(frozenset(second), frozenset(first)) == float(distance)


def test_masi_distances_match_the_scalar_distance():
    generator = np.random.default_rng(7)
    left, right = random_sets(generator, 30), random_sets(generator, 25)
    matrix = masi_distances(left, right)
    for row, first in enumerate(left):
        for column, second in enumerate(right):
            assert matrix[row, column] == pytest.approx(masi_distance(first, second), abs=1e-15)


# Observed agreement, Fleiss' kappa ------------------------------------------------------------

def test_observed_agreement_by_hand():
    # (A, A, B): 2 equal ordered pairs of 6 = 1/3; (A, A): 1; (C,): left out. Mean 2/3.
    assert observed_agreement([Counter("AAB"), Counter("AA"), Counter("C")]) == pytest.approx(2 / 3, abs=1e-15)
    with pytest.raises(Undefined, match="no item has two valid answers"):
        observed_agreement([Counter("A")])


def test_fleiss_units_take_the_most_frequent_count_and_the_larger_on_a_tie():
    units = [Counter("AA"), Counter("AB"), Counter("ABC"), Counter("AAC"), Counter("A")]
    assert [sum(unit.values()) for unit in fleiss_units(units)] == [3, 3]
    assert [sum(unit.values()) for unit in fleiss_units(units[:3])] == [2, 2]
    assert fleiss_units([Counter("A")]) == []


def test_fleiss_kappa_by_hand():
    # Two items, three raters: (A, A, A) and (A, A, B). P_1 = 1, P_2 = 1/3, P = 2/3;
    # p_A = 5/6, p_B = 1/6, P_e = 26/36 -> kappa = (2/3 - 13/18) / (5/18) = -1/5.
    assert fleiss_kappa([Counter("AAA"), Counter("AAB")], "ABCD") == pytest.approx(-0.2, abs=1e-15)
    with pytest.raises(Undefined, match="fewer than 2"):
        fleiss_kappa([Counter("AAB")], "ABCD")
    with pytest.raises(Undefined, match="P_e = 1"):
        fleiss_kappa([Counter("AA"), Counter("AA")], "ABCD")


@pytest.mark.parametrize("seed", range(20))
def test_fleiss_kappa_equals_statsmodels(seed):
    generator = random.Random(seed)
    raters = generator.randint(2, 6)
    units = [Counter(generator.choice("ABCD"[: generator.randint(1, 4)]) for _ in range(raters))
             for _ in range(generator.randint(2, 50))]
    table = np.array([[unit[label] for label in "ABCD"] for unit in units])
    expected = statsmodels_fleiss_kappa(table, method="fleiss")
    if not np.isfinite(expected):
        with pytest.raises(Undefined):
            fleiss_kappa(units, "ABCD")
        return
    assert fleiss_kappa(units, "ABCD") == pytest.approx(expected, abs=1e-9)


# Figures per subtask ---------------------------------------------------------------------------

def table(items, *files):
    return AnswerTable(items=items, files=[dict(answers) for answers in files])


def label_items(count):
    return [{"id": f"i{number}"} for number in range(1, count + 1)]


def test_label_figures_by_hand():
    files = (
        {"i1": {"answer": "A"}, "i2": {"answer": "B"}, "i3": {"answer": "C"}},
        {"i1": {"answer": "A"}, "i2": {"answer": "A"}, "i3": {"answer": "C"}},
        {"i1": {"answer": "A"}, "i2": {"answer": "B"}},
    )
    figures = agreement_figures("wsd", table(label_items(3), *files))
    # Units: AAA, BAB, CC. Observed: (1 + 1/3 + 1) / 3 = 7/9.
    assert figures["n_items"] == 3 and figures["n_answers"] == 8
    assert figures["observed_agreement"] == pytest.approx(7 / 9, abs=1e-15)
    # alpha: n = 8; o_cc: A 6/2 + 0 (one A in BAB, 1*0) ..., computed via the package.
    matrix = np.array([[0, 1, 2], [0, 0, 2], [0, 1, NAN]])
    assert figures["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-12)
    # Fleiss: m = 3 (two items), AAA and ABB: P = (1 + 1/3)/2 = 2/3; p_A = 4/6, p_B = 2/6,
    # P_e = 20/36 = 5/9 -> kappa = (2/3 - 5/9) / (4/9) = 1/4.
    assert figures["fleiss_kappa"] == pytest.approx(0.25, abs=1e-15)
    assert figures["fleiss_kappa_n_items"] == 2
    assert figures["reasons"] == {}
    assert list(figures) == ["n_items", "n_answers", "alpha", "fleiss_kappa", "fleiss_kappa_n_items", "observed_agreement", "reasons"]


def test_figures_of_files_without_common_items_are_null_with_reasons():
    files = ({"i1": {"answer": "A"}}, {"i2": {"answer": "B"}})
    figures = agreement_figures("coreference", table(label_items(2), *files))
    assert figures["n_items"] == 0 and figures["n_answers"] == 0
    assert figures["alpha"] is None and figures["fleiss_kappa"] is None and figures["observed_agreement"] is None
    assert figures["fleiss_kappa_n_items"] == 0
    assert set(figures["reasons"]) == {"alpha", "fleiss_kappa", "observed_agreement"}


def test_numerals_figures_compare_normalised_answers():
    files = ({"i1": {"answer": "dwóch"}}, {"i1": {"answer": "dwóch"}})
    figures = agreement_figures("numerals", table(label_items(1), *files))
    assert figures["observed_agreement"] == 1.0
    assert figures["alpha"] is None and figures["reasons"]["alpha"] == ONE_VALUE


def morpho(label, correction=""):
    return {"answer": label, "corrected_sentence": correction}


def test_morphosyntax_figures_by_hand():
    files = (
        {"i1": morpho("NIEPOPRAWNE", "Ala ma kota."), "i2": morpho("POPRAWNE")},
        {"i1": morpho("NIEPOPRAWNE", "Ala ma kota."), "i2": morpho("NIEPOPRAWNE", "X.")},
        {"i1": morpho("NIEPOPRAWNE", "Ala ma psa."), "i2": morpho("POPRAWNE")},
    )
    figures = agreement_figures("morphosyntax", table(label_items(2), *files))
    # i1: 3 NIEPOPRAWNE -> 3 pairs, 1 equal; i2: one NIEPOPRAWNE -> no pair.
    assert figures["correction_agreement"] == pytest.approx(1 / 3, abs=1e-15)
    assert figures["correction_agreement_n_pairs"] == 3
    matrix = np.array([[1, 0], [1, 1], [1, 0]])
    assert figures["label_alpha"] == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-12)

    none = agreement_figures("morphosyntax", table(label_items(1), {"i1": morpho("POPRAWNE")}, {"i1": morpho("POPRAWNE")}))
    assert none["correction_agreement"] is None and none["correction_agreement_n_pairs"] == 0
    assert set(none["reasons"]) == {"label_alpha", "correction_agreement"}


def commas_item(item_id, n_markers):
    return {"id": item_id, "sentence_with_positions": " ".join(f"w [{number}]" for number in range(1, n_markers + 1))}


def commas(required, optional=()):
    return {"commas": list(required), "optional": list(optional)}


def test_commas_figures_by_hand():
    items = [commas_item("i1", 3), commas_item("i2", 2)]
    files = (
        {"i1": commas([1], [3]), "i2": commas([])},
        {"i1": commas([1, 2]), "i2": commas([])},
    )
    figures = agreement_figures("commas", table(items, *files))
    # Marker units: (req, req), (none, req), (opt, none), (none, none), (none, none).
    marker_units = [Counter(["required", "required"]), Counter(["none", "required"]), Counter(["optional", "none"]),
                    Counter(["none", "none"]), Counter(["none", "none"])]
    assert figures["marker_alpha"] == nominal_alpha(marker_units)
    # Required sets: {1} vs {1, 2} differ; {} vs {} equal -> 1/2.
    assert figures["exact_set_agreement"] == 0.5
    # MASI alpha: values {1}, {1,2}, {}, {}; delta({1},{1,2}) = 2/3, delta({1},{}) = 1, delta({1,2},{}) = 1.
    # D_o numerator: 2 * (1 * 1 / 1) * 2/3 = 4/3; D_e numerator: 2 * (1*1*2/3 + 1*2*1 + 1*2*1) = 28/3; n = 4.
    assert figures["masi_alpha"] == pytest.approx(1 - 3 * (4 / 3) / (28 / 3), abs=1e-15)


def discourse_item(item_id, *du_ids):
    return {"id": item_id, "discourse_units": [{"du_id": du_id, "text": du_id} for du_id in du_ids]}


def tree(*attachments):
    return {"discourse_units": [{"du_id": du_id, "head": head, "relation": relation} for du_id, head, relation in attachments]}


def test_discourse_figures_by_hand():
    items = [discourse_item("p1", "1", "2", "3")]
    first = tree(("1", None, None), ("2", "1", "Elaboration"), ("3", "2", "Cause"))
    second = tree(("1", None, None), ("2", "1", "Elaboration"), ("3", "1", "Cause"))
    third = tree(("1", None, None), ("2", "1", "Contrast"), ("3", "1", "Cause"))
    figures = agreement_figures("discourse", table(items, {"p1": first}, {"p1": second}, {"p1": third}))
    # Ordered pairs (R, P): UAS over R's 2 non-root DUs.
    # (1,2): 1/2, LAS 1/2; (1,3): 1/2, 0; (2,1): 1/2, 1/2; (2,3): 1, 1/2; (3,1): 1/2, 0; (3,2): 1, 1/2.
    assert figures["pairwise_uas"] == pytest.approx((0.5 + 0.5 + 0.5 + 1 + 0.5 + 1) / 6, abs=1e-15)
    assert figures["pairwise_las"] == pytest.approx((0.5 + 0 + 0.5 + 0.5 + 0 + 0.5) / 6, abs=1e-15)
    head_units = [Counter(["ROOT"] * 3), Counter(["1"] * 3), Counter(["2", "1", "1"])]
    labelled_units = [Counter([("ROOT", None)] * 3), Counter([("1", "Elaboration")] * 2 + [("1", "Contrast")]),
                      Counter([("2", "Cause"), ("1", "Cause"), ("1", "Cause")])]
    assert figures["head_alpha"] == nominal_alpha(head_units)
    assert figures["labelled_alpha"] == nominal_alpha(labelled_units)


def test_discourse_pairs_without_a_non_root_du_are_left_out():
    items = [discourse_item("p1", "1")]
    root_only = tree(("1", None, None))
    figures = agreement_figures("discourse", table(items, {"p1": root_only}, {"p1": root_only}))
    assert figures["pairwise_uas"] is None and figures["pairwise_las"] is None
    assert {"pairwise_uas", "pairwise_las", "head_alpha", "labelled_alpha"} == set(figures["reasons"])


# Majority -------------------------------------------------------------------------------------

def test_majority_reasons_by_count():
    assert majority_answer("wsd", [], {"id": "i1"}) == (None, "no answer")
    assert majority_answer("wsd", [{"answer": "A"}], {"id": "i1"}) == (None, "one answer")


@pytest.mark.parametrize("key", ["wsd", "coreference"])
def test_label_majority(key):
    assert majority_answer(key, [{"answer": "A"}, {"answer": "B"}, {"answer": "A"}], {}) == ({"answer": "A"}, None)
    assert majority_answer(key, [{"answer": "A"}, {"answer": "B"}], {}) == (None, "no majority")
    assert majority_answer(key, [{"answer": "A"}, {"answer": "A"}, {"answer": "B"}, {"answer": "B"}], {}) == (None, "no majority")


def test_numerals_majority_is_on_the_normalised_answer():
    answers = [{"answer": "Dwóch "}, {"answer": "dwóch"}, {"answer": "dwu"}]
    assert majority_answer("numerals", answers, {}) == ({"answer": "dwóch"}, None)


def test_morphosyntax_majority_is_on_label_and_correction():
    answers = [morpho("NIEPOPRAWNE", "Ala  ma kota."), morpho("NIEPOPRAWNE", "Ala ma kota."), morpho("NIEPOPRAWNE", "Ala ma psa.")]
    assert majority_answer("morphosyntax", answers, {}) == (morpho("NIEPOPRAWNE", "Ala ma kota."), None)
    split = [morpho("NIEPOPRAWNE", "Ala ma kota."), morpho("NIEPOPRAWNE", "Ala ma psa."), morpho("POPRAWNE")]
    assert majority_answer("morphosyntax", split, {}) == (None, "no majority")


def test_commas_majority_per_marker():
    item = commas_item("i1", 4)
    answers = [commas([1], [3]), commas([1, 2], [3]), commas([2], [4])]
    # marker 1: req, req, none; 2: none, req, req; 3: opt, opt, none; 4: none, none, opt.
    assert majority_answer("commas", answers, item) == (commas([1, 2], [3]), None)
    assert majority_answer("commas", [commas([1]), commas([], [1])], item) == (None, "no majority")


def test_discourse_majority_per_du_and_tree():
    item = discourse_item("p1", "1", "2", "3")
    first = tree(("1", None, None), ("2", "1", "Elaboration"), ("3", "2", "Cause"))
    second = tree(("1", None, None), ("2", "1", "Elaboration"), ("3", "1", "Cause"))
    third = tree(("1", None, None), ("2", "1", "Contrast"), ("3", "2", "Cause"))
    assert majority_answer("discourse", [first, second, third], item) == (first, None)
    assert majority_answer("discourse", [first, second], item) == (None, "no majority")


def test_discourse_majority_that_is_not_a_tree():
    item = discourse_item("p1", "1", "2", "3")
    # Each DU has a majority, but together 2 and 3 head each other and nothing is the root.
    a = tree(("1", "2", "Cause"), ("2", "3", "Cause"), ("3", None, None))
    b = tree(("1", None, None), ("2", "3", "Cause"), ("3", "2", "Cause"))
    c = tree(("1", "2", "Cause"), ("2", None, None), ("3", "2", "Cause"))
    assert majority_answer("discourse", [a, b, c], item) == (None, "invalid tree")


# Whole subtasks against the reference package, on random answers ---------------------------

def reliability_matrix(columns):
    """coders x units, NaN where a coder gave no value; values numbered in order of appearance."""
    numbers: dict = {}
    return np.array([[NAN if value is None else numbers.setdefault(value, len(numbers)) for value in column]
                     for column in columns], dtype=float).T


@pytest.mark.parametrize("seed", range(5))
def test_commas_marker_alpha_equals_the_krippendorff_package(seed):
    generator = random.Random(seed)
    items = [commas_item(f"i{number}", generator.randint(1, 6)) for number in range(30)]
    files = []
    for _ in range(3):
        answers = {}
        for item in items:
            if generator.random() < 0.2:
                continue
            n_markers = item["sentence_with_positions"].count("[")
            values = [generator.choice(["required", "optional", "none", "none"]) for _ in range(n_markers)]
            answers[item["id"]] = commas([m for m, v in enumerate(values, 1) if v == "required"],
                                         [m for m, v in enumerate(values, 1) if v == "optional"])
        files.append(answers)
    figures = agreement_figures("commas", AnswerTable(items, files))
    columns = []
    for item in items:
        for marker in range(1, item["sentence_with_positions"].count("[") + 1):
            column = []
            for answers in files:
                answer = answers.get(item["id"])
                column.append(None if answer is None else
                              "required" if marker in answer["commas"] else "optional" if marker in answer["optional"] else "none")
            columns.append(column)
    expected = krippendorff.alpha(reliability_data=reliability_matrix(columns), level_of_measurement="nominal")
    assert figures["marker_alpha"] == pytest.approx(expected, abs=1e-9)


def random_tree(generator, du_ids):
    units = [{"du_id": du_ids[0], "head": None, "relation": None}]
    for index, du_id in enumerate(du_ids[1:], start=1):
        units.append({"du_id": du_id, "head": generator.choice(du_ids[:index]), "relation": generator.choice(["Cause", "Elaboration"])})
    generator.shuffle(units)
    return {"discourse_units": units}


@pytest.mark.parametrize("seed", range(5))
def test_discourse_alphas_equal_the_krippendorff_package(seed):
    generator = random.Random(seed)
    items = [discourse_item(f"p{number}", *[str(du) for du in range(generator.randint(1, 5))]) for number in range(20)]
    files = [{item["id"]: random_tree(generator, [unit["du_id"] for unit in item["discourse_units"]])
              for item in items if generator.random() < 0.85} for _ in range(3)]
    figures = agreement_figures("discourse", AnswerTable(items, files))
    heads, labelled = [], []
    for item in items:
        for unit in item["discourse_units"]:
            given = []
            for answers in files:
                tree_units = {u["du_id"]: u for u in answers[item["id"]]["discourse_units"]} if item["id"] in answers else None
                given.append(None if tree_units is None else tree_units[unit["du_id"]])
            heads.append([None if u is None else (u["head"] or "ROOT") for u in given])
            labelled.append([None if u is None else (u["head"] or "ROOT", u["relation"]) for u in given])
    for key, columns in (("head_alpha", heads), ("labelled_alpha", labelled)):
        expected = krippendorff.alpha(reliability_data=reliability_matrix(columns), level_of_measurement="nominal")
        assert figures[key] == pytest.approx(expected, abs=1e-9)
