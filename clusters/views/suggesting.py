"""Split suggestions for one name, and the ambiguity dashboard that ranks names by how
likely they hold several people. Both are for editors and moderators: suggestions cost
up to a second to compute for a large name, and they lead to curation."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from ..filters import AmbiguityFilter
from ..models import Author, NameCluster
from ..suggestions import Group
from . import paging
from .curation import editors_only
from .data import author_ref, cluster_ref, respond
from .querying import filter_chips, filter_notices

PER_PAGE = 50
# A group's papers listed (and proposable) on the page; a larger group is split in steps.
MEMBERS_SHOWN = 300
WORST_FIRST = ["-ambiguity", "key"]


def group_data(number: int, group: Group, names: dict[int, str]) -> dict[str, Any]:
    shown = group.items[:MEMBERS_SHOWN]
    now_on = Counter(item.identity for item in group.items)
    return {
        "number": number,
        # Where its papers are now: a group that is one identity already needs no split.
        "now_on": [
            {**author_ref(pk, names[pk]), "papers": count}
            if pk
            else {"id": None, "name": "unassigned", "url": None, "papers": count}
            for pk, count in now_on.most_common()
        ],
        "papers": group.papers,
        "confidence": group.confidence,
        "uncertain": group.uncertain,
        "reasons": group.reasons,
        "members_shown": len(shown),
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
            for item in shown
        ],
    }


@editors_only
def cluster_suggestions(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)
    found = cluster.suggestions()
    data: dict[str, Any] = {
        "cluster": cluster_ref(cluster),
        "computed": found is not None,
        "people": None,
        "uncertain": None,
        "ambiguity": None,
        "groups": [],
        "uncertain_papers": None,
    }
    if found is not None:
        people = [group for group in found.groups if not group.uncertain]
        alone = [group for group in found.groups if group.uncertain]
        ids = {item.identity for group in found.groups for item in group.items}
        names = dict(Author.objects.filter(pk__in=ids - {None}).values_list("pk", "name"))
        data.update(
            people=found.people,
            uncertain=found.uncertain,
            ambiguity=found.ambiguity,
            groups=[group_data(n, group, names) for n, group in enumerate(people, start=1)],
            # Papers nothing links, together: ticked by hand, never proposed as a block.
            uncertain_papers=group_data(0, merged(alone), names) if alone else None,
        )
    return respond(request, "clusters/suggestions.html", data, cluster=cluster)


def merged(groups: list[Group]) -> Group:
    return Group(
        items=[item for group in groups for item in group.items],
        confidence=0.5,
        reasons=[],
        members={key: value for group in groups for key, value in group.members.items()},
        uncertain=True,
    )


@editors_only
def ambiguity_dashboard(request: HttpRequest) -> HttpResponse:
    notices: list[str] = []
    scored = NameCluster.objects.exclude(ambiguity_scored_at=None)
    filterset = AmbiguityFilter(request.GET, queryset=scored)
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
                "uncertain_papers": cluster.uncertain_papers,
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
    if cluster.uncertain_papers:
        papers = "paper" if cluster.uncertain_papers == 1 else "papers"
        found.append(f"{cluster.uncertain_papers} {papers} linked to no other")
    if (cluster.source_author_rows or 1) > 1:
        found.append(f"the source held {cluster.source_author_rows} author rows")
    if cluster.spelling_count > 1:
        found.append(f"{cluster.spelling_count} spellings")
    if cluster.last_year - cluster.first_year > 25:
        found.append(f"papers over {cluster.last_year - cluster.first_year} years")
    return found
