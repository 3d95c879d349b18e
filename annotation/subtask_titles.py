"""The subtasks' titles as annotators read them (scoring's titles, translatable)."""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from scoring.subtasks import SUBTASK_KEYS

SUBTASK_TITLES: dict[str, Promise] = {
    "morphosyntax": _("Morphosyntactic error detection and correction"),
    "numerals": _("Contextual numeral inflection"),
    "wsd": _("Same sense in context"),
    "coreference": _("Coreference antecedent selection"),
    "discourse": _("Universal discourse parsing"),
    "commas": _("Comma placement"),
}
assert tuple(SUBTASK_TITLES) == SUBTASK_KEYS
