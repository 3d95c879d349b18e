"""The attributes of a choice card (a candidate of the wsd and coreference widgets): a radio
the letter, the digit or a click chooses. Built here, not by a template included once per
card: the include took as long as the rest of the widget."""

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

ATTRIBUTES = (
    'role="radio" data-choice="{}" data-codes="Key{} Digit{} Numpad{}" data-label="{}" aria-checked="{}" '
    'tabindex="{}" data-focus-hint="{}"\n'
)


def card_attributes(letter: str, number: int, choice: str | None) -> SafeString:
    """The card of ``letter`` (typed also as ``number``); ``choice`` is the chosen letter (None:
    none yet, then the first card takes the focus)."""
    chosen = choice == letter
    return format_html(
        ATTRIBUTES, letter, letter, number, number, gettext("Choose %(letter)s") % {"letter": letter},
        "true" if chosen else "false", "0" if chosen or (choice is None and number == 1) else "-1",
        gettext("Enter: choose"),
    )
