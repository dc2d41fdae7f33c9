"""One form per curation action; what the editor must say, checked."""

from __future__ import annotations

from django import forms
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
