"""{% fixed %}: parts of pages drawn once per language and process (annotation/templatetags/fixed.py)."""

import pytest
from django.template import TemplateSyntaxError, engines
from django.utils import translation

FIXED = "{% load i18n fixed %}"


def draw(source: str, language: str, context: dict | None = None) -> str:
    with translation.override(language):
        return engines["django"].from_string(FIXED + source).render(context or {})


def test_a_fixed_part_is_drawn_in_the_language_of_each_page():
    template = engines["django"].from_string(
        FIXED + '{% fixed %}<b>{% translate "Keys" %}</b> {% blocktranslate trimmed %}\n Skip\n{% endblocktranslate %}{% endfixed %}'
    )
    drawn = []
    for language in ("pl", "en", "pl"):
        with translation.override(language):
            drawn.append(template.render({}))
    assert drawn == ["<b>Klawisze</b> Pomiń", "<b>Keys</b> Skip", "<b>Klawisze</b> Pomiń"]


@pytest.mark.parametrize("inside", [
    "{{ item_url }}",
    "{% translate message %}",
    '{% translate "Keys"|upper %}',
    '{% translate "Keys" as keys %}',
    "{% if frozen %}frozen{% endif %}",
    "{% blocktranslate %}{{ number }}{% endblocktranslate %}",
    "{% blocktranslate with number=page.position %}Item {{ number }}{% endblocktranslate %}",
    "{% csrf_token %}",
])
def test_what_could_differ_between_pages_is_refused_when_the_template_is_read(inside):
    with pytest.raises(TemplateSyntaxError, match="fixed"):
        engines["django"].from_string(FIXED + "{% fixed %}" + inside + "{% endfixed %}")
