"""What the annotator's side tells the concerns above it, which it does not import."""

from django.dispatch import Signal

# Sent (in the choice's transaction) when a routed dataset has nothing more for an annotator:
# their quota is full, their deadline passed, or no item remains for them. Arguments:
# ``annotator`` (a User) and ``dataset`` (a Dataset).
routed_queue_finished = Signal()
