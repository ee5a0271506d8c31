"""Dashboard forms for cards: they only validate and build what the services take."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from core.pages import DayField

from ..models import CardKind, Tag

VIEWS = [("current", _("current")), ("history", _("with history")), ("as_of", _("as of a date")),
         ("aging", _("to re-check (unconfirmed for 180+ days)")),
         ("contradictions", _("contradictions"))]
# The models' choices, in the words a page shows (the stored values stay as they are).
KINDS = [(CardKind.STATE, _("State")), (CardKind.EVENT, _("Event")), (CardKind.KNOWLEDGE, _("Knowledge"))]
TAGS = [(Tag.FACT, _("Fact")), (Tag.PREFERENCE, _("Preference")), (Tag.GOAL, _("Goal")),
        (Tag.BOUNDARY, _("Boundary")), (Tag.HYPOTHESIS, _("Hypothesis"))]


class CardFilterForm(forms.Form):
    q = forms.CharField(label=_("Text"), required=False, max_length=200,
                        help_text=_("Words in the value or the description."))
    kind = forms.ChoiceField(label=_("Kind"), choices=[("", _("any")), *KINDS], required=False)
    label = forms.CharField(label=_("Label"), required=False, max_length=64)
    tag = forms.ChoiceField(label=_("Tag"), choices=[("", _("any")), *TAGS], required=False)
    view = forms.ChoiceField(label=_("Show"), choices=VIEWS, required=False, initial="current")
    as_of = DayField(label=_("As of"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    ladder = forms.BooleanField(label=_("Include what this scope sees (above it, personal, common sense)"),
                                required=False)
    by = forms.ChoiceField(label=_("Written by"), required=False, choices=[("", _("anyone"))],
                           help_text=_("A person, or one of their agents."))

    def __init__(self, *args, people=(), agents=(), **kwargs):
        """`people` and `agents`: the writers the viewer may filter on (cards.selectors.writers)."""
        super().__init__(*args, **kwargs)
        groups = [(title, [(w.key, w.name) for w in writers])
                  for title, writers in ((_("People"), people), (_("Agents"), agents)) if writers]
        self.fields["by"].choices = [("", _("anyone")), *groups]

    def is_set(self) -> bool:
        """Whether the person narrowed the list (the phone's filter then opens)."""
        if not self.is_bound:
            return False
        shown = {name: value for name, value in self.data.items() if name in self.fields and value}
        return bool(self.errors) or any(name != "view" or value != "current" for name, value in shown.items())

    def clean(self):
        data = super().clean()
        if data.get("view") == "as_of" and not data.get("as_of"):
            self.add_error("as_of", _("Pick the date to look at."))
        return data


class CardAddForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=KINDS, initial=CardKind.STATE)
    subject = forms.CharField(label=_("Subject"), max_length=200, initial="me",
                              help_text=_('"me", or a name in this scope.'))
    label = forms.CharField(label=_("Label"), max_length=64,
                            help_text=_("A registered label, e.g. address, skill, wedding."))
    value = forms.CharField(label=_("Value"), max_length=2000, required=False)
    object = forms.CharField(label=_("Object"), max_length=200, required=False,
                             help_text=_("Another entity, for relations."))
    text = forms.CharField(label=_("Description"), max_length=10000, required=False,
                           widget=forms.Textarea(attrs={"rows": 2}))
    tag = forms.ChoiceField(label=_("Tag"), choices=[c for c in TAGS if c[0] != Tag.HYPOTHESIS], initial=Tag.FACT)
    when = forms.CharField(label=_("When"), max_length=200, required=False,
                           help_text=_('e.g. "yesterday", "2026-05-02", "last Friday".'))
    quote = forms.CharField(label=_("Source quote"), max_length=10000, required=False,
                            widget=forms.Textarea(attrs={"rows": 2}))
    consent = forms.BooleanField(required=False, label=_("The person explicitly agreed to store this"))

    def __init__(self, *args, **kwargs):
        # Its own ids: the filter form on the same page has kind and label too.
        kwargs.setdefault("auto_id", "add_%s")
        super().__init__(*args, **kwargs)

    def draft_data(self) -> dict:
        """The same fields the API's remember request carries, for `draft_from_request`."""
        data = self.cleaned_data
        return {"kind": data["kind"], "label": data["label"], "subject": data["subject"], "value": data["value"],
                "object": data["object"] or None, "text": data["text"], "tag": data["tag"], "when": data["when"],
                "consent": data["consent"], "source": {"session": "", "message": "", "quote": data["quote"]},
                "tz": None, "reference_time": None, "effective_at": None, "confidence": None, "impact": 2,
                "perspectives": {}}


