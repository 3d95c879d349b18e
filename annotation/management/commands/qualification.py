import json

from django.core.management.base import CommandError
from django.db import transaction

from annotation.management.commands._common import DataCommand, dataset_named, user_named, users_named
from annotation.training import services as training
from annotation.training.selectors import training_procedure


class Command(DataCommand):
    help = (
        "Show or set a dataset's training and control procedure. Without options it prints the "
        "procedure as the human-baseline report states it (--json: the report's procedure object). "
        "--threshold, --control-rate and --control-seed change the settings (set the control rate "
        "before assigning: control items are placed when items are assigned); --retry gives "
        "annotators a fresh training round; --release lets them work whatever their score."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        threshold = parser.add_mutually_exclusive_group()
        threshold.add_argument("--threshold", type=float, help="the training score needed for real items, 0..1")
        threshold.add_argument("--no-threshold", action="store_true", help="any finished training round qualifies")
        parser.add_argument("--control-rate", type=int, metavar="N", help="one control item in N positions (0: none)")
        parser.add_argument("--control-seed", help="the seed of the control items' places and order")
        parser.add_argument("--retry", type=users_named, metavar="USERS", help="comma-separated usernames")
        parser.add_argument("--release", type=users_named, metavar="USERS", help="comma-separated usernames")
        parser.add_argument("--by", type=user_named, metavar="USER", help="the organizer recorded as releasing")
        parser.add_argument("--json", action="store_true", help="print the procedure as one JSON object")

    def run(self, *, dataset, threshold, no_threshold, control_rate, control_seed, retry, release, by, json, **options):
        if dataset.pool_of_id is not None:
            raise CommandError(f"{dataset.name} is a {dataset.pool_kind} pool: name the dataset it serves")
        changes_settings = no_threshold or any(value is not None for value in (threshold, control_rate, control_seed))
        done = []
        with transaction.atomic():  # a refusal of any part changes nothing
            if changes_settings:
                training.set_qualification(
                    dataset,
                    threshold=None if no_threshold else dataset.threshold if threshold is None else threshold,
                    control_rate=dataset.control_rate if control_rate is None else control_rate,
                    control_seed=dataset.control_seed if control_seed is None else control_seed,
                )
                done.append("settings saved")
            for annotator in retry or ():
                attempt = training.allow_retry(dataset, annotator).attempt
                done.append(f"{annotator.get_username()}: a fresh training round (try {attempt})")
            for annotator in release or ():
                training.release_from_training(dataset, annotator, by)
                done.append(f"{annotator.get_username()}: released")
        for line in done:  # with --json, stdout holds the JSON alone
            (self.stderr if json else self.stdout).write(line)
        if not done or json:
            self.stdout.write(procedure_text(dataset.name, dataset.subtask, training_procedure(dataset), json))


def procedure_text(name: str, subtask: str, procedure: dict, as_json: bool) -> str:
    """The procedure as the report's JSON object, or as a few lines and a table."""
    if as_json:
        return json.dumps(procedure, ensure_ascii=False, indent=2)
    threshold = "none" if procedure["threshold"] is None else f"{procedure['threshold']:g}"
    rate = f"one in {procedure['control_rate']}" if procedure["control_rate"] else "none"
    lines = [
        f"{name} ({subtask}): {procedure['training_items']} training items, threshold {threshold}, "
        f"control items {rate} ({procedure['control_items']} in the pool)",
        "annotator\ttries\tqualified on try\treleased\tcontrol answers\tcontrol accuracy",
    ]
    for row in procedure["annotators"]:
        accuracy = "—" if row["control_accuracy"] is None else f"{row['control_accuracy']:.3f}"
        lines.append("\t".join([
            row["annotator"],
            " ".join(f"{score:.3f}" for score in row["tries"]) or "—",
            str(row["qualified_on_try"] or "—"),
            "yes" if row["released"] else "no",
            str(row["control_answers"]),
            accuracy + (" (below the threshold)" if row["below_control_threshold"] else ""),
        ]))
    return "\n".join(lines)
