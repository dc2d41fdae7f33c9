"""What editors do: split, move, merge, record different people, annotate, revert.

Each action is one view: GET previews exactly what would change (a plan, unsaved),
POST applies it (Edit.apply(), one transaction) and redirects to the change. Bad input
or a stale page gives the cluster page back with a message; nothing is changed."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from .. import arrowfile
from ..forms import AnnotateForm, MergeForm, ReasonForm
from ..models import Author, Authorship, Edit, EditConflict, NameCluster

PREVIEWED_MOVES = 200
# Makes the plan of an action from its parameters: (plan, page title, template extras).
Planner = Callable[[QueryDict, Any], tuple[Edit, str, dict]]


def can_edit(user) -> bool:
    """Editors propose, moderators change directly; both use the same pages."""
    return user.is_authenticated and (
        user.has_perm("clusters.propose") or user.has_perm("clusters.curate")
    )


def editors_only(view):
    """Anonymous users go to the login page; users without a role get 403."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_edit(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return login_required(require_http_methods(["GET", "POST"])(checked))


def moderators_only(view):
    view = permission_required("clusters.curate", raise_exception=True)(view)
    return login_required(require_http_methods(["GET", "POST"])(view))


def parse_picks(params: QueryDict) -> list[tuple[int, int | None]]:
    """The chosen papers, as posted: "authorship:identity" ("12:" when unassigned)."""
    picks = []
    for value in params.getlist("a"):
        authorship, _, author = value.partition(":")
        if not authorship.isdigit() or not (author.isdigit() or author == ""):
            raise EditConflict(f"“{value[:40]}” is not a paper choice this site makes.")
        picks.append((int(authorship), int(author) if author else None))
    return picks


def chosen_identities(params: QueryDict, key: str = "i") -> list[Author]:
    ids = [value for value in params.getlist(key) if value.isdigit()]
    if len(ids) != len(params.getlist(key)):
        raise EditConflict("That is not a choice of identities this site makes.")
    found = list(Author.objects.filter(pk__in=ids).order_by("pk"))
    if len(found) != len(set(ids)):
        raise EditConflict("One of the chosen identities does not exist.")
    return found


def preview(plan: Edit) -> dict[str, Any]:
    """Which identity ends up with how many papers, and which papers move where."""
    moves = plan.planned_moves
    ids = {m.from_author_id for m in moves} | {m.to_author_id for m in moves} | {plan.target_id}
    ids.discard(None)
    names = dict(Author.objects.filter(pk__in=ids).values_list("pk", "name"))
    before = dict(
        Authorship.objects.filter(author_id__in=ids)
        .values("author_id")
        .annotate(n=Count("pk"))
        .values_list("author_id", "n")
    )
    titles = dict(
        Authorship.objects.filter(
            pk__in=[m.authorship_id for m in moves[:PREVIEWED_MOVES]]
        ).values_list("pk", "paper__title")
    )
    new_name = None
    if plan.kind == Edit.Kind.SPLIT:
        base, _ = arrowfile.split_dblp_number(plan.cluster.name)
        new_name = f"a new identity, {base} with the next free number"
    flows: dict[tuple, list[str]] = defaultdict(list)
    change: dict[int | None, int] = defaultdict(int)
    for move in moves:
        flows[(move.from_author_id, move.to_author_id)].append(titles.get(move.authorship_id, ""))
        change[move.from_author_id] -= 1
        change[move.to_author_id] += 1

    def label(pk: int | None, side: str) -> str:
        if pk is None:
            return new_name if (side == "to" and new_name) else "unassigned"
        return f"{names.get(pk, '?')} (#{pk})"

    return {
        "flows": [
            {
                "from": label(source, "from"),
                "to": label(target, "to"),
                "count": len(listed),
                "titles": [title for title in listed if title],
                "more": len(listed) - len([t for t in listed if t]),
            }
            for (source, target), listed in flows.items()
        ],
        "identities": [
            {
                "name": label(pk, "to"),
                "before": before.get(pk, 0),
                "after": before.get(pk, 0) + change.get(pk, 0),
            }
            for pk in sorted(
                ids | ({None} if None in change and new_name else set()),
                key=lambda pk: (pk is None, pk or 0),
            )
        ],
        "moves": len(moves),
    }


def confirm(
    request: HttpRequest, plan: Edit, form, title: str, back: str, **extra: Any
) -> HttpResponse:
    return render(
        request,
        "clusters/edit_confirm.html",
        {
            "plan": plan,
            "preview": preview(plan),
            "form": form,
            "title": title,
            "back": back,
            **extra,
        },
    )


