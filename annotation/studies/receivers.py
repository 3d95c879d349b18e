"""What a panel study does when routing or training (below it) says something happened."""

from django.dispatch import receiver

from annotation.annotate.signals import routed_queue_finished
from annotation.studies.entering import queue_finished, training_finished
from annotation.training.signals import training_round_finished


@receiver(routed_queue_finished, dispatch_uid="studies-queue-finished")
def on_routed_queue_finished(sender, *, annotator, dataset, **kwargs) -> None:
    queue_finished(annotator, dataset)


@receiver(training_round_finished, dispatch_uid="studies-training-finished")
def on_training_round_finished(sender, *, training_round, passed, **kwargs) -> None:
    training_finished(training_round, passed)
