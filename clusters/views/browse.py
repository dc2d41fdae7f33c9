"""What readers browse: clusters, identities, papers, venues. GET only; every page
has a JSON twin with the same data (see data.respond)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Prefetch, Q, Subquery
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_safe

from .. import citations, links
from ..filters import ClusterFilter
from ..models import Author, Authorship, Edit, NameCluster, Paper, Venue, corpus_figures
from ..models.bibliography import venue_years
from ..models.curation import cluster_identities
from ..pagecache import for_readers, made_from
from . import paging
from .changes import change_ref, listed_changes
from .curation import can_edit
from .data import (
    BYLINE_LIMIT,
    author_ref,
    cluster_ref,
    identity_ref,
    page_data,
    paper_summary,
    respond,
    venue_ref,
)
from .querying import filter_chips, filter_notices, page_number


def curation_context(clusters: list[NameCluster]) -> dict[str, Any]:
    """What an editor's controls need: the identities papers may move to or merge
    with, of this name and related names (one query)."""
    return {"curator": True, "targets": cluster_identities(clusters)}


PER_PAGE = 50
PAPER_FILTER_COUNT_CAP = 200
IDENTITY_PER_PAGE = 50
CLUSTER_SORTS = {
    "papers": ["-paper_count", "key"],
    "identities": ["-identity_count", "key"],
    "name": ["key"],
    "recent": ["-last_year", "key"],
}


def attach_bylines(
    papers: Iterable[Paper], cluster_id: int | None = None, author_id: int | None = None
) -> None:
    """Give each paper `byline_rows`: the printed names data.byline() shows, in byline
    order, as light rows (1 query): the first BYLINE_LIMIT, those of the page's cluster
    or identity, and the last (whose position tells how many there are). A page of 50
    papers with long bylines holds thousands of names."""
    by_id = {paper.pk: paper for paper in papers}
    for paper in by_id.values():
        paper.byline_rows = []
    last = Authorship.objects.filter(paper_id=OuterRef("paper_id")).order_by("-position")
    shown = Q(position__lte=BYLINE_LIMIT) | Q(position=Subquery(last.values("position")[:1]))
    if cluster_id is not None:
        shown |= Q(cluster_id=cluster_id)
    if author_id is not None:
        shown |= Q(author_id=author_id)
    for row in (
        Authorship.objects.filter(shown, paper_id__in=by_id)
        .order_by("paper_id", "position")
        .values_list(
            "paper_id", "author_id", "cluster_id", "position", "name_as_printed", named=True
        )
    ):
        by_id[row.paper_id].byline_rows.append(row)


def papers_with_bylines(ids: list[int], cluster_id: int | None = None) -> dict[int, Paper]:
    """Papers by id, each with its venue and its byline (2 queries)."""
    papers = {paper.pk: paper for paper in Paper.objects.filter(pk__in=ids).select_related("venue")}
    attach_bylines(papers.values(), cluster_id)
    return papers


@require_safe
@for_readers
def home(request: HttpRequest) -> HttpResponse:
    to_curate = NameCluster.objects.ambiguous().order_by("-paper_count", "key")[:12]
    recent = listed_changes().order_by("-pk")[:8]
    data = {
        "figures": corpus_figures(),
        "to_curate": [cluster_ref(cluster) for cluster in to_curate],
        "recent_changes": [change_ref(edit) for edit in recent],
    }
    return respond(request, "clusters/home.html", data)


@require_safe
@for_readers
def cluster_list(request: HttpRequest) -> HttpResponse:
    notices: list[str] = []
    filterset = ClusterFilter(request.GET, queryset=NameCluster.objects.all())
    sort = request.GET.get("sort") or "papers"
    if sort not in CLUSTER_SORTS:
        notices.append(f"“{sort}” is not a way to sort clusters; sorted by papers.")
        sort = "papers"
    notices += filter_notices(filterset)
    cursors = {key: request.GET.get(key, "") for key in ("after", "before")}
    names = filterset.qs
    # Under a venue or year filter each name is checked against its papers, the largest
    # names first: on PostgreSQL at a million papers, counting to 1,000 took 0.3 s warm
    # and 1.4 s cold for a venue since 2004, to 200 a fifth of that ("200+ names").
    cap = PAPER_FILTER_COUNT_CAP if filterset.paper_conditions() else paging.COUNT_CAP
    try:
        page = paging.keyset_page(names, CLUSTER_SORTS[sort], PER_PAGE, **cursors, count_cap=cap)
    except paging.BadCursor:
        notices.append("That page link is broken or out of date; showing the first page.")
        page = paging.keyset_page(names, CLUSTER_SORTS[sort], PER_PAGE, count_cap=cap)
    data = {
        "clusters": [cluster_ref(cluster) for cluster in page.rows],
        "page": page.as_data(),
        "sort": sort,
        "sorts": list(CLUSTER_SORTS),
        "filters": filter_chips(request, filterset),
        "notices": notices,
    }
    return respond(request, "clusters/cluster_list.html", data, filter=filterset)


# An authorship of the cluster as the page lists it: (authorship, paper, identity,
# the change that placed it there).
Row = tuple[int, int, int | None, int | None]
UNASSIGNED = "unassigned"
LAYOUT_SECONDS = 24 * 3600


@dataclass
class Layout:
    """A cluster's identities, unassigned papers first and then the largest, and the
    rows of each, newest paper first: the order of its pages."""

    identities: list[dict[str, Any]]
    rows: dict[int | None, list[Row]]

    def listed(self, only: int | str | None) -> list[Row]:
        if only is None:
            return [row for identity in self.identities for row in self.rows[identity["id"]]]
        return self.rows[None if only == UNASSIGNED else only]


def cluster_layout(cluster: NameCluster, made: str) -> Layout:
    """The cluster's layout, cached until its papers or any identity change: it reads
    every authorship of the name with its paper's year and title (30 ms for a name of
    4,000 papers at a million), where a page then needs only its own 50."""

    def lay_out() -> Layout:
        rows = Authorship.objects.filter(cluster=cluster).values_list(
            "pk", "paper_id", "author_id", "author__name", "paper__year", "paper__title",
            "placed_by_id",
        )  # fmt: skip
        rows_of: dict[int | None, list] = {}
        for row in rows:
            rows_of.setdefault(row[2], []).append(row)
        names = {author_id: group[0][3] for author_id, group in rows_of.items()}
        order = sorted(
            rows_of, key=lambda pk: (pk is not None, -len(rows_of[pk]), names[pk] or "", pk or 0)
        )
        identities = [
            {**author_ref(pk, names[pk]), "papers": len(rows_of[pk])}
            if pk is not None
            else {"id": None, "name": "Unassigned", "url": None, "papers": len(rows_of[pk])}
            for pk in order
        ]
        return Layout(
            identities,
            {
                pk: [
                    (row[0], row[1], row[2], row[6])
                    for row in sorted(group, key=lambda row: (-row[4], row[5], row[1]))
                ]
                for pk, group in rows_of.items()
            },
        )

    key = f"cluster:{cluster.pk}:{cluster.paper_count}:{made}"
    return cache.get_or_set(key, lay_out, LAYOUT_SECONDS)


def chosen_identity(request: HttpRequest, layout: Layout, notices: list[str]) -> int | str | None:
    only = request.GET.get("identity")
    if only is None or only == UNASSIGNED and None in layout.rows:
        return only
    if only.isdigit() and int(only) in layout.rows:
        return int(only)
    notices.append(f"“{only[:40]}” is not an identity of this cluster; showing all of them.")
    return None


@require_safe
@for_readers
def cluster_detail(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)
    notices: list[str] = []
    layout = cluster_layout(cluster, made_from(request))
    only = chosen_identity(request, layout, notices)
    related = cluster.related()
    page = Paginator(layout.listed(only), PER_PAGE).get_page(page_number(request, notices))
    papers = papers_with_bylines([row[1] for row in page.object_list], cluster.pk)
    groups: list[dict[str, Any]] = []
    by_id = {identity["id"]: identity for identity in layout.identities}
    for authorship_id, paper_id, author_id, placed_by in page.object_list:
        if not groups or groups[-1]["identity"]["id"] != author_id:
            groups.append({"identity": by_id[author_id], "papers": []})
        groups[-1]["papers"].append(
            {
                **paper_summary(papers[paper_id], cluster.pk),
                "authorship": {
                    "id": authorship_id,
                    "pick": f"{authorship_id}:{author_id or ''}",
                    "placed_by": placed_by,
                    "placed_by_url": links.by_id("clusters:change-detail", placed_by)
                    if placed_by
                    else None,
                },
            }
        )
    data = {
        "cluster": {
            **cluster_ref(cluster),
            "key": cluster.key,
            "source_papers": cluster.source_papers,
        },
        "identities": layout.identities,
        "identity": only,
        "groups": groups,
        "related": [cluster_ref(other) for other in related],
        "history": f"{reverse('clusters:change-list')}?cluster={cluster.slug}",
        "pending": [
            change_ref(edit)
            for edit in listed_changes().filter(status=Edit.Status.PROPOSED).for_cluster(cluster)
        ],
        "locked": {"reason": cluster.lock_reason, "since": cluster.locked_at.isoformat()}
        if cluster.locked_at
        else None,
        "report": f"{reverse('clusters:report')}?cluster={cluster.slug}",
        "page": page_data(page),
        "notices": notices,
    }
    context = curation_context([cluster, *related]) if can_edit(request.user) else {}
    return respond(request, "clusters/cluster_detail.html", data, **context)


COAUTHORS_LISTED = 40


@dataclass
class IdentitySummary:
    """What an identity's pages show besides the papers of one page: its authorships in
    page order, newest paper first, and its figures and history."""

    order: list[int]
    papers_per_year: list[dict[str, int]]
    venues: list[dict[str, Any]]
    coauthors: list[dict[str, Any]]
    more_coauthors: bool  # more than those listed
    names: list[dict[str, Any]]
    merged_from: list[dict[str, Any]]
    split_into: list[dict[str, Any]]
    pending: list[dict[str, Any]]


def identity_summary(author: Author, made: str) -> IdentitySummary:
    """The identity's summary, cached until an import, an edit or a review (`made` is
    pagecache.made_from()). One read of its authorships, with their papers' venues and
    their names' clusters, gives the order and the figures by year, venue and printed
    name: for one of 3,800 papers at a million, the three grouped joins it replaces took
    longer, and on an ordinary identity building the queries is most of the cost."""

    def summarize() -> IdentitySummary:
        rows = sorted(
            Authorship.objects.filter(author=author)
            .order_by()
            .values_list(
                "pk", "paper_id", "position", "paper__year", "paper__title",
                "paper__venue_id", "name_as_printed", "cluster__name", "cluster__slug",
            ),
            key=lambda row: (-row[3], row[4], row[1], row[2]),
        )  # fmt: skip
        years: dict[int, set[int]] = {}
        venue_papers: dict[int, set[int]] = {}
        printed: Counter[tuple[str, str, str]] = Counter()
        for _, paper_id, _, year, _, venue_id, name, cluster_name, slug in rows:
            years.setdefault(year, set()).add(paper_id)
            venue_papers.setdefault(venue_id, set()).add(paper_id)
            printed[name, cluster_name, slug] += 1
        venues = sorted(
            (
                {**venue_ref(venue), "papers": len(venue_papers[venue.pk])}
                for venue in Venue.objects.filter(pk__in=venue_papers).order_by()
            ),
            key=lambda venue: (-venue["papers"], venue["name"], venue["slug"]),
        )
        names = [
            {"printed": name, "cluster": {"name": cluster_name, "slug": slug}, "papers": n}
            for (name, cluster_name, slug), n in sorted(
                printed.items(), key=lambda item: (-item[1], item[0])
            )
        ]
        coauthors = top_coauthors(author, COAUTHORS_LISTED + 1)
        return IdentitySummary(
            order=[row[0] for row in rows],
            papers_per_year=[
                {"year": year, "papers": len(ids)} for year, ids in sorted(years.items())
            ],
            venues=venues,
            coauthors=coauthors[:COAUTHORS_LISTED],
            more_coauthors=len(coauthors) > COAUTHORS_LISTED,
            names=names,
            merged_from=[
                author_ref(pk, name) for pk, name in author.merged_from.values_list("pk", "name")
            ],
            split_into=[
                {
                    **author_ref(edit.target_id, edit.target.name),
                    "change": edit.pk,
                    "change_url": edit.get_absolute_url(),
                }
                for edit in Edit.objects.applied()
                .filter(kind=Edit.Kind.SPLIT, moves__from_author=author)
                .distinct()
                .select_related("target")
            ],
            pending=[
                change_ref(edit)
                for edit in listed_changes()
                .filter(status=Edit.Status.PROPOSED)
                .for_identity(author)
            ],
        )

    # The key's "2" is the summary's shape: an entry pickled by older code is not read.
    key = f"identity-summary:2:{author.pk}:{made}"
    return cache.get_or_set(key, summarize, LAYOUT_SECONDS)


def top_coauthors(author: Author, limit: int) -> list[dict[str, Any]]:
    """The identity's most frequent co-authors (2 queries). The authorships of its
    papers (a subquery, which SQLite runs a quarter faster than a join here), grouped
    by id alone: joining every row to its name tripled the time (for 3,800 papers and
    79,000 co-authorships at a million). Only those kept are named."""
    papers = Authorship.objects.filter(author=author).order_by().values("paper_id")
    top = (
        Authorship.objects.filter(paper_id__in=papers, author__isnull=False)
        .exclude(author=author)
        .values_list("author_id")
        .annotate(n=Count("paper", distinct=True))
        .order_by("-n", "author_id")[:limit]
    )
    counted = dict(top)
    named = Author.objects.filter(pk__in=counted).values_list("pk", "name")
    return [
        {**author_ref(pk, name), "papers": counted[pk]}
        for pk, name in sorted(named, key=lambda row: (-counted[row[0]], row[1], row[0]))
    ]


@require_safe
@for_readers
def author_detail(request: HttpRequest, pk: int) -> HttpResponse:
    author = get_object_or_404(Author, pk=pk)
    if author.merged_into_id is not None:
        target = author.live_identity().get_absolute_url()
        query = request.GET.urlencode()
        return HttpResponsePermanentRedirect(f"{target}?{query}" if query else target)
    notices: list[str] = []
    summary = identity_summary(author, made_from(request))
    page = Paginator(summary.order, IDENTITY_PER_PAGE).get_page(page_number(request, notices))
    listed = Authorship.objects.filter(pk__in=page.object_list).select_related("paper__venue")
    by_pk = {a.pk: a for a in listed}
    # An authorship that moved away since the order was cached is left out.
    authorships = [by_pk[pk] for pk in page.object_list if pk in by_pk]
    papers = {a.paper_id: a.paper for a in authorships}
    attach_bylines(papers.values(), author_id=author.pk)
    data = {
        "identity": identity_ref(author),
        "papers": [
            {
                **paper_summary(papers[a.paper_id], author_id=author.pk),
                "authorship": {
                    "id": a.pk,
                    "pick": f"{a.pk}:{a.author_id}",
                    "printed": a.name_as_printed,
                },
            }
            for a in authorships
        ],
        "papers_per_year": summary.papers_per_year,
        "venues": summary.venues,
        "coauthors": summary.coauthors,
        "more_coauthors": summary.more_coauthors,
        "names": summary.names,
        "merged_from": summary.merged_from,
        "split_into": summary.split_into,
        "created_by": {
            "change": author.created_by_id,
            "change_url": reverse("clusters:change-detail", args=[author.created_by_id]),
        }
        if author.created_by_id
        else None,
        "history": f"{reverse('clusters:change-list')}?identity={author.pk}",
        "pending": summary.pending,
        "report": f"{reverse('clusters:report')}?identity={author.pk}",
        "page": page_data(page),
        "notices": notices,
    }
    context = {}
    if can_edit(request.user) and author.is_live and data["names"]:
        # Editors act on the papers printed under the identity's main name.
        home = NameCluster.objects.get(slug=data["names"][0]["cluster"]["slug"])
        context = {**curation_context([home, *home.related()]), "home": home}
    return respond(request, "clusters/author_detail.html", data, **context)


def paper_data(request: HttpRequest, paper: Paper) -> dict[str, Any]:
    """The paper with every author, each with the cluster of the name as printed."""
    summary = paper_summary(paper, limit=None)
    for author, authorship in zip(summary["authors"], paper.authorships.all(), strict=True):
        author["cluster"] = {
            "slug": authorship.cluster.slug,
            "url": authorship.cluster.get_absolute_url(),
        }
        # Where the assignment came from: null means imported as printed.
        author["placed_by"] = authorship.placed_by_id
        author["placed_by_url"] = (
            reverse("clusters:change-detail", args=[authorship.placed_by_id])
            if authorship.placed_by_id
            else None
        )
    url = paper.get_absolute_url()
    return {
        **summary,
        "citations": {
            "bibtex": request.build_absolute_uri(f"{url}?format=bibtex"),
            "csl_json": request.build_absolute_uri(f"{url}?format=csl-json"),
        },
    }


@require_safe
@for_readers
def paper_detail(request: HttpRequest, pk: int) -> HttpResponse:
    paper = get_object_or_404(
        Paper.objects.select_related("venue").prefetch_related(
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related("cluster").order_by("position"),
            )
        ),
        pk=pk,
    )
    citation = citation_response(request, paper)
    if citation is not None:
        return citation
    data = {
        "paper": paper_data(request, paper),
        "report": f"{reverse('clusters:report')}?paper={paper.pk}",
    }
    return respond(request, "clusters/paper_detail.html", data, bibtex=citations.bibtex(paper))


def citation_response(request: HttpRequest, paper: Paper) -> HttpResponse | None:
    wanted = request.GET.get("format")
    if wanted == "bibtex":
        response = HttpResponse(
            citations.bibtex(paper), content_type="application/x-bibtex; charset=utf-8"
        )
    elif wanted == "csl-json":
        response = HttpResponse(
            citations.csl_json(paper, request.build_absolute_uri(paper.get_absolute_url())),
            content_type="application/vnd.citationstyles.csl+json; charset=utf-8",
        )
    else:
        return None
    extension = "bib" if wanted == "bibtex" else "json"
    response["Content-Disposition"] = f'inline; filename="arrow-paper-{paper.pk}.{extension}"'
    return response


@require_safe
@for_readers
def venue_list(request: HttpRequest) -> HttpResponse:
    years = venue_years()
    data = {
        "venues": [
            {
                **venue_ref(venue),
                "papers": sum(row["papers"] for row in years.get(venue.pk, [])),
                "years": years.get(venue.pk, []),
            }
            for venue in Venue.objects.order_by("name", "kind")
        ]
    }
    return respond(request, "clusters/venue_list.html", data)


@require_safe
@for_readers
def venue_detail(request: HttpRequest, slug: str, year: int | None = None) -> HttpResponse:
    venue = get_object_or_404(Venue, slug=slug)
    notices: list[str] = []
    years = [(row["year"], row["papers"]) for row in venue_years().get(venue.pk, [])]
    if year is None and years:
        year = years[0][0]
    elif year is not None and year not in dict(years):
        raise Http404(f"{venue} has no papers from {year}")
    papers = venue.papers.filter(year=year).order_by("title", "pk")
    page = Paginator(papers.values_list("pk", flat=True), 100).get_page(
        page_number(request, notices)
    )
    by_id = papers_with_bylines(list(page.object_list))
    data = {
        "venue": venue_ref(venue),
        "year": year,
        "years": [{"year": y, "papers": n, "url": venue_year_url(venue, y)} for y, n in years],
        "papers": [paper_summary(by_id[pk]) for pk in page.object_list],
        "page": page_data(page),
        "notices": notices,
    }
    return respond(request, "clusters/venue_detail.html", data)


def venue_year_url(venue: Venue, year: int) -> str:
    return reverse("clusters:venue-year", args=[venue.slug, year])
