"""The `data` of each page: plain dicts that the template renders and that
`?format=json` returns as they are. Keys are added, never renamed or removed."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from .. import links
from ..models import Author, Authorship, NameCluster, Paper, Venue

# On list pages a byline is cut to this many names (the cluster's own name always stays).
BYLINE_LIMIT = 12


def respond(
    request: HttpRequest, template: str, data: dict[str, Any], **context: Any
) -> HttpResponse:
    """The page as HTML, or its JSON twin when asked with ?format=json."""
    if request.GET.get("format") == "json":
        return JsonResponse(data, json_dumps_params={"ensure_ascii": False, "indent": 2})
    return render(request, template, {"data": data, **context})


def absolute(request: HttpRequest, path: str) -> str:
    return request.build_absolute_uri(path)


def venue_ref(venue: Venue) -> dict[str, Any]:
    return {
        "name": venue.name,
        "kind": venue.kind,
        "slug": venue.slug,
        "url": venue.get_absolute_url(),
    }


def cluster_ref(cluster: NameCluster) -> dict[str, Any]:
    return {
        "name": cluster.name,
        "slug": cluster.slug,
        "url": cluster.get_absolute_url(),
        "papers": cluster.paper_count,
        "identities": cluster.identity_count,
        "spellings": cluster.spelling_count,
        "years": [cluster.first_year, cluster.last_year],
        "source_author_rows": cluster.source_author_rows,
        "ambiguous": cluster.is_ambiguous,
    }


def author_ref(author_id: int, name: str) -> dict[str, Any]:
    return {
        "id": author_id,
        "name": name,
        "url": links.by_id("clusters:author-detail", author_id),
    }


def byline(
    authorships: list[Authorship],
    cluster_id: int | None = None,
    limit: int | None = None,
    author_id: int | None = None,
) -> dict:
    """The printed names in order, each linking to its identity; `in_cluster` marks the
    names of the page's own cluster, `this_identity` those of the page's identity. Long
    bylines are cut to `limit`, keeping those."""
    shown = [
        a
        for a in authorships
        if limit is None
        or a.position <= limit  # positions run from 1
        or a.cluster_id == cluster_id
        or (author_id is not None and a.author_id == author_id)
    ]
    return {
        "authors": [
            {
                "name": a.name_as_printed,
                "position": a.position,
                "identity": links.by_id("clusters:author-detail", a.author_id)
                if a.author_id
                else None,
                "identity_id": a.author_id,
                "in_cluster": a.cluster_id == cluster_id,
                "this_identity": author_id is not None and a.author_id == author_id,
            }
            for a in shown
        ],
        # The last position tells how many, when only some names were read.
        "authors_total": authorships[-1].position if authorships else 0,
    }


def paper_summary(
    paper: Paper,
    cluster_id: int | None = None,
    limit: int | None = BYLINE_LIMIT,
    author_id: int | None = None,
) -> dict:
    """A paper as list pages show it; needs `venue` and `authorships` loaded."""
    url = paper.get_absolute_url()
    return {
        "id": paper.pk,
        "url": url,
        "title": paper.title,
        "venue": venue_ref(paper.venue),
        "year": paper.year,
        "type": paper.paper_type,
        "venue_line": paper.venue_line,
        "proceedings": links.remembered("clusters:venue-year", paper.venue.slug, paper.year),
        "abstract": paper.abstract_paragraphs,
        "links": {"details": url, "pdf": paper.has_pdf, "doi": paper.has_doi},
        **byline(bylines_of(paper), cluster_id, limit, author_id),
    }


def bylines_of(paper: Paper) -> list:
    """The byline that browse.attach_bylines() gave the paper, or its authorships."""
    rows = getattr(paper, "byline_rows", None)
    return rows if rows is not None else list(paper.authorships.all())


def identity_ref(author: Author) -> dict[str, Any]:
    return {
        **author_ref(author.pk, author.name),
        "dblp_number": author.dblp_number,
        "label": author.label,
        "affiliation": author.affiliation,
        "orcid": author.orcid,
        "homepage": author.homepage,
    }


def page_data(page) -> dict[str, Any]:
    """Where a Paginator page sits, for the templates' page links."""
    return {
        "number": page.number,
        "pages": page.paginator.num_pages,
        "total": page.paginator.count,
        "previous": page.previous_page_number() if page.has_previous() else None,
        "next": page.next_page_number() if page.has_next() else None,
    }
