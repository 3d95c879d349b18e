"""What the REST API shows of a dataset's agreement, of its export's sources and of a report
still being computed."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class AnswerCountSerializer(serializers.Serializer):
    answers = serializers.IntegerField(help_text="A number of submitted answers.")
    items = serializers.IntegerField(help_text="How many items have that many.")


class PairAgreementSerializer(serializers.Serializer):
    other = serializers.CharField(help_text="The other annotator.")
    common = serializers.IntegerField(help_text="Items both answered validly.")
    value = serializers.FloatField(
        allow_null=True,
        help_text="Observed agreement on the common items (discourse: LAS with the other as reference).",
    )


class AnnotatorAgreementSerializer(serializers.Serializer):
    username = serializers.CharField()
    pairs = PairAgreementSerializer(many=True)
    weighted_mean = serializers.FloatField(allow_null=True, help_text="Mean of the pairs weighted by common items.")
    gold_score = serializers.FloatField(allow_null=True, help_text="The subtask's main score on their answered items with gold.")
    gold_items = serializers.IntegerField()
    median_active_seconds = serializers.FloatField(allow_null=True)


class AgreementSerializer(serializers.Serializer):
    dataset = serializers.IntegerField(source="dataset.pk")
    subtask = serializers.CharField(source="dataset.subtask")
    figures = serializers.JSONField(
        help_text="Exactly what `python -m scoring agreement --json` prints for the annotators' exports: "
        "n_items, n_answers, the subtask's figures (null when undefined) and reasons (key -> why null)."
    )
    answer_counts = serializers.SerializerMethodField()
    annotators = AnnotatorAgreementSerializer(many=True)
    disagreements = serializers.SerializerMethodField(help_text="Items where two submitted answers differ.")
    withdrawn = serializers.SerializerMethodField(help_text="The ids of withdrawn items: left out of every figure.")

    @extend_schema_field(AnswerCountSerializer(many=True))
    def get_answer_counts(self, report) -> list[dict]:
        return [{"answers": answers, "items": items} for answers, items in report.answer_counts]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_withdrawn(self, report) -> list[str]:
        return [item.external_id for item in report.withdrawn]

    def get_disagreements(self, report) -> int:
        return len(report.disagreements)


class ExportSourceSerializer(serializers.Serializer):
    """One source of the export page's list (annotation.results.exports.SourceSummary)."""

    source = serializers.CharField(help_text="annotator:NAME, majority, dawid-skene, adjudicated or all: the export's source parameter.")
    n_records = serializers.IntegerField()
    n_left_out = serializers.IntegerField()
    fill = serializers.SerializerMethodField(help_text='"adjudicated": the majority filled from the adjudications.')
    complete = serializers.BooleanField(help_text="false: items left out for another reason than withdrawal.")
    formats = serializers.ListField(child=serializers.CharField())
    problems = serializers.SerializerMethodField(help_text="Why the scorer refuses the file, one line a problem.")

    def get_fill(self, summary) -> str | None:
        return summary.fill or None

    def get_problems(self, summary) -> list[str]:
        return [str(problem) for problem in summary.problems]


class ExportSourcesSerializer(serializers.Serializer):
    sources = ExportSourceSerializer(many=True)


class ComputingSerializer(serializers.Serializer):
    """A report asked for before its first computation finished (202, with Retry-After)."""

    detail = serializers.CharField()
    computing = serializers.BooleanField()
