"""Full-text search over titles, abstracts and printed names, with filters and facets."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from .. import search as fulltext
from ..filters import PaperFilter
from ..models import NameCluster, Paper
from . import paging
from .browse import papers_with_bylines
from .data import cluster_ref, page_data, paper_summary, respond
from .querying import filter_chips, filter_notices, page_number, without

PER_PAGE = 25
# Ranking every match of a common word takes seconds at a million papers: the newest
# RANK_LIMIT matches are ranked, and the page says so.
RANK_LIMIT = 2000
SORTS = {"relevance": None, "newest": ["-year", "-pk"], "oldest": ["year", "pk"]}


def facets(request: HttpRequest, matches: QuerySet, capped: bool) -> dict[str, list[dict]]:
    """Counts by venue, year and type, each with a link that applies it (3 queries).
    Past the count cap they are counted over the newest matches only."""
    if capped:
        newest = matches.order_by("-pk").values("pk")[: paging.COUNT_CAP]
        matches = Paper.objects.filter(pk__in=Subquery(newest))
    counted = matches.order_by()

    def link(**params: object) -> str:
        query = request.GET.copy()
        for position in ("page", "format"):
            query.pop(position, None)
        for name, value in params.items():
            query[name] = str(value)
        return f"?{query.urlencode()}"

    venues = counted.values("venue__slug", "venue__name").annotate(n=Count("pk"))
    years = counted.values("year").annotate(n=Count("pk"))
    types = counted.values("paper_type").annotate(n=Count("pk"))
    return {
        "venue": [
            {
                "value": row["venue__slug"],
                "label": row["venue__name"],
                "count": row["n"],
                "url": link(venue=row["venue__slug"]),
            }
            for row in venues.order_by("-n", "venue__name")[:15]
        ],
        "year": [
            {
                "value": row["year"],
                "label": str(row["year"]),
                "count": row["n"],
                "url": link(year_from=row["year"], year_to=row["year"]),
            }
            for row in years.order_by("-year")[:30]
        ],
        "type": [
            {
                "value": row["paper_type"],
                "label": row["paper_type"] or "(none)",
                "count": row["n"],
                "url": link(type=row["paper_type"]),
            }
            for row in types.order_by("-n", "paper_type")[:10]
        ],
    }


@require_safe
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
    """Count, facet, rank and fetch one page of the matches into `data`."""
    sql, params = fulltext.matching(terms)
    matches = papers.filter(pk__in=RawSQL(sql, params))
    total, capped = paging.capped_count(matches)
    data.update(
        terms=[word for term in terms for word in term.words],
        total=total,
        total_is_lower_bound=capped,
        facets=facets(request, matches, capped),
    )
    if not total:
        return
    number = page_number(request, data["notices"])
    if SORTS[sort] is None:
        candidates = list(matches.order_by("-pk").values_list("pk", flat=True)[:RANK_LIMIT])
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
    data["results"] = [paper_summary(by_id[pk]) for pk in ids]
    data["page"] = page_data(page)
