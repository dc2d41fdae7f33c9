"""Split suggestions for one name, and the ambiguity dashboard that ranks names by how
likely they hold several people. Both are for editors and moderators: suggestions cost
up to a second to compute for a large name, and they lead to curation."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from ..filters import AmbiguityFilter
from ..models import NameCluster
from ..suggestions import Group
from . import paging
from .curation import editors_only
from .data import cluster_ref, respond
from .querying import filter_chips, filter_notices

PER_PAGE = 50
WORST_FIRST = ["-ambiguity", "key"]


def group_data(number: int, group: Group) -> dict[str, Any]:
    return {
        "number": number,
        "papers": group.papers,
        "confidence": group.confidence,
        "uncertain": group.uncertain,
        "reasons": group.reasons,
        "members": [
            {
                "authorship": item.key,
                "pick": f"{item.key}:{item.identity or ''}",
                "paper": {
                    "id": item.paper,
                    "url": reverse("clusters:paper-detail", args=[item.paper]),
                },
                "title": item.title,
                "venue": item.venue,
                "year": item.year,
                "printed": item.printed,
                "identity": item.identity,
                "confidence": group.members[item.key][0],
                "reason": group.members[item.key][1],
            }
            for item in group.items
        ],
    }


@editors_only
def cluster_suggestions(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)
    found = cluster.suggestions()
    data = {
        "cluster": cluster_ref(cluster),
        "people": found.people,
        "uncertain": found.uncertain,
        "ambiguity": found.ambiguity,
        "groups": [group_data(number, group) for number, group in enumerate(found.groups, start=1)],
    }
    return respond(request, "clusters/suggestions.html", data, cluster=cluster)


@editors_only
def ambiguity_dashboard(request: HttpRequest) -> HttpResponse:
    notices: list[str] = []
    filterset = AmbiguityFilter(request.GET, queryset=NameCluster.objects.all())
    notices += filter_notices(filterset)
    cursors = {key: request.GET.get(key, "") for key in ("after", "before")}
    try:
        page = paging.keyset_page(filterset.qs, WORST_FIRST, PER_PAGE, **cursors)
    except paging.BadCursor:
        notices.append("That page link is broken or out of date; showing the first page.")
        page = paging.keyset_page(filterset.qs, WORST_FIRST, PER_PAGE)
    data = {
        "clusters": [
            {
                **cluster_ref(cluster),
                "suggestions_url": reverse("clusters:cluster-suggestions", args=[cluster.slug]),
                "ambiguity": cluster.ambiguity,
                "suggested_people": cluster.suggested_people,
                "scored_at": cluster.ambiguity_scored_at,
                "curated": cluster.is_curated,
                "hints": hints(cluster),
            }
            for cluster in page.rows
        ],
        "page": page.as_data(),
        "filters": filter_chips(request, filterset),
        "notices": notices,
    }
    return respond(request, "clusters/ambiguity.html", data, filter=filterset)


def hints(cluster: NameCluster) -> list[str]:
    """Why the name is ranked where it is, in the dashboard's words."""
    found = []
    if cluster.suggested_people and cluster.suggested_people > 1:
        found.append(f"{cluster.suggested_people} groups of papers share no co-authors")
    if (cluster.source_author_rows or 1) > 1:
        found.append(f"the source held {cluster.source_author_rows} author rows")
    if cluster.spelling_count > 1:
        found.append(f"{cluster.spelling_count} spellings")
    if cluster.last_year - cluster.first_year > 25:
        found.append(f"papers over {cluster.last_year - cluster.first_year} years")
    return found
