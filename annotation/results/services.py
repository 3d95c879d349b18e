"""What an organizer adds for the report: model submissions beside the human sources, and
campaigns grouping one dataset per subtask.

A model submission is checked exactly as `python -m scoring validate --inputs` checks a file
(`scoring.check_submission` against the dataset's inputs, the whole dataset answered); on any
problem nothing is stored and every problem is reported with its line.
"""

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.core.problems import problem
from annotation.core.storable import unstorable
from annotation.datasets.importing import other_subtask_problems
from annotation.datasets.removing import record
from annotation.models import Campaign, CampaignProtocol, Dataset, ModelSubmission, RemovalRecord
from scoring.validation import check_submission


def upload_model_submission(*, dataset: Dataset, name: str, submission: SourceFile,
                            uploaded_by: AbstractBaseUser | None = None) -> ModelSubmission:
    """Store a model's submission file for ``dataset`` under ``name``, or raise Refused."""
    name = name.strip()
    if not name:
        raise Refused.of("required/model_name")
    if len(name) > ModelSubmission._meta.get_field("name").max_length:
        raise Refused.of("too_long/model_name")
    if unstorable(name):
        raise Refused.of("unstorable/model_name")
    with submission.open() as stream:
        data = stream.read()
    inputs = list(dataset.items.order_by("ordinal").values_list("payload", flat=True))
    records, problems = check_submission(dataset.subtask, data, submission.name, inputs, False)
    if problems:
        raise Refused(other_subtask_problems("output", records, dataset.subtask, submission.name) + problems)
    try:
        with transaction.atomic():
            return ModelSubmission.objects.create(
                dataset=dataset, name=name, filename=submission.name, data=data, uploaded_by=uploaded_by
            )
    except IntegrityError:
        raise Refused.of("exists/model", name=name) from None


def delete_model_submission(submission: ModelSubmission, *, by: AbstractBaseUser | None) -> RemovalRecord:
    """Delete a model's submission (nothing depends on it: the reports computed with it are
    computed anew without it); recorded on its dataset's page."""
    with transaction.atomic():
        done = record(dataset=submission.dataset, kind=RemovalRecord.Kind.MODEL, name=submission.name,
                      action=RemovalRecord.Action.DELETED, by=by)
        ModelSubmission.objects.filter(pk=submission.pk).delete()
    return done


def create_campaign(*, name: str, datasets: list[Dataset], created_by: AbstractBaseUser | None = None,
                    human_source: str = Campaign.HumanSource.MAJORITY_FILLED) -> Campaign:
    """A campaign of ``datasets``, at most one per subtask, showing the pooled ``human_source``
    beside the models, or raise Refused."""
    name = name.strip()
    problems = []
    if not name:
        problems.append(problem("required/campaign_name"))
    seen: dict[str, str] = {}
    for dataset in datasets:
        if dataset.subtask in seen:
            problems.append(problem("subtask_twice", first=seen[dataset.subtask], second=dataset.name,
                                    subtask=dataset.subtask))
        seen.setdefault(dataset.subtask, dataset.name)
    if human_source not in Campaign.HumanSource.values:
        problems.append(problem("human_source", source=human_source, sources=", ".join(Campaign.HumanSource.values)))
    if Campaign.objects.filter(name=name).exists():
        problems.append(problem("exists/campaign", name=name))
    if problems:
        raise Refused(problems)
    with transaction.atomic():
        campaign = Campaign.objects.create(name=name, created_by=created_by, human_source=human_source)
        campaign.datasets.set(datasets)
    return campaign


def save_protocol(form, campaign: Campaign, by: AbstractBaseUser) -> CampaignProtocol:
    """Store the campaign's protocol from a valid CampaignProtocolForm (one row per campaign)."""
    protocol = form.save(commit=False)
    protocol.campaign, protocol.updated_by = campaign, by
    protocol.save()
    return protocol
