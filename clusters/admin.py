"""The staff's repair tool. Identity changes made here go through the same Edit
path as the site's pages (plan, apply, audited, revertible): the admin shows the
structure of identities read-only and offers actions instead."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from .forms import ReasonForm
from .models import (
    ANNOTATIONS,
    Author,
    Authorship,
    DistinctPair,
    Edit,
    EditConflict,
    EditMerge,
    EditMove,
    NameCluster,
    Paper,
    Report,
    Venue,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only the importer and Edit.apply() write."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Venue)
class VenueAdmin(ReadOnlyAdmin):
    list_display = ["name", "kind", "slug"]
    search_fields = ["name", "slug"]
    list_filter = ["kind"]


@admin.register(Paper)
class PaperAdmin(ReadOnlyAdmin):
    list_display = ["title", "venue", "year", "paper_type"]
    list_select_related = ["venue"]
    search_fields = ["title", "fingerprint"]
    list_filter = ["year", "venue"]


@admin.register(NameCluster)
class NameClusterAdmin(ReadOnlyAdmin):
    list_display = ["name", "key", "paper_count", "identity_count", "spelling_count", "is_curated"]
    search_fields = ["key", "name", "slug"]
    list_filter = ["is_curated"]


@admin.register(Authorship)
class AuthorshipAdmin(ReadOnlyAdmin):
    list_display = ["name_as_printed", "paper", "position", "author", "placed_by"]
    list_select_related = ["paper", "author", "placed_by"]
    search_fields = ["name_as_printed", "paper__title"]
    raw_id_fields = ["paper", "author", "cluster", "placed_by"]


class AnnotateAdminForm(forms.ModelForm):
    homepage = forms.URLField(max_length=500, required=False, assume_scheme="https")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why: annotations are changes, recorded and revertible like any other.",
    )

    class Meta:
        model = Author
        fields = [*ANNOTATIONS]


class MergeActionForm(ReasonForm):
    into = forms.ModelChoiceField(queryset=Author.objects.none(), label="Keep as")


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    form = AnnotateAdminForm
    list_display = ["name", "id", "merged_into", "label", "affiliation", "dblp_number"]
    list_select_related = ["merged_into"]
    search_fields = ["name", "name_key", "label", "orcid"]
    list_filter = [("merged_into", admin.EmptyFieldListFilter)]
    readonly_fields = ["name", "name_key", "dblp_number", "merged_into", "created_by"]
    actions = ["merge_identities"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Author, form, change: bool) -> None:
        """Annotations go through Edit.plan_annotate(), never a plain save()."""
        values = {name: form.cleaned_data[name] for name in ANNOTATIONS}
        current = Author.objects.get(pk=obj.pk)
        try:
            Edit.plan_annotate(
                editor=request.user,
                reason=form.cleaned_data["reason"],
                identity=current,
                values=values,
            ).submit()
        except (EditConflict, ValidationError) as error:
            self.message_user(
                request, " ".join(getattr(error, "messages", [str(error)])), messages.ERROR
            )

    @admin.action(description="Merge the selected identities…", permissions=["change"])
    def merge_identities(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        form = MergeActionForm(request.POST if "apply" in request.POST else None)
        form.fields["into"].queryset = queryset
        if form.is_bound and form.is_valid():
            try:
                edit = Edit.plan_merge(
                    editor=request.user,
                    reason=form.cleaned_data["reason"],
                    identities=list(queryset),
                    into=form.cleaned_data["into"],
                ).submit()
            except EditConflict as error:
                self.message_user(request, str(error), messages.ERROR)
                return None
            self.message_user(request, f"{edit}: {edit.get_status_display()}.")
            return None
        return TemplateResponse(
            request,
            "admin/clusters/curation_action.html",
            {
                **self.admin_site.each_context(request),
                "title": "Merge identities",
                "form": form,
                "objects": queryset,
                "action": "merge_identities",
                "opts": self.model._meta,
            },
        )


@admin.register(Edit)
class EditAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "editor", "cluster", "target", "created_at"]
    list_select_related = ["editor", "cluster", "target"]
    list_filter = ["kind", "status", "created_at"]
    search_fields = ["reason", "editor__username", "cluster__name"]
    readonly_fields = [field.name for field in Edit._meta.fields]
    actions = ["revert_changes"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_revert_permission(self, request: HttpRequest) -> bool:
        """Reverting is for moderators, in the admin as on the site."""
        return request.user.has_perm("clusters.curate")

    @admin.action(description="Revert the selected changes…", permissions=["revert"])
    def revert_changes(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            # Newest first, so that a change is undone before those it built on.
            for edit in queryset.order_by("-pk"):
                try:
                    revert = edit.plan_revert(
                        editor=request.user, reason=form.cleaned_data["reason"]
                    ).apply()
                except EditConflict as error:
                    self.message_user(request, str(error), messages.ERROR)
                else:
                    self.message_user(request, f"{edit} reverted by {revert}.")
            return None
        return TemplateResponse(
            request,
            "admin/clusters/curation_action.html",
            {
                **self.admin_site.each_context(request),
                "title": "Revert changes",
                "form": form,
                "objects": queryset,
                "action": "revert_changes",
                "opts": self.model._meta,
            },
        )


@admin.register(DistinctPair)
class DistinctPairAdmin(ReadOnlyAdmin):
    list_display = ["first", "second", "edit"]
    list_select_related = ["first", "second", "edit"]
    search_fields = ["first__name", "second__name"]
    raw_id_fields = ["first", "second", "edit"]


@admin.register(EditMove)
class EditMoveAdmin(ReadOnlyAdmin):
    list_display = ["edit", "authorship", "from_author", "to_author"]
    list_select_related = ["edit", "authorship", "from_author", "to_author"]
    list_filter = ["edit__kind"]
    search_fields = ["authorship__name_as_printed", "authorship__paper__title"]
    raw_id_fields = [
        "edit",
        "authorship",
        "from_author",
        "to_author",
        "placed_by_before",
        "placed_by_after",
    ]


@admin.register(EditMerge)
class EditMergeAdmin(ReadOnlyAdmin):
    list_display = ["edit", "author", "into_before", "into_after"]
    list_select_related = ["edit", "author", "into_before", "into_after"]
    list_filter = ["edit__status"]
    search_fields = ["author__name"]
    raw_id_fields = ["edit", "author", "into_before", "into_after"]


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """Reports are handled in the moderation queue; the admin can search them all."""

    list_display = ["id", "status", "cluster", "identity", "paper", "created_at", "handled_by"]
    list_select_related = ["cluster", "identity", "paper", "handled_by"]
    list_filter = ["status", "created_at"]
    search_fields = ["text", "contact", "note"]
    readonly_fields = ["cluster", "identity", "paper", "text", "contact", "client", "created_at"]
    raw_id_fields = ["handled_by"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
