"""One FilterSet per list page. Every text filter states its lookup."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, Q, QuerySet

from . import arrowfile
from .models import Authorship, NameCluster, Paper, Venue

YEAR = {"min_value": 1000, "max_value": 9999}


class NameKeyFilter(django_filters.CharFilter):
    """Matches against NameCluster.key, folding the value the way keys are folded."""

    def filter(self, qs: QuerySet, value: str) -> QuerySet:
        return super().filter(qs, arrowfile.name_key(value) if value else value)


class PaperRangeMixin:
    """Venue and year range filter together, so that one paper must satisfy both."""

    paper_fields = ("venue", "year_from", "year_to")

    def paper_conditions(self) -> Q | None:
        data = self.form.cleaned_data
        conditions = Q()
        if data.get("venue"):
            conditions &= Q(venue=data["venue"])
        if data.get("year_from") is not None:
            conditions &= Q(year__gte=data["year_from"])
        if data.get("year_to") is not None:
            conditions &= Q(year__lte=data["year_to"])
        return conditions or None


class ClusterFilter(PaperRangeMixin, django_filters.FilterSet):
    name = NameKeyFilter(field_name="key", lookup_expr="contains", label="Name contains")
    starts = NameKeyFilter(field_name="key", lookup_expr="startswith", label="Name starts with")
    min_papers = django_filters.NumberFilter(
        field_name="paper_count", lookup_expr="gte", label="At least this many papers", min_value=1
    )
    ambiguous = django_filters.BooleanFilter(
        method="filter_ambiguous",
        label="Only names that may hold several people",
        widget=forms.CheckboxInput,
    )
    venue = django_filters.ModelChoiceFilter(
        queryset=Venue.objects.all(),
        to_field_name="slug",
        method="filter_papers",
        label="With a paper at",
    )
    year_from = django_filters.NumberFilter(method="filter_papers", label="From year", **YEAR)
    year_to = django_filters.NumberFilter(method="filter_papers", label="To year", **YEAR)

    class Meta:
        model = NameCluster
        fields: list[str] = []

    def filter_ambiguous(self, qs: QuerySet, name: str, value: bool) -> QuerySet:
        return qs.ambiguous() if value else qs

    def filter_papers(self, qs: QuerySet, name: str, value: object) -> QuerySet:
        return qs  # applied once, for all three, in filter_queryset

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        queryset = super().filter_queryset(queryset)
        conditions = self.paper_conditions()
        if conditions is None:
            return queryset
        papers = Paper.objects.filter(conditions)
        return queryset.filter(
            Exists(Authorship.objects.filter(cluster=OuterRef("pk"), paper__in=papers))
        )


class AmbiguityFilter(django_filters.FilterSet):
    """The ambiguity dashboard's filters; it always sorts worst first."""

    name = NameKeyFilter(field_name="key", lookup_expr="contains", label="Name contains")
    min_papers = django_filters.NumberFilter(
        field_name="paper_count", lookup_expr="gte", label="At least this many papers", min_value=1
    )
    min_people = django_filters.NumberFilter(
        field_name="suggested_people",
        lookup_expr="gte",
        label="At least this many suggested people",
        min_value=1,
    )
    curated = django_filters.ChoiceFilter(
        method="filter_curated",
        label="Curated",
        choices=[("no", "not yet curated"), ("yes", "already curated")],
        empty_label="either",
    )
    several_rows = django_filters.BooleanFilter(
        method="filter_several_rows",
        label="Only names the source held as several author rows",
        widget=forms.CheckboxInput,
    )

    class Meta:
        model = NameCluster
        fields: list[str] = []

    def filter_curated(self, qs: QuerySet, name: str, value: str) -> QuerySet:
        return qs.filter(is_curated=value == "yes") if value else qs

    def filter_several_rows(self, qs: QuerySet, name: str, value: bool) -> QuerySet:
        return qs.filter(source_author_rows__gt=1) if value else qs


class PaperFilter(django_filters.FilterSet):
    venue = django_filters.ModelChoiceFilter(
        queryset=Venue.objects.all(), to_field_name="slug", label="Venue"
    )
    year_from = django_filters.NumberFilter(
        field_name="year", lookup_expr="gte", label="From year", **YEAR
    )
    year_to = django_filters.NumberFilter(
        field_name="year", lookup_expr="lte", label="To year", **YEAR
    )
    type = django_filters.CharFilter(field_name="paper_type", lookup_expr="exact", label="Type")

    class Meta:
        model = Paper
        fields: list[str] = []
