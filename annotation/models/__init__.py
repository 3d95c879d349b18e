"""The app's models, one module per concern; every name is re-exported here, so
``from annotation.models import X`` is the way to import any of them.

datasets       Dataset, Item, GoldAnswer, Assignment, Flag, RemovalRecord (and subtask_title)
answers        Annotation, AnnotationRevision
training       TrainingRound, TrainingAnswer, Explanation
adjudication   Adjudication, AdjudicationRevision, AdjudicationClaim
results        ModelSubmission, Campaign, StoredReport, StoredReportPart, Pseudonym, CampaignProtocol
accounts       KeyPreference (and single_keys_for)
routing        RoutedAnnotator, RoutedItem, RoutingOrder
audit          GoldVersion, GoldAuditDecision
studies        Study, StudyDataset, StudyParticipant, StudyRefusal

The app label, tables, constraint names and migrations are those of the one models.py
they were split from."""

from annotation.models.accounts import KeyPreference, single_keys_for
from annotation.models.adjudication import Adjudication, AdjudicationClaim, AdjudicationRevision
from annotation.models.answers import Annotation, AnnotationRevision
from annotation.models.audit import GoldAuditDecision, GoldVersion
from annotation.models.datasets import Assignment, Dataset, Flag, GoldAnswer, Item, RemovalRecord, subtask_title
from annotation.models.results import (
    Campaign,
    CampaignProtocol,
    ModelSubmission,
    Pseudonym,
    StoredReport,
    StoredReportPart,
)
from annotation.models.routing import RoutedAnnotator, RoutedItem, RoutingOrder
from annotation.models.studies import Study, StudyDataset, StudyParticipant, StudyRefusal
from annotation.models.training import Explanation, TrainingAnswer, TrainingRound

__all__ = [
    "subtask_title",
    "Dataset",
    "Item",
    "GoldAnswer",
    "Assignment",
    "Flag",
    "RemovalRecord",
    "Annotation",
    "AnnotationRevision",
    "TrainingRound",
    "TrainingAnswer",
    "Explanation",
    "Adjudication",
    "AdjudicationRevision",
    "AdjudicationClaim",
    "ModelSubmission",
    "Campaign",
    "StoredReport",
    "StoredReportPart",
    "Pseudonym",
    "CampaignProtocol",
    "GoldVersion",
    "GoldAuditDecision",
    "KeyPreference",
    "single_keys_for",
    "RoutedAnnotator",
    "RoutedItem",
    "RoutingOrder",
    "Study",
    "StudyDataset",
    "StudyParticipant",
    "StudyRefusal",
]
