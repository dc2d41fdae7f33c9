"""The history of curation: the site-wide change log (filterable by cluster and by
identity), one change as a diff, and an Atom feed."""

from __future__ import annotations

from typing import Any

from django.contrib.syndication.views import Feed
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.views.decorators.http import require_safe

from ..models import Author, Edit, NameCluster
from .data import author_ref, page_data, respond
from .querying import page_number

PER_PAGE = 50
DIFF_ROWS = 500


def ref(author: Author | None) -> dict[str, Any] | None:
    return author_ref(author.pk, author.name) if author else None


def change_ref(edit: Edit) -> dict[str, Any]:
    """A change as lists show it; needs `editor`, `cluster`, `target` loaded and
    `moved` annotated."""
    return {
        "id": edit.pk,
        "url": edit.get_absolute_url(),
        "kind": edit.kind,
        "kind_label": edit.get_kind_display(),
        "status": edit.status,
        "editor": edit.editor.get_username(),
        "reason": edit.reason,
        "created_at": edit.created_at.isoformat(),
        "cluster": {"name": edit.cluster.name, "url": edit.cluster.get_absolute_url()}
        if edit.cluster
        else None,
        "target": ref(edit.target),
        "reverts": edit.reverts_id,
        "moved": edit.moved,
    }


def listed_changes():
    return Edit.objects.select_related("editor", "cluster", "target", "reviewed_by").annotate(
        moved=Count("moves")
    )


def scoped(request: HttpRequest, changes) -> tuple[Any, dict[str, str] | None]:
    """The changes of one cluster (?cluster=slug) or one identity (?identity=id)."""
    if slug := request.GET.get("cluster"):
        cluster = get_object_or_404(NameCluster, slug=slug)
        return changes.for_cluster(cluster), {
            "name": cluster.name,
            "url": cluster.get_absolute_url(),
        }
    if (identity := request.GET.get("identity", "")).isdigit():
        author = get_object_or_404(Author, pk=identity)
        return changes.for_identity(author), {"name": author.name, "url": author.get_absolute_url()}
    return changes, None


@require_safe
def change_list(request: HttpRequest) -> HttpResponse:
    notices: list[str] = []
    changes, scope = scoped(request, listed_changes())
    kind = request.GET.get("kind") or None
    if kind in Edit.Kind.values:
        changes = changes.filter(kind=kind)
    elif kind:
        notices.append(f"“{kind[:40]}” is not a kind of change; showing every kind.")
        kind = None
    page = Paginator(changes.order_by("-pk"), PER_PAGE).get_page(page_number(request, notices))
    data = {
        "changes": [change_ref(edit) for edit in page.object_list],
        "scope": scope,
        "kinds": Edit.Kind.values,
        "kind": kind,
        "feed": reverse("clusters:change-feed"),
        "page": page_data(page),
        "notices": notices,
    }
    return respond(request, "clusters/change_list.html", data)


@require_safe
def change_detail(request: HttpRequest, pk: int) -> HttpResponse:
    edit = get_object_or_404(listed_changes(), pk=pk)
    moves = edit.moves.select_related("authorship__paper", "from_author", "to_author").order_by(
        "authorship__paper__title", "pk"
    )[:DIFF_ROWS]
    merges = edit.merges.select_related("author", "into_before", "into_after")
    data = {
        "change": change_ref(edit),
        "moves": [
            {
                "paper": {
                    "title": m.authorship.paper.title,
                    "url": m.authorship.paper.get_absolute_url(),
                },
                "printed": m.authorship.name_as_printed,
                "from": ref(m.from_author),
                "to": ref(m.to_author),
            }
            for m in moves
        ],
        "merges": [
            {
                "identity": ref(m.author),
                "into_before": ref(m.into_before),
                "into_after": ref(m.into_after),
            }
            for m in merges
        ],
        "fields": edit.changes.get("fields", {}),
        "pairs_added": edit.changes.get("pairs_added", []),
        "pairs_removed": edit.changes.get("pairs_removed", []),
        "reverted_by": list(edit.reverted_by.values_list("pk", flat=True)),
        "review": {
            "by": edit.reviewed_by.get_username(),
            "at": edit.reviewed_at.isoformat(),
            "note": edit.review_note,
        }
        if edit.reviewed_by
        else None,
    }
    user = request.user
    context = {
        "can_revert": user.has_perm("clusters.curate") and edit.status == Edit.Status.APPLIED,
        "can_review": user.has_perm("clusters.moderate")
        and edit.status == Edit.Status.PROPOSED
        and edit.editor_id != user.pk,
    }
    return respond(request, "clusters/change_detail.html", data, **context)


class ChangeFeed(Feed):
    feed_type = Atom1Feed
    title = "Arrow: changes to who wrote what"
    subtitle = "Splits, moves, merges, annotations and reverts, newest first."

    def link(self) -> str:
        return reverse("clusters:change-list")

    def items(self):
        return listed_changes().order_by("-pk")[:50]

    def item_title(self, item: Edit) -> str:
        where = f" in {item.cluster.name}" if item.cluster else ""
        return f"#{item.pk} {item.get_kind_display()}{where} by {item.editor.get_username()}"

    def item_description(self, item: Edit) -> str:
        return f"{item.reason} ({item.moved} authorships moved; {item.get_status_display()})"

    def item_pubdate(self, item: Edit):
        return item.created_at

    def item_author_name(self, item: Edit) -> str:
        return item.editor.get_username()
