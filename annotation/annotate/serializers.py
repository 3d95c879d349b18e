"""What the REST API shows and accepts. Gold is never among the fields of any serializer."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.core.converters import BIGINT_MAX, INTEGER_MAX
from annotation.models import Annotation, Dataset, Item
from annotation.subtasks.item_fields import annotator_payload


class ProgressSerializer(serializers.Serializer):
    submitted = serializers.IntegerField()
    assigned = serializers.IntegerField()


class DatasetSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField(help_text="Your submitted / assigned items (null if none).")
    qualified = serializers.SerializerMethodField(
        help_text="Whether you may answer its items: false until you pass its training round, on the "
        "training page (null if you have no items of it)."
    )

    class Meta:
        model = Dataset
        fields = ["id", "name", "subtask", "frozen", "progress", "qualified"]

    @extend_schema_field(ProgressSerializer(allow_null=True))
    def get_progress(self, dataset: Dataset) -> dict | None:
        entry = self.context["mine"].get(dataset.pk)
        return None if entry is None else {"submitted": entry.progress.submitted, "assigned": entry.progress.assigned}

    @extend_schema_field(serializers.BooleanField(allow_null=True))
    def get_qualified(self, dataset: Dataset) -> bool | None:
        entry = self.context["mine"].get(dataset.pk)
        return None if entry is None else entry.qualified


class ItemSerializer(serializers.ModelSerializer):
    position = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="The item's number in your order (null for organizers)."
    )
    payload = serializers.SerializerMethodField(
        help_text="The input record: for annotators only the fields of the subtask's input schema, "
        "for organizers the whole line as imported."
    )

    withdrawn = serializers.SerializerMethodField(
        help_text="Withdrawn by an organizer: the item needs no answer and takes none."
    )

    class Meta:
        model = Item
        fields = ["id", "external_id", "position", "payload", "withdrawn"]

    def get_withdrawn(self, item: Item) -> bool:
        return item.withdrawn_at is not None

    @extend_schema_field(serializers.JSONField())
    def get_payload(self, item: Item) -> dict:
        subtask = self.context.get("annotator_of")  # the subtask, when an annotator asks
        return item.payload if subtask is None else annotator_payload(subtask, item.payload)


class AnnotationSerializer(serializers.Serializer):
    """An annotation with its item's dataset and external id: read from the item (loaded with
    the annotation), or after a save from the context's "page" (the ItemPage the save read).
    Fields declared, not derived from the model: deriving them for every reply took a sixth of
    an API save's CPU time."""

    id = serializers.IntegerField(read_only=True)
    item = serializers.IntegerField(source="item_id", read_only=True)
    # The dataset the item was assigned in: a control item's own dataset is the control pool,
    # which the annotator never learns.
    dataset = serializers.IntegerField(source="assigned_dataset_id", read_only=True)
    external_id = serializers.SerializerMethodField()
    answer = serializers.JSONField(read_only=True)
    status = serializers.ChoiceField(choices=Annotation.Status.choices, read_only=True)
    version = serializers.IntegerField(read_only=True)
    active_ms = serializers.IntegerField(read_only=True)
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)
    submitted_at = serializers.DateTimeField(read_only=True, allow_null=True)
    metadata = serializers.JSONField(read_only=True)

    @extend_schema_field(serializers.CharField())
    def get_external_id(self, annotation: Annotation) -> str:
        page = self.context.get("page")
        return page.external_id if page is not None else annotation.item.external_id

    def to_representation(self, annotation: Annotation) -> dict:
        """The fields above, as DRF's field-by-field representation makes them (tests/api holds
        the two equal), built directly: copying the fields for every serializer and going
        through them took most of the time of serializing an API save's reply."""
        return {
            "id": annotation.pk,
            "item": annotation.item_id,
            "dataset": annotation.assigned_dataset_id,
            "external_id": self.get_external_id(annotation),
            "answer": annotation.answer,
            "status": str(annotation.status),
            "version": annotation.version,
            "active_ms": annotation.active_ms,
            "created_at": TIMESTAMP.to_representation(annotation.created_at),
            "updated_at": TIMESTAMP.to_representation(annotation.updated_at),
            "submitted_at": TIMESTAMP.to_representation(annotation.submitted_at),
            "metadata": annotation.metadata,
        }


# Formats AnnotationSerializer's timestamps as its DateTimeFields do (it reads no serializer).
TIMESTAMP = serializers.DateTimeField()


class AnnotationWriteSerializer(serializers.Serializer):
    """One save: the same checks, idempotency and version check as the item page."""

    answer = serializers.JSONField(help_text="The answer fields (no id), as in a submission line.")
    status = serializers.ChoiceField(
        choices=Annotation.Status.choices,
        help_text="draft: only the shape is checked; submitted: the full check of the subtask.",
    )
    version = serializers.IntegerField(
        min_value=0, max_value=INTEGER_MAX, help_text="The version this save is based on (0 when there is no answer yet)."
    )
    active_ms = serializers.IntegerField(
        min_value=0, max_value=INTEGER_MAX, default=0,
        help_text="Active time spent since the last save; credited up to the wall-clock time since it.",
    )
    confirmed = serializers.BooleanField(
        default=False,
        help_text=(
            "Save a submit the rules ask to confirm (refused with needs_confirmation, e.g. numeral words "
            "the dictionary does not know); the annotation's metadata then says what was confirmed."
        ),
    )


class AnnotationCreateSerializer(AnnotationWriteSerializer):
    item = serializers.IntegerField(
        min_value=1, max_value=BIGINT_MAX, help_text="The item's id (from /api/datasets/<id>/items/)."
    )
