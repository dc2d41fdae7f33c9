"""Reading the query string: page numbers, filter errors, and the active filters
shown as removable chips."""

from __future__ import annotations

from typing import Any

import django_filters
from django.http import HttpRequest

# Parameters that point into one result list; changing a filter drops them.
POSITION = ("page", "after", "before")


def page_number(request: HttpRequest, notices: list[str]) -> int:
    raw = request.GET.get("page", "1")
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    notices.append(f"“{raw[:40]}” is not a page number; showing the first page.")
    return 1


def filter_notices(filterset: django_filters.FilterSet) -> list[str]:
    """Invalid filters are ignored; each says why."""
    return [
        f"{filterset.form.fields[name].label}: {error} This filter was ignored."
        for name, errors in filterset.errors.items()
        for error in errors
    ]


def without(request: HttpRequest, *names: str) -> str:
    """The current query string less these parameters and any page position."""
    query = request.GET.copy()
    for name in (*names, *POSITION, "format"):
        query.pop(name, None)
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else request.path


def filter_chips(request: HttpRequest, filterset: django_filters.FilterSet) -> list[dict[str, Any]]:
    """The valid, active filters, in plain words, each with a link that removes it."""
    filterset.errors  # noqa: B018 -- runs validation, so cleaned_data exists
    chips = []
    for name, value in filterset.form.cleaned_data.items():
        if value in (None, "", False):
            continue
        label = filterset.form.fields[name].label
        shown = "yes" if value is True else str(value)
        chips.append(
            {"name": name, "label": label, "value": shown, "remove": without(request, name)}
        )
    return chips
