"""Dashboard forms for reviewing: they only validate; the review services write."""

from __future__ import annotations

from django import forms
from django.urls import reverse
from django.utils.translation import gettext as _, gettext_lazy

from cards.words.label_names import label_other_names
from cards.labels import _name_key as registry_name, label_suggestions, registry
from cards.text import normalize

EDITED = ("subject", "label", "value", "text", "when")
# A queue lists at most this many candidates (review.selectors.review_queue): a bulk decision never takes more.
BULK_MAX = 500
CHOICES_SHOWN = 8
REASON_NEEDED = gettext_lazy("Say why it should not be remembered: rejecting needs a reason.")
CHOOSE_DECISION = gettext_lazy("Choose to approve or to reject them.")


class ApproveForm(forms.Form):
    """A candidate's editable words, prefilled: what differs is sent as edits. Its
    reason box is the one the candidate's decisions share (`RejectForm` renders it)."""
    subject = forms.CharField(label=gettext_lazy("Subject"), max_length=200)
    label = forms.CharField(label=gettext_lazy("Label"), max_length=64,
                            help_text=gettext_lazy("Type a word that names it (lives, job, trips…) and pick "
                                                   "its label from the choices; clear the box to see them all."))
    value = forms.CharField(label=gettext_lazy("Value"), max_length=2000, required=False)
    text = forms.CharField(label=gettext_lazy("Description"), max_length=10000, required=False,
                           widget=forms.Textarea(attrs={"rows": 2}))
    when = forms.CharField(label=gettext_lazy("When"), max_length=200, required=False,
                           help_text=gettext_lazy("As it was said (yesterday, last March, 2026-05-07), read in the "
                                                  "day of the person who said it. Empty: no time."))
    consent = forms.BooleanField(required=False, label=gettext_lazy("The person explicitly agreed to store this "
                                                                    "(needed to approve it)"))
    reason = forms.CharField(label=gettext_lazy("Reason"), max_length=300, required=False)

    def __init__(self, *args, candidate, **kwargs):
        kwargs.setdefault("auto_id", f"c{candidate.pk}_%s")
        kwargs.setdefault("initial", {name: getattr(candidate, name) for name in EDITED})
        super().__init__(*args, **kwargs)
        self.candidate = candidate
        # The picker: the registry's labels of the candidate's kind that the words typed name, key or
        # synonym, offered under the box as the reviewer types (htmx; review/_label_choices.html).
        choices = f"c{candidate.pk}_label_choices"
        self.fields["label"].widget.attrs.update({
            "hx-get": f"{reverse('label-choices')}?kind={candidate.kind}&for=c{candidate.pk}_label",
            "hx-trigger": "input changed delay:200ms", "hx-target": f"#{choices}", "hx-sync": "this:replace",
            "autocomplete": "off", "spellcheck": "false",
            "aria-describedby": f"c{candidate.pk}_label_help {choices}"})
        # The resolved date, live as the reviewer types (htmx; the server reads it again on approval).
        resolved = f"c{candidate.pk}_when_resolved"
        self.fields["when"].widget.attrs.update({
            "hx-get": reverse("candidate-when", args=[candidate.pk]), "hx-trigger": "input changed delay:300ms",
            "hx-target": f"#{resolved}", "hx-sync": "this:replace", "autocomplete": "off",
            "aria-describedby": f"c{candidate.pk}_when_help {resolved}"})
        # Offered where the candidate waits for consent, and again on a refused form:
        # an edit can make a pending candidate sensitive (the write screen says so).
        if candidate.status != "needs_consent" and not self.is_bound:
            del self.fields["consent"]

    def edits(self) -> dict:
        return {name: self.cleaned_data[name] for name in EDITED
                if self.cleaned_data[name] != (getattr(self.candidate, name) or "")}


