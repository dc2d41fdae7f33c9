"""What moderators do: review proposals and reports, lock names; and what every
reader can do here: report a problem. Editors follow their own proposals."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.cache import cache
from django.core.mail import send_mail
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from ..forms import LockForm, NoteForm, ReportForm, RequiredNoteForm
from ..models import Author, Edit, EditConflict, EditMove, NameCluster, Paper, Report
from ..pagecache import pages_changed
from .changes import change_ref, listed_changes
from .data import respond

REPORTS_PER_HOUR = 5


def moderators_only(view):
    view = permission_required("clusters.moderate", raise_exception=True)(view)
    return login_required(view)


def conflicts(proposals: list[Edit]) -> dict[int, list[int]]:
    """For each pending proposal, the other pending proposals that move one of the
    same authorships (one query)."""
    by_authorship: dict[int, set[int]] = {}
    for edit_id, authorship_id in EditMove.objects.filter(
        edit__status=Edit.Status.PROPOSED,
        authorship__in=EditMove.objects.filter(edit__in=proposals).values("authorship"),
    ).values_list("edit_id", "authorship_id"):
        by_authorship.setdefault(authorship_id, set()).add(edit_id)
    found: dict[int, set[int]] = {}
    for edits in by_authorship.values():
        for edit_id in edits:
            found.setdefault(edit_id, set()).update(edits - {edit_id})
    return {edit_id: sorted(others) for edit_id, others in found.items()}


@moderators_only
@require_safe
def moderation_queue(request: HttpRequest) -> HttpResponse:
    notices: list[str] = []
    proposals = listed_changes().filter(status=Edit.Status.PROPOSED).order_by("created_at", "pk")
    kind = request.GET.get("kind") or None
    if kind in Edit.Kind.values:
        proposals = proposals.filter(kind=kind)
    elif kind:
        notices.append(f"“{kind[:40]}” is not a kind of change; showing every kind.")
        kind = None
    if slug := request.GET.get("cluster"):
        proposals = proposals.for_cluster(get_object_or_404(NameCluster, slug=slug))
    proposals = list(proposals[:200])
    clashes = conflicts(proposals)
    now = timezone.now()
    reports = Report.objects.open().select_related("cluster", "identity", "paper")[:200]
    waiting_in = (
        NameCluster.objects.filter(edits__status=Edit.Status.PROPOSED)
        .annotate(n=Count("edits"))
        .order_by("-n", "key")[:30]
    )
    data = {
        "clusters": [{"name": c.name, "slug": c.slug, "proposals": c.n} for c in waiting_in],
        "kind": kind,
        "cluster": slug,
        "proposals": [
            {
                **change_ref(edit),
                "waiting": timesince(edit.created_at, now),
                "conflicts": clashes.get(edit.pk, []),
            }
            for edit in proposals
        ],
        "reports": [report_ref(report, now) for report in reports],
        "kinds": Edit.Kind.values,
        "notices": notices,
    }
    return respond(request, "clusters/moderation.html", data)


def report_ref(report: Report, now) -> dict[str, Any]:
    subject = report.subject
    return {
        "id": report.pk,
        "text": report.text,
        "contact": report.contact,
        "waiting": timesince(report.created_at, now),
        "subject": {
            "name": str(subject),
            "url": subject.get_absolute_url(),
            "kind": type(subject).__name__,
        },
    }


def notify(edit: Edit) -> None:
    """Tell the editor what became of their proposal (console backend by default)."""
    if edit.editor.email:
        send_mail(
            f"Arrow: your proposal #{edit.pk} was {edit.status}",
            f"{edit.get_kind_display().capitalize()} proposed {edit.created_at:%Y-%m-%d}: "
            f"{edit.reason}\n\n{edit.status.capitalize()} by {edit.reviewed_by}: "
            f"{edit.review_note or '(no note)'}\n",
            None,
            [edit.editor.email],
        )


@moderators_only
@require_POST
def proposal_approve(request: HttpRequest, pk: int) -> HttpResponse:
    edit = get_object_or_404(Edit.objects.select_related("editor", "cluster"), pk=pk)
    form = NoteForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    try:
        edit.approve(request.user, note)
    except EditConflict as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Proposal #{edit.pk} approved and applied.")
    edit.refresh_from_db()
    if edit.status in (Edit.Status.APPLIED, Edit.Status.STALE):
        notify(edit)
    return redirect(edit)


@moderators_only
@require_POST
def proposal_reject(request: HttpRequest, pk: int) -> HttpResponse:
    edit = get_object_or_404(Edit.objects.select_related("editor"), pk=pk)
    form = RequiredNoteForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say why the proposal is rejected: the editor will read it.")
        return redirect(edit)
    try:
        edit.reject(request.user, form.cleaned_data["note"])
    except EditConflict as error:
        messages.error(request, str(error))
        return redirect(edit)
    notify(edit)
    messages.success(request, f"Proposal #{edit.pk} rejected.")
    return redirect("clusters:moderation")


@login_required
@require_safe
def my_proposals(request: HttpRequest) -> HttpResponse:
    mine = (
        listed_changes()
        .filter(editor=request.user)
        .select_related("reviewed_by")
        .order_by("-pk")[:200]
    )
    data = {
        "proposals": [
            {
                **change_ref(edit),
                "reviewed_by": edit.reviewed_by.get_username() if edit.reviewed_by else None,
                "review_note": edit.review_note,
            }
            for edit in mine
        ],
    }
    return respond(request, "clusters/my_proposals.html", data)


@moderators_only
@require_POST
def cluster_lock(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)
    form = LockForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say why the name is locked: readers and editors see it.")
    else:
        NameCluster.objects.filter(pk=cluster.pk).update(
            locked_by=request.user,
            locked_at=timezone.now(),
            lock_reason=form.cleaned_data["reason"],
        )
        pages_changed()
        messages.success(request, f"{cluster.name} is locked: no proposals until it is unlocked.")
    return redirect(cluster)


@moderators_only
@require_POST
def cluster_unlock(request: HttpRequest, slug: str) -> HttpResponse:
    cluster = get_object_or_404(NameCluster, slug=slug)
    NameCluster.objects.filter(pk=cluster.pk).update(locked_by=None, locked_at=None, lock_reason="")
    pages_changed()
    messages.success(request, f"{cluster.name} is unlocked.")
    return redirect(cluster)


@moderators_only
@require_POST
def report_handle(request: HttpRequest, pk: int) -> HttpResponse:
    report = get_object_or_404(Report, pk=pk, status=Report.Status.OPEN)
    status = request.POST.get("status")
    form = NoteForm(request.POST)
    if status not in (Report.Status.RESOLVED, Report.Status.DISMISSED) or not form.is_valid():
        messages.error(request, "Choose to resolve or to dismiss the report.")
        return redirect("clusters:moderation")
    Report.objects.filter(pk=report.pk).update(
        status=status,
        handled_by=request.user,
        handled_at=timezone.now(),
        note=form.cleaned_data["note"],
    )
    messages.success(request, f"Report #{report.pk} {status}.")
    return redirect("clusters:moderation")


def report_subject(params) -> dict[str, Any]:
    """The thing reported, from ?cluster=slug, ?identity=id or ?paper=id."""
    if slug := params.get("cluster"):
        return {"cluster": get_object_or_404(NameCluster, slug=slug)}
    for name, model in (("identity", Author), ("paper", Paper)):
        value = params.get(name, "")
        if value.isdigit():
            return {name: get_object_or_404(model, pk=value)}
    raise Http404("Say what the report is about.")


def client_address(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "")


@require_http_methods(["GET", "POST"])
def report_create(request: HttpRequest) -> HttpResponse:
    # The subject comes in the query string, or with the posted form.
    subject = report_subject(request.GET if request.GET else request.POST)
    (thing,) = subject.values()
    form = ReportForm(request.POST or None, initial={"started": ReportForm.stamp()})
    if request.method == "POST" and form.is_valid():
        key = f"arrow:reports:{client_address(request)}"
        cache.add(key, 0, timeout=3600)
        if cache.incr(key) > REPORTS_PER_HOUR:
            form.add_error(
                None,
                f"At most {REPORTS_PER_HOUR} reports an hour from one address: please try later.",
            )
        else:
            Report.objects.create(
                **subject,
                text=form.cleaned_data["text"],
                contact=form.cleaned_data["contact"],
                client=client_address(request) or None,
            )
            messages.success(request, "Thank you: the moderators will look at your report.")
            return redirect(thing)
    return render(
        request, "clusters/report_form.html", {"form": form, "thing": thing, "subject": subject}
    )
