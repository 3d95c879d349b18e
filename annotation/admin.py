"""The admin, for organizers only: each concern registers its own models (its admin.py);
Django's autodiscovery imports this module, which imports them all."""

from annotation.accounts import admin as accounts_admin  # noqa: F401
from annotation.adjudicate import admin as adjudicate_admin  # noqa: F401
from annotation.annotate import admin as annotate_admin  # noqa: F401
from annotation.datasets import admin as datasets_admin  # noqa: F401
from annotation.results import admin as results_admin  # noqa: F401
from annotation.studies import admin as studies_admin  # noqa: F401
from annotation.training import admin as training_admin  # noqa: F401
