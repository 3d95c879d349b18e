import json

from annotation.datasets.routing import routing_description, set_routing
from annotation.management.commands._common import DataCommand, dataset_named


class Command(DataCommand):
    help = (
        "Choose fixed queues or routing for a dataset and set routing's settings: --on --k K (answers per "
        "item) or --off, before the first answer; --reservation-minutes M, --pilot m (before the first "
        "answer), --open-pilot / --close-pilot, --quota N / --no-quota at any time. Without options it "
        "prints the settings and the sample's state (--json: as the API's GET)."
    )
    refused_outcome = "routing is unchanged"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--on", dest="routing", action="store_const", const=True, help="route items")
        mode.add_argument("--off", dest="routing", action="store_const", const=False, help="fixed queues")
        parser.add_argument("--k", type=int, dest="answers_per_item", metavar="K", help="answers per item")
        parser.add_argument("--reservation-minutes", type=int, metavar="M", help="how long an opened item is reserved")
        parser.add_argument("--pilot", type=int, dest="pilot_size", metavar="m", help="the first m sample items to everyone first")
        pilot = parser.add_mutually_exclusive_group()
        pilot.add_argument("--open-pilot", dest="pilot_open", action="store_const", const=True, help="serve the rest after the pilot")
        pilot.add_argument("--close-pilot", dest="pilot_open", action="store_const", const=False, help="serve the pilot only")
        quota = parser.add_mutually_exclusive_group()
        quota.add_argument("--quota", type=int, metavar="N", help="items per annotator at most")
        quota.add_argument("--no-quota", dest="quota", action="store_const", const=None, help="no limit per annotator")
        parser.set_defaults(quota=False)
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the settings and state as JSON")

    def run(self, *, dataset, routing, answers_per_item, reservation_minutes, pilot_size, pilot_open, quota, as_json,
            **options):
        if any(value is not None for value in (routing, answers_per_item, reservation_minutes, pilot_size, pilot_open)) \
                or quota is not False:
            dataset = set_routing(dataset, routing=routing, answers_per_item=answers_per_item,
                                  reservation_minutes=reservation_minutes, pilot_size=pilot_size, pilot_open=pilot_open,
                                  quota=quota)
        described = routing_description(dataset)
        if as_json:
            self.stdout.write(json.dumps(described, ensure_ascii=False, indent=2))
            return
        if not dataset.routing:
            self.stdout.write(f"{dataset.name}: fixed queues")
            return
        self.stdout.write(
            f"{dataset.name}: routing, k = {dataset.answers_per_item}, reservation {dataset.reservation_minutes} min, "
            f"pilot {dataset.pilot_size} ({'open' if dataset.pilot_open else 'the rest closed'}), "
            f"quota {dataset.quota or 'none'}"
        )
        state = described["state"]
        for answers, count in state["items_by_answers"].items():
            self.stdout.write(f"items with {answers} answers: {count}")
        self.stdout.write(f"reserved items: {state['reserved_items']}; answers after an expired reservation: "
                          f"{state['late_answers']} (items: {state['late_items']})")
        for annotator in state["annotators"]:
            self.stdout.write(f"{annotator['username']}: {annotator['served']} served, {annotator['submitted']} submitted"
                              f" of {annotator['quota'] or 'no quota'}")