def carry_out(request: HttpRequest, plan: Edit, reason: str, back: str) -> HttpResponse:
    """A moderator's change applies now; an editor's waits for a moderator."""
    plan.reason = reason
    try:
        edit = plan.submit()
    except EditConflict as error:
        messages.error(request, str(error))
        return redirect(back)
    if edit.status == Edit.Status.APPLIED:
        messages.success(request, f"{edit} applied. It can be reverted from this page.")
    else:
        messages.success(
            request, f"Proposal #{edit.pk} is waiting for a moderator; nothing changed yet."
        )
    return redirect(edit)


def refused(request: HttpRequest, error: Exception, back: str) -> HttpResponse:
    messages.error(request, " ".join(getattr(error, "messages", [str(error)])))
    return redirect(back)


def act(request: HttpRequest, back: str, planner: Planner, form_class=ReasonForm) -> HttpResponse:
    """The shape of every action: plan from the query string (GET) or the form (POST),
    refuse with a message, preview on GET or on an invalid form, apply on a valid POST."""
    params = request.POST if request.method == "POST" else request.GET
    form = form_class(request.POST or None)
    try:
        plan, title, extra = planner(params, form)
    except EditConflict as error:
        return refused(request, error, back)
    if request.method == "POST" and form.is_valid():
        return carry_out(request, plan, form.cleaned_data["reason"], back)
    return confirm(request, plan, form, title, back, **extra)


@editors_only
def cluster_split(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)

    def planner(params: QueryDict, form) -> tuple[Edit, str, dict]:
        plan = Edit.plan_split(
            editor=request.user, reason="", cluster=cluster, picks=parse_picks(params)
        )
        title = f"Split papers of {cluster.name} into a new identity"
        return plan, title, {"picks": params.getlist("a")}

    return act(request, cluster.get_absolute_url(), planner)


@editors_only
def cluster_move(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)

    def planner(params: QueryDict, form) -> tuple[Edit, str, dict]:
        targets = chosen_identities(params, "to")
        if len(targets) != 1:
            raise EditConflict("Choose the identity the papers should move to.")
        (target,) = targets
        plan = Edit.plan_move(
            editor=request.user,
            reason="",
            cluster=cluster,
            picks=parse_picks(params),
            target=target,
        )
        title = f"Move papers of {cluster.name} to {target} (#{target.pk})"
        return plan, title, {"picks": params.getlist("a"), "to": target.pk}

    return act(request, cluster.get_absolute_url(), planner)


@editors_only
def cluster_merge(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)

    def planner(params: QueryDict, form) -> tuple[Edit, str, dict]:
        identities = chosen_identities(params)
        if len(identities) < 2:
            raise EditConflict("Choose two identities or more to merge.")
        # Kept: the one chosen, else the one with the most papers.
        into = next((a for a in identities if str(a.pk) == params.get("into")), None) or max(
            identities, key=lambda a: (a.authorships.count(), -a.pk)
        )
        override = form.is_bound and form.is_valid() and form.cleaned_data["override_distinct"]
        plan = Edit.plan_merge(
            editor=request.user,
            reason="",
            identities=identities,
            into=into,
            cluster=cluster,
            override_distinct=bool(override),
        )
        title = f"Merge {len(identities)} identities into {into} (#{into.pk})"
        return plan, title, {"identities": identities, "into": into}

    return act(request, cluster.get_absolute_url(), planner, MergeForm)


@editors_only
def cluster_distinct(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)

    def planner(params: QueryDict, form) -> tuple[Edit, str, dict]:
        identities = chosen_identities(params)
        plan = Edit.plan_distinct(
            editor=request.user, reason="", identities=identities, cluster=cluster
        )
        names = ", ".join(f"{a} (#{a.pk})" for a in identities)
        return plan, f"Record {names} as different people", {"identities": identities}

    return act(request, cluster.get_absolute_url(), planner)


@editors_only
def author_annotate(request: HttpRequest, pk: int) -> HttpResponse:
    author = get_object_or_404(Author, pk=pk, merged_into=None)
    initial = {
        name: getattr(author, name) for name in ("label", "affiliation", "orcid", "homepage")
    }
    form = AnnotateForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        values = {name: form.cleaned_data[name] for name in initial}
        try:
            plan = Edit.plan_annotate(
                editor=request.user, reason="", identity=author, values=values
            )
        except (EditConflict, ValidationError) as error:
            form.add_error(None, " ".join(getattr(error, "messages", [str(error)])))
        else:
            return carry_out(request, plan, form.cleaned_data["reason"], author.get_absolute_url())
    return render(request, "clusters/annotate.html", {"author": author, "form": form})


@moderators_only
def change_revert(request: HttpRequest, pk: int) -> HttpResponse:
    edit = get_object_or_404(Edit.objects.select_related("cluster", "target", "editor"), pk=pk)

    def planner(params: QueryDict, form) -> tuple[Edit, str, dict]:
        return (
            edit.plan_revert(editor=request.user, reason=""),
            f"Revert {edit}",
            {"reverting": edit},
        )

    return act(request, edit.get_absolute_url(), planner)
