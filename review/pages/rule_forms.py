"""The rule form (issue 20: rules as a form, not JSON): a name, a description,
1–5 condition rows and a conclusion row, each row who-or-what · label ·
value-or-what, the label picked from the registry. The form only gathers the
patterns: whether the rule can run is `rule_check`'s to say (one home), and
saving is `rule_propose`'s."""

from __future__ import annotations

from django import forms
from django.forms import formset_factory
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _, gettext_lazy, pgettext_lazy

from cards.words.label_names import label_name, label_other_names
from cards.labels import registry
from cards.models import CardKind, Rule
from cards.answers.rule_preview import label_phrase
from cards.rule_shape import MAX_PREMISES, rule_check

# Words that stand for "anyone / anything" as well as a term starting with "?":
# nobody means a person called "someone".
VARIABLE_WORDS = {"someone", "somebody", "something", "anyone", "anybody", "anything", "somewhere"}
# Offered in every term box (a <datalist>): the usual variables, as people say them.
SUGGESTED_TERMS = [("someone", gettext_lazy("anyone: a person")), ("something", gettext_lazy("anything: a thing")),
                   ("?kind", gettext_lazy("any kind")), ("?value", gettext_lazy("any value"))]
FIRST_ROWS = 2
# A posted formset may name more rows than the form offers: up to this many reach
# rule_check, which says how many a rule may have; beyond it the formset refuses itself.
MOST_ROWS_READ = 20
TERM_HELP = gettext_lazy('Someone, something, or a word starting with "?" stands for any; other words are a name '
                         'or a value.')


def _described(label) -> str:
    names = label_other_names(label)
    return label.description if names is None else names


def label_choices(*, conclusion: bool) -> list:
    """The registry's labels, grouped by kind, each with its human name. Events
    are left out: derivation reads what holds (states) and what is known, never
    events. A conclusion never names a sensitive label (health, religion …):
    they are stored only with the person's consent, and a rule would infer them
    without it."""
    labels = {label.key: label for label in registry().values()}
    groups = []
    for kind, title in ((CardKind.STATE, _("What holds now")), (CardKind.KNOWLEDGE, _("What is known"))):
        options = [(key, " · ".join(filter(None, (label_name(key), _described(label)))))
                   for key, label in sorted(labels.items())
                   if label.kind == kind and not (conclusion and label.sensitive)]
        if options:
            groups.append((title, options))
    return [("", _("pick a label")), *groups]


def term_clean(text: str) -> str:
    """A term as rule_check and derive.py read it: "someone" becomes the variable "?someone"."""
    text = " ".join(text.split())
    return f"?{text.lower()}" if text.lower() in VARIABLE_WORDS else text


class RuleNameForm(forms.Form):
    name = forms.CharField(label=pgettext_lazy("the name of a rule", "Name"), max_length=100,
                           help_text=gettext_lazy("A short name reviewers will see, e.g. “a car someone has”."))
    description = forms.CharField(label=gettext_lazy("Description"), max_length=2000, required=False,
                                  widget=forms.Textarea(attrs={"rows": 2}),
                                  help_text=gettext_lazy("Why it holds, in a sentence: it is shown beside every "
                                                         "answer it gives."))


