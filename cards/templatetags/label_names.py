"""{{ card.label|label_name }}: a label's key as the page's language names it (cards/words/label_names.py)."""

from django import template

from cards.words.label_names import label_name as _label_name

register = template.Library()


@register.filter
def label_name(key) -> str:
    return _label_name(str(key)) if key else ""
