"""One form per curation action; what the editor must say, checked."""

from __future__ import annotations

import time

from django import forms
from django.core.signing import BadSignature, Signer
from django.core.validators import URLValidator

from .models import validate_orcid

REASON_HELP = "Say why, for the history and for whoever reviews this later."


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=2000, help_text=REASON_HELP
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("Say why: a change without a reason cannot be reviewed.")
        return reason


class MergeForm(ReasonForm):
    override_distinct = forms.BooleanField(
        required=False,
        label="Merge anyway, although they are recorded as different people",
    )


class AnnotateForm(ReasonForm):
    label = forms.CharField(
        max_length=200, required=False, help_text="Tells this person apart: a field, a lab."
    )
    affiliation = forms.CharField(max_length=300, required=False)
    orcid = forms.CharField(
        max_length=19,
        required=False,
        label="ORCID iD",
        validators=[validate_orcid],
        help_text="Like 0000-0002-1825-0097; the check digit is checked.",
    )
    homepage = forms.URLField(
        max_length=500,
        required=False,
        assume_scheme="https",
        validators=[URLValidator(schemes=["http", "https"])],
    )

    field_order = ["label", "affiliation", "orcid", "homepage", "reason"]


class NoteForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), max_length=2000, required=False
    )


class RequiredNoteForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=2000,
        help_text="The editor reads this on their proposals page.",
    )


class LockForm(forms.Form):
    reason = forms.CharField(
        max_length=300, help_text="Shown on the name's page while it is locked."
    )


class ReportForm(forms.Form):
    """Anyone may report; spam is held off without third parties: a field people do
    not see (bots fill it) and a minimum time between showing and sending the form."""

    MIN_SECONDS = 3
    MAX_SECONDS = 24 * 3600

    text = forms.CharField(
        label="What is wrong?",
        widget=forms.Textarea(attrs={"rows": 5}),
        max_length=5000,
        help_text="For example: two of these papers are by another person, who works on NER.",
    )
    contact = forms.CharField(
        label="How to reach you (optional)",
        max_length=200,
        required=False,
        help_text="Only moderators see it.",
    )
    website = forms.CharField(required=False, label="Leave this empty")
    started = forms.CharField(widget=forms.HiddenInput)

    @staticmethod
    def stamp() -> str:
        """When the form was shown, signed so that it cannot be forged."""
        return Signer(salt="arrow.report").sign(f"{time.time():.3f}")

    def clean(self) -> dict:
        data = super().clean()
        if data.get("website"):
            raise forms.ValidationError("This report looks automated and was not sent.")
        try:
            shown = float(Signer(salt="arrow.report").unsign(data.get("started", "")))
        except (BadSignature, ValueError):
            raise forms.ValidationError("This form is broken: load the page again.") from None
        age = time.time() - shown
        if age > self.MAX_SECONDS:
            raise forms.ValidationError("This form has expired: please send it again.")
        if age < self.MIN_SECONDS:
            raise forms.ValidationError(
                "That was quick: take a moment to describe the problem, then send again."
            )
        return data
