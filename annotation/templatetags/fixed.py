"""``{% fixed %}…{% endfixed %}``: a part of a page that is the same on every page in a
language, drawn once per language and process.

The item page is drawn again on every save & next; its buttons, dialogs and help texts are
fixed words in the annotator's language, and each ``{% translate %}`` of them cost as much
as drawing a value. Only text and translations of literal words may be inside (no variable,
no other tag, no translation with values): anything else is refused when the template is
read, so what is kept can never differ from what would be drawn.
"""

from django import template
from django.template.base import TextNode, TokenType
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()


def is_fixed(node: template.Node) -> bool:
    """Whether ``node`` draws the same in every context of one language."""
    if isinstance(node, TextNode):
        return True
    if isinstance(node, TranslateNode):
        expression = node.filter_expression
        return (
            node.asvar is None
            and node.message_context is None
            and not expression.filters
            and isinstance(expression.var, template.Variable)
            and expression.var.literal is not None
        )
    if isinstance(node, BlockTranslateNode):
        return (
            not node.extra_context
            and not node.plural
            and node.countervar is None
            and node.asvar is None
            and node.message_context is None
            and all(token.token_type == TokenType.TEXT for token in node.singular)
        )
    return False


class FixedNode(template.Node):
    def __init__(self, nodelist: template.NodeList):
        self.nodelist = nodelist
        self.drawn: dict[str | None, SafeString] = {}  # by language

    def render(self, context: template.Context) -> SafeString:
        language = get_language()
        drawn = self.drawn.get(language)
        if drawn is None:
            drawn = self.drawn[language] = mark_safe(self.nodelist.render(context))
        return drawn


@register.tag
def fixed(parser: template.base.Parser, token: template.base.Token) -> FixedNode:
    nodelist = parser.parse(("endfixed",))
    parser.delete_first_token()
    for node in nodelist:
        if not is_fixed(node):
            raise template.TemplateSyntaxError(
                f"{{% fixed %}} takes only text and translations of literal words, not {node!r}"
            )
    return FixedNode(nodelist)
