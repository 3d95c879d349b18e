"""What training tells the concerns above it, which it does not import."""

from django.dispatch import Signal

# Sent (in the answer's transaction) when an annotator's training round is finished by its last
# answer. Arguments: ``training_round`` (a TrainingRound, its score set) and ``passed`` (bool).
training_round_finished = Signal()
