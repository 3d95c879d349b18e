"""What every API endpoint answers when a service refuses."""

from rest_framework import serializers


class RefusalSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = serializers.ListField(child=serializers.CharField(), help_text='One a problem: "field: text".')
    codes = serializers.ListField(
        child=serializers.CharField(), help_text="Each problem's code, in the same order (empty for the app's own)."
    )
    needs_confirmation = serializers.BooleanField(
        required=False, help_text="true: the same save with confirmed=true is accepted."
    )
    current_version = serializers.IntegerField(required=False)
