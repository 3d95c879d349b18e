"""The report's keys named for people: sources, what a source is scored on, the main score of a
subtask and its other figures, agreement figures and the campaign table's columns.

Pages and plots show these names in their language; the API and the downloads keep the keys
(``majority``, ``alpha``, ``pairwise_las``...), which the downloads print beside the names."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from annotation.subtasks import part

DEFAULT_SCORE_NAME = _("main score")


def score_name(subtask: str) -> str:
    """The name of a subtask's main score (its folder's ``SCORE_NAME``), in the active language."""
    return str(part(subtask, "SCORE_NAME", DEFAULT_SCORE_NAME))


# The sources without a name of their own (export sources and the report's pooled kinds).
SOURCE_NAMES = {
    "majority": _("majority"),
    "adjudicated": _("adjudicated"),
    "majority_filled": _("majority filled with adjudications"),
    "all": _("all answers"),
}


def source_name(source: str, fill: str = "") -> str:
    """``annotator:ann1`` -> "annotator ann1", ``majority`` -> "majority" (``fill``
    ``adjudicated``: "majority filled with adjudications"), in the active language."""
    kind, _colon, name = source.partition(":")
    if kind == "annotator" and name:
        return _("annotator %(name)s") % {"name": name}
    if kind == "model" and name:
        return _("model %(name)s") % {"name": name}
    if kind == "majority" and fill:
        kind = "majority_filled"
    return str(SOURCE_NAMES.get(kind, source))


SCORED_ON_NAMES = {
    "answered items": _("answered items"),
    "all gold items": _("all gold items"),
    "complete items": _("complete items"),
}


def scored_on_name(scored_on: str) -> str:
    return str(SCORED_ON_NAMES.get(scored_on, scored_on))


# The figures of `python -m scoring score` besides the main score, by key (a key not listed is shown as it is).
METRIC_NAMES = {
    "macro_f1": _("macro-F1"),
    "accuracy": _("accuracy"),
    "full_task_accuracy": _("full-task accuracy"),
    "label_accuracy": _("verdict accuracy"),
    "niepoprawne_precision": _("precision of NIEPOPRAWNE"),
    "niepoprawne_recall": _("recall of NIEPOPRAWNE"),
    "exact_match": _("exact match"),
    "las": _("LAS (labelled attachment score)"),
    "uas": _("UAS (unlabelled attachment score)"),
    "root_accuracy": _("root accuracy"),
    "tree_validity": _("tree validity"),
    "exact_set_accuracy": _("exact-set accuracy"),
    "lenient_exact_set_accuracy": _("exact-set accuracy, optional commas aside"),
    "micro_precision": _("micro precision of required commas"),
    "micro_recall": _("micro recall of required commas"),
}


def metric_name(key: str) -> str:
    return str(METRIC_NAMES.get(key, key))


# Every figure of `python -m scoring agreement`, by key (a key not listed is shown as it is).
AGREEMENT_NAMES = {
    "n_items": _("items with two or more answers"),
    "n_answers": _("answers"),
    "alpha": _("Krippendorff's alpha"),
    "observed_agreement": _("observed agreement"),
    "fleiss_kappa": _("Fleiss' kappa"),
    "fleiss_kappa_n_items": _("items in Fleiss' kappa"),
    "label_alpha": _("Krippendorff's alpha of the verdicts"),
    "correction_agreement": _("agreement of the corrections"),
    "correction_agreement_n_pairs": _("pairs of corrections compared"),
    "head_alpha": _("Krippendorff's alpha of the heads"),
    "labelled_alpha": _("Krippendorff's alpha of the labelled attachments"),
    "pairwise_las": _("LAS between annotators (mean over pairs)"),
    "pairwise_uas": _("UAS between annotators (mean over pairs)"),
    "marker_alpha": _("Krippendorff's alpha of the comma positions"),
    "exact_set_agreement": _("agreement on the exact set of commas"),
    "masi_alpha": _("Krippendorff's alpha with the MASI distance"),
}


def agreement_name(key: str) -> str:
    return str(AGREEMENT_NAMES.get(key, key))


CAMPAIGN_COLUMN_NAMES = {"subtask": _("subtask"), "human source": _("human source"), "mean annotator": _("mean annotator")}


def campaign_column_name(column: str) -> str:
    """A column of the campaign table: its human columns by name, a model as ``source_name``."""
    return str(CAMPAIGN_COLUMN_NAMES[column]) if column in CAMPAIGN_COLUMN_NAMES else source_name(column)