class DescribeForm(forms.Form):
    text = forms.CharField(label=_("Description"), max_length=10000, widget=forms.Textarea(attrs={"rows": 3}))
    reason = forms.CharField(label=_("Reason"), max_length=300, required=False)
    consent = forms.BooleanField(required=False, label=_("The person explicitly agreed to store this"))


class PerspectiveForm(forms.Form):
    """How the signed-in member phrases a card of a shared scope ("my mum" for
    another's "Mia"). Their own only: nobody else reads or sets it."""

    text = forms.CharField(label=_("Your phrasing"), max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    consent = forms.BooleanField(required=False, label=_("The person explicitly agreed to store this"))

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "persp_%s")
        super().__init__(*args, **kwargs)


class AliasForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Also called"))


class AskForm(forms.Form):
    """One of the ask page's three questions; `scope` is a select of the person's
    scopes, but any id is accepted here so that one they may not view is a 404.
    Left empty ("All my memory", first and chosen unless another is), the read
    covers every scope the person reads (API.md "Reads without a scope"): a
    first question is asked where the person's memory is, never in an empty scope."""

    scope = forms.IntegerField(label=_("Scope"), widget=forms.Select, required=False)

    def __init__(self, *args, scopes=(), **kwargs):
        kwargs.setdefault("auto_id", f"{self.prefix_id}_%s")
        super().__init__(*args, **kwargs)
        self.fields["scope"].widget.choices = [("", _("All my memory")), *((s.pk, s.name) for s in scopes)]


class QuestionForm(AskForm):
    prefix_id = "question"
    question = forms.CharField(max_length=500, label=_("Your question"),
                               help_text=_('In plain words: "Where does Kai live?", "How many trips did we take this '
                                           'year?", 上週末我們做了什麼？'))


class RecallForm(AskForm):
    prefix_id = "recall"
    query = forms.CharField(label=_("Query"), max_length=2000)
    k = forms.IntegerField(label=_("K"), min_value=1, max_value=100, initial=10)
    when = forms.CharField(label=_("When"), max_length=200, required=False,
                           help_text=_('Only events then: "last week", "May 2026".'))


class AnswerForm(AskForm):
    prefix_id = "answer"
    subject = forms.CharField(label=_("Subject"), max_length=200, initial="me",
                              help_text=_('"me", or a name or alias.'))
    label = forms.CharField(label=_("Label"), max_length=64)
    as_of = DayField(label=_("As of"), required=False, widget=forms.DateInput(attrs={"type": "date"}))


class CountForm(AskForm):
    prefix_id = "count"
    label = forms.CharField(label=_("Label"), max_length=64)
    subject = forms.CharField(label=_("Subject"), max_length=200, required=False)
    when = forms.CharField(label=_("When"), max_length=200, required=False,
                           help_text=_('"this year", "last month"…'))
    start = DayField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = DayField(label=_("To (inclusive)"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self):
        data = super().clean()
        if data.get("when") and (data.get("start") or data.get("end")):
            self.add_error("when", _("Give when, or from/to, not both."))
        elif data.get("start") and data.get("end") and data["start"] > data["end"]:
            self.add_error("end", _("Must not be before from."))
        return data


class ConfirmForm(forms.Form):
    quote = forms.CharField(max_length=10000, required=False, label=_("The person's words"),
                            help_text=_("What they said to confirm it; becomes the card's source."))
    tag = forms.ChoiceField(choices=[("", _("as the label says")), (Tag.FACT, _("fact")),
                                     (Tag.PREFERENCE, _("preference"))],
                            required=False, label=_("Keep as"))
    consent = forms.BooleanField(required=False, label=_("The person explicitly agreed to store this"))


class AccountEraseForm(forms.Form):
    password = forms.CharField(label=_("Your password"), strip=False, max_length=4096,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
                               help_text=_("Erasing cannot be undone: say it with your password."))
