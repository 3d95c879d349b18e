from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self) -> None:
        # Panel studies listen to routing and training, which send signals rather than import them.
        from annotation.studies import receivers  # noqa: F401