class RejectForm(forms.Form):
    """The one reason box of a candidate, shared by its two decisions: required to reject, kept with an approval."""
    reason = forms.CharField(max_length=300, label=gettext_lazy("Reason (needed to reject)"),
                             help_text=gettext_lazy("Why it should not be remembered. Optional when approving."),
                             error_messages={"required": REASON_NEEDED})

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _described_by_help(self, "reason")


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=300, required=False)


class PickForm(forms.Form):
    card = forms.IntegerField(min_value=1)
    reason = forms.CharField(max_length=300, required=False)


class CandidateIdsField(forms.Field):
    """The ticked candidates' ids, in the order sent, each once."""
    widget = forms.MultipleHiddenInput
    default_error_messages = {"required": gettext_lazy("Tick at least one proposal first."),
                              "invalid": gettext_lazy("The ticked proposals could not be read; tick them again."),
                              "too_many": gettext_lazy("Decide at most %(most)d proposals at once.")}

    def to_python(self, value) -> list[int]:
        if not value:
            return []
        try:
            ids = [int(v) for v in value]
        except (TypeError, ValueError):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None
        if any(not 0 < pk < 2**63 for pk in ids):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        ids = list(dict.fromkeys(ids))
        if len(ids) > BULK_MAX:
            raise forms.ValidationError(self.error_messages["too_many"], code="too_many", params={"most": BULK_MAX})
        return ids


class BulkForm(forms.Form):
    """Several candidates of one scope, approved as proposed or rejected with one reason."""
    candidates = CandidateIdsField()
    decision = forms.ChoiceField(choices=[("approve", gettext_lazy("approve")), ("reject", gettext_lazy("reject"))],
                                 error_messages={"required": CHOOSE_DECISION, "invalid_choice": CHOOSE_DECISION})
    reason = forms.CharField(max_length=300, required=False, label=gettext_lazy("Reason (needed to reject)"),
                             help_text=gettext_lazy("One reason for all the ticked proposals. "
                                                    "Optional when approving."),
                             widget=forms.TextInput(attrs={"required": True}))

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "bulk_%s")
        super().__init__(*args, **kwargs)
        _described_by_help(self, "reason")

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("decision") == "reject" and not cleaned.get("reason"):
            self.add_error("reason", _("Say why they should not be remembered: rejecting needs a reason."))
        return cleaned


def _described_by_help(form: forms.Form, name: str) -> None:
    # The help _field.html renders is `<id>_help`, not the `<id>_helptext` Django points at by default.
    form.fields[name].widget.attrs["aria-describedby"] = f"{form[name].auto_id}_help"


def label_choices(words: str, *, kind: str | None = None) -> list[tuple[str, str]]:
    """The registered labels (of `kind`) the words name, best first, each with what
    it means and the other words that name it (synonyms, spoken ones included, in
    English and Chinese): its key or a synonym equal to them, then starting with
    them, then holding them, then a description holding them; when nothing does,
    the labels close to them (label_suggestions). No words: every label of the kind."""
    labels = {label.key: label for label in registry().values() if kind is None or label.kind == kind}
    wanted = registry_name(words).strip()  # read as the registry reads a name: home_address is "home address"
    ranked = []
    for key, label in labels.items():
        names = [registry_name(key), *(registry_name(synonym) for synonym in label.synonyms)]
        rank = (0 if wanted in names else 1 if any(n.startswith(wanted) for n in names)
                else 2 if any(wanted in n for n in names) else 3 if wanted in normalize(label.description) else None)
        if rank is not None:
            ranked.append((rank, key))
    keys = [key for _rank, key in sorted(ranked)]
    if not keys and wanted:
        keys = [key for key in label_suggestions(words) if key in labels]
    shown = keys if not wanted else keys[:CHOICES_SHOWN]
    return [(key, _meaning(labels[key])) for key in shown]


def _meaning(label) -> str:
    if (names := label_other_names(label)) is not None:  # a Chinese page: the description is English
        return names
    others = ", ".join(label.synonyms)
    if not others:
        return label.description
    return _("%(meaning)s · also: %(others)s") % {"meaning": label.description, "others": others}
