"""Full-text search over titles, abstracts and printed names, with filters and facets."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, QuerySet
from django.db.models.expressions import RawSQL
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from .. import search as fulltext
from ..filters import PaperFilter
from ..models import NameCluster, Paper, Venue
from ..pagecache import for_readers
from . import paging
from .browse import papers_with_bylines
from .data import cluster_ref, page_data, paper_summary, respond
from .querying import filter_chips, filter_notices, page_number, without

PER_PAGE = 25
# Ranking every match of a common word takes seconds at a million papers: the newest
# RANK_LIMIT matches are ranked, and the page says so.
RANK_LIMIT = 2000
# Facet counts cost a grouped scan of the matches: past this many, of the newest only.
FACET_LIMIT = 2000
SORTS = {"relevance": None, "newest": ["-year", "-pk"], "oldest": ["year", "pk"]}


def facets(request: HttpRequest, ids: list[int]) -> dict[str, list[dict]]:
    """Counts by venue, year and type among these matches, each with a link that applies
    it, from one grouped query."""
    matches = Paper.objects.filter(pk__in=RawSQL(*fulltext.listed(ids)))
    # Grouped without joining the venues: with statistics, SQLite would otherwise walk
    # every paper of each venue instead of looking up these ids (160 ms at a million).
    groups = list(
        matches.order_by()
        .values_list("venue_id", "year", "paper_type")
        .annotate(n=Count("pk"))  # nearly a row per match: tuples, not dicts
    )
    named = Venue.objects.in_bulk({venue_id for venue_id, _, _, _ in groups})
    venues: Counter = Counter()
    years: Counter = Counter()
    types: Counter = Counter()
    for venue_id, year, paper_type, n in groups:
        venue = named[venue_id]
        venues[venue.slug, venue.name] += n
        years[year] += n
        types[paper_type] += n
    query = request.GET.copy()
    for position in ("page", "format"):
        query.pop(position, None)

    def link(**params: object) -> str:
        chosen = query.copy()
        for name, value in params.items():
            chosen[name] = str(value)
        return f"?{chosen.urlencode()}"

    return {
        "venue": [
            {"value": slug, "label": name, "count": n, "url": link(venue=slug)}
            for (slug, name), n in sorted(venues.items(), key=lambda item: (-item[1], item[0][1]))[
                :15
            ]
        ],
        "year": [
            {
                "value": year,
                "label": str(year),
                "count": n,
                "url": link(year_from=year, year_to=year),
            }
            for year, n in sorted(years.items(), reverse=True)[:30]
        ],  # fmt: skip
        "type": [
            {"value": kind, "label": kind or "(none)", "count": n, "url": link(type=kind)}
            for kind, n in sorted(types.items(), key=lambda item: (-item[1], item[0]))[:10]
        ],
    }


@require_safe
@for_readers
def search(request: HttpRequest) -> HttpResponse:
    notices: list[str] = []
    query = request.GET.get("q", "")
    filterset = PaperFilter(request.GET, queryset=Paper.objects.all())
    notices += filter_notices(filterset)
    sort = request.GET.get("sort") or "relevance"
    if sort not in SORTS:
        notices.append(f"“{sort[:40]}” is not a way to sort results; sorted by relevance.")
        sort = "relevance"
    data: dict[str, Any] = {
        "query": query,
        "terms": [],
        "sort": sort,
        "filters": filter_chips(request, filterset),
        "clear_query": without(request, "q"),
        "names": [],
        "results": [],
        "total": 0,
        "total_is_lower_bound": False,
        "ranked_among": None,
        "facets": {"venue": [], "year": [], "type": []},
        "facets_among": None,
        "page": None,
        "notices": notices,
    }
    if "q" in request.GET:
        try:
            terms = fulltext.parse_query(query)
        except fulltext.QueryError as error:
            notices.append(str(error))
        else:
            data["names"] = [cluster_ref(cluster) for cluster in NameCluster.objects.named(query)]
            run(request, terms, filterset.qs, sort, data)
    return respond(request, "clusters/search.html", data, filter=filterset)


def run(request: HttpRequest, terms: list, papers: QuerySet, sort: str, data: dict) -> None:
    """Count, facet, rank and fetch one page of the matches into `data`.

    Everything but a non-default sort works on the ids of the newest COUNT_CAP + 1
    matches, read in one statement: straight from the index when no filter applies,
    through the papers table when one does."""
    if papers.query.where:
        sql, params = fulltext.matching(terms)
        matches = papers.filter(pk__in=RawSQL(sql, params))
        newest = list(matches.order_by("-pk").values_list("pk", flat=True)[: paging.COUNT_CAP + 1])
    else:
        matches = Paper.objects.filter(pk__in=RawSQL(*fulltext.matching(terms)))
        newest = fulltext.newest(terms, paging.COUNT_CAP + 1)
    total, capped = min(len(newest), paging.COUNT_CAP), len(newest) > paging.COUNT_CAP
    data.update(
        terms=[word for term in terms for word in term.words],
        total=total,
        total_is_lower_bound=capped,
        facets=facets(request, newest[:FACET_LIMIT]),
        facets_among=FACET_LIMIT if total > FACET_LIMIT else None,
    )
    if not total:
        return
    number = page_number(request, data["notices"])
    if SORTS[sort] is None:
        candidates = newest[:RANK_LIMIT]
        if total > RANK_LIMIT:
            data["notices"].append(
                f"More than {RANK_LIMIT:,} papers match: the {RANK_LIMIT:,} newest are ranked. "
                "Add words or filters to narrow the search."
            )
        page = Paginator(range(len(candidates)), PER_PAGE).get_page(number)
        ids = fulltext.rank(terms, candidates, PER_PAGE, page.start_index() - 1)
        data["ranked_among"] = len(candidates)
    else:
        page = Paginator(range(total), PER_PAGE).get_page(number)
        start = page.start_index() - 1
        ids = list(
            matches.order_by(*SORTS[sort]).values_list("pk", flat=True)[start : start + PER_PAGE]
        )
    by_id = papers_with_bylines(ids)
    # The index is read directly: should it hold a paper that is gone, skip it.
    data["results"] = [paper_summary(by_id[pk]) for pk in ids if pk in by_id]
    data["page"] = page_data(page)
