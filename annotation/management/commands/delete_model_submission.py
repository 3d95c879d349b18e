from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, dataset_named, user_named
from annotation.models import ModelSubmission
from annotation.results.services import delete_model_submission


class Command(DataCommand):
    help = "Delete a model's submission from a dataset's report, as the dataset page does (recorded; --by: who)."

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("model", help="the model's name")
        parser.add_argument("--by", type=user_named, metavar="USER", help="the organizer recorded as deleting it")

    def run(self, *, dataset, model, by, **options):
        submission = ModelSubmission.objects.filter(dataset=dataset, name=model).first()
        if submission is None:
            raise CommandError(f"{dataset.name} has no model named {model!r}", returncode=2)
        delete_model_submission(submission, by=by)
        self.stdout.write(f"model {model} deleted from {dataset.name}.")
