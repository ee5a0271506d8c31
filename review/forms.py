"""Dashboard forms for reviewing: they only validate; the review services write."""

from __future__ import annotations

from django import forms

EDITED = ("subject", "label", "value", "text")


class ApproveForm(forms.Form):
    """A candidate's editable words, prefilled: what differs is sent as edits."""
    subject = forms.CharField(max_length=200)
    label = forms.CharField(max_length=64)
    value = forms.CharField(max_length=2000, required=False)
    text = forms.CharField(label="Description", max_length=10000, required=False,
                           widget=forms.Textarea(attrs={"rows": 2}))
    consent = forms.BooleanField(required=False, label="The person explicitly agreed to store this")
    reason = forms.CharField(max_length=300, required=False)

    def __init__(self, *args, candidate, **kwargs):
        kwargs.setdefault("auto_id", f"c{candidate.pk}_%s")
        kwargs.setdefault("initial", {name: getattr(candidate, name) for name in EDITED})
        super().__init__(*args, **kwargs)
        self.candidate = candidate
        # Offered where the candidate waits for consent, and again on a refused form:
        # an edit can make a pending candidate sensitive (the write screen says so).
        if candidate.status != "needs_consent" and not self.is_bound:
            del self.fields["consent"]

    def edits(self) -> dict:
        return {name: self.cleaned_data[name] for name in EDITED
                if self.cleaned_data[name] != (getattr(self.candidate, name) or "")}


class RejectForm(forms.Form):
    reason = forms.CharField(max_length=300, help_text="Why it should not be remembered.")


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=300, required=False)


class PickForm(forms.Form):
    card = forms.IntegerField(min_value=1)
    reason = forms.CharField(max_length=300, required=False)