class PatternForm(forms.Form):
    """One row: who or what, the label, and the value or what."""

    subject = forms.CharField(label=gettext_lazy("Who or what"), max_length=200, required=False)
    label = forms.CharField(label=gettext_lazy("Label"), max_length=64, required=False)
    object = forms.CharField(label=gettext_lazy("Value or what"), max_length=200, required=False)

    def __init__(self, *args, conclusion: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        # A CharField shown as a <select>: a label not offered still reaches rule_check, which names it.
        self.fields["label"].widget = forms.Select(choices=label_choices(conclusion=conclusion))
        for name in ("subject", "object"):
            self.fields[name].widget.attrs.update({"list": "rule-terms", "autocomplete": "off",
                                                   "aria-describedby": "rule-terms-help"})
        self.fields["subject"].widget.attrs["placeholder"] = "someone"
        self.fields["object"].widget.attrs["placeholder"] = "?thing"
        if conclusion:
            for field in self.fields.values():
                field.required = True

    def clean(self):
        data = super().clean()
        filled = [bool(data.get(name, "").strip()) for name in ("subject", "label", "object")]
        if any(filled) and not all(filled):
            raise forms.ValidationError(_("Fill in all three — who or what, the label, the value or what — "
                                          "or leave the row empty."))
        return data

    def pattern(self) -> list[str] | None:
        """[subject, label, object], or None for a row left empty."""
        data = self.cleaned_data
        if not any(data.get(name, "").strip() for name in ("subject", "label", "object")):
            return None
        return [term_clean(data["subject"]), data["label"].strip(), term_clean(data["object"])]


PremiseFormSet = formset_factory(PatternForm, extra=0, max_num=MAX_PREMISES, validate_max=False,
                                 absolute_max=MOST_ROWS_READ)


class RuleWrite:
    """The whole form: name and description, the condition rows, the conclusion
    row; valid when each part is and rule_check finds nothing wrong."""

    def __init__(self, data=None, *, rows: list[dict] | None = None) -> None:
        """`data`: a posted form, to check. With `rows`: `data` shown again as typed,
        unchecked, with these condition rows (one was added)."""
        if rows is None:
            self.name = RuleNameForm(data)
            self.premises = (PremiseFormSet(data, prefix="premise") if data is not None
                             else PremiseFormSet(prefix="premise", initial=[{}] * FIRST_ROWS))
            self.conclusion = PatternForm(data, prefix="conclusion", conclusion=True)
        else:
            self.name = RuleNameForm(initial={name: data.get(name, "") for name in ("name", "description")})
            self.premises = PremiseFormSet(prefix="premise", initial=rows)
            self.conclusion = PatternForm(prefix="conclusion", conclusion=True, initial=_row(data, "conclusion"))
        self.problems: list[str] = []

    @classmethod
    def with_row_added(cls, data) -> RuleWrite:
        """The form as posted, one condition row longer (the no-script way to add a row)."""
        count = _count(data)
        rows = [_row(data, f"premise-{i}") for i in range(count)]
        return cls(data, rows=rows + [{}] if count < MAX_PREMISES else rows)

    @property
    def can_add_row(self) -> bool:
        return self.premises.total_form_count() < MAX_PREMISES

    def is_valid(self) -> bool:
        if not all([self.name.is_valid(), self.premises.is_valid(), self.conclusion.is_valid()]):
            return False
        self.problems = rule_check(self.premise_patterns(), self.conclusion.pattern())
        return not self.problems

    def premise_patterns(self) -> list[list[str]]:
        return [p for p in (row.pattern() for row in self.premises) if p is not None]

    def unsaved_rule(self) -> Rule:
        """The rule as written, not saved: what the preview runs."""
        return Rule(name=self.name.cleaned_data["name"], description=self.name.cleaned_data["description"],
                    premises=self.premise_patterns(), conclusion=self.conclusion.pattern())

    def messages(self) -> list[str]:
        """Everything wrong, as sentences (a preview fragment has no fields to put them beside)."""
        found = list(self.problems)
        for where, form in ((None, self.name), *((i, row) for i, row in enumerate(self.premises, 1)),
                            (0, self.conclusion)):
            for field, errors in form.errors.items():
                found += [_problem_at(where, None if field == "__all__" else form[field].label, error)
                          for error in errors]
        found += list(self.premises.non_form_errors())
        return found


def _problem_at(row: int | None, field: str | None, error: str) -> str:
    """One problem of the form as a sentence: its row (a condition's number, 0 the conclusion, None the name part),
    its field's label, what is wrong."""
    parts = {"field": field, "error": error, "n": row}
    if row is None:
        return _("%(field)s: %(error)s") % parts if field else str(error)
    if row == 0:
        return _("Then: %(field)s: %(error)s") % parts if field else _("Then: %(error)s") % parts
    return _("Condition %(n)d: %(field)s: %(error)s") % parts if field else _("Condition %(n)d: %(error)s") % parts


def _count(data) -> int:
    try:
        return max(0, min(int(data.get("premise-TOTAL_FORMS", 0)), MAX_PREMISES))
    except (TypeError, ValueError):
        return 0


def _row(data, prefix: str) -> dict:
    return {name: data.get(f"{prefix}-{name}", "") for name in ("subject", "label", "object")}


def _term_html(term: str) -> SafeString:
    if term.startswith("?") and len(term) > 1:
        word = term[1:]
        return format_html("<var>{}</var>", word.upper() if len(word) == 1 else word)
    return format_html("<q>{}</q>", term)


def pattern_html(pattern: list[str]) -> SafeString:
    subject, label, obj = pattern
    return format_html(label_phrase(label), s=_term_html(subject), o=_term_html(obj))


def rule_reading(premises: list, conclusion: list) -> SafeString:
    """The rule in words: "If <var>someone</var> has <var>thing</var>, and … then …"."""
    conditions = format_html_join(_(", and "), "{}", ((pattern_html(p),) for p in premises))
    return format_html(_("If {conditions}, then {conclusion}."), conditions=conditions,
                       conclusion=pattern_html(conclusion))
