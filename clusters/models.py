"""Papers, venues, author identities, authorships and name clusters.

An `Author` is one identity (one person, as far as Arrow knows); a `NameCluster` is one
name, casefolded, as the Arrow dump files it. Every `Authorship` keeps the name exactly
as printed on the paper and the cluster of that name, so the cluster pages and the
exporter can always find "every paper by someone with this name" whatever editors later
decide about who is who.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Prefetch

from . import arrowfile

NAME_LENGTH = 500
SLUG_LENGTH = 80


class Venue(models.Model):
    name = models.CharField(max_length=300)
    kind = models.CharField(max_length=100)  # Conference, Journal, Workshop, ...

    class Meta:
        ordering = ["name", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["name", "kind"], name="venue_unique_name_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class Paper(models.Model):
    venue = models.ForeignKey(Venue, on_delete=models.PROTECT, related_name="papers")
    year = models.PositiveSmallIntegerField()
    paper_type = models.CharField(max_length=100, blank=True)
    title = models.TextField()
    abstract = models.TextField(blank=True)  # paragraphs joined by "\n", exactly as imported
    has_pdf = models.BooleanField(default=False)
    has_doi = models.BooleanField(default=False)
    fingerprint = models.CharField(max_length=40)

    class Meta:
        constraints = [
            # Also the index of the importer's "which of these papers do we know?" query.
            models.UniqueConstraint(fields=["fingerprint"], name="paper_unique_fingerprint"),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.venue.name} {self.year})"

    @property
    def abstract_paragraphs(self) -> list[str]:
        return self.abstract.split("\n") if self.abstract else []

    def to_block(self) -> arrowfile.PaperBlock:
        """The paper as the format writes it; needs `venue` and `authorships` loaded."""
        return arrowfile.PaperBlock(
            venue=self.venue.name,
            venue_kind=self.venue.kind,
            year=self.year,
            paper_type=self.paper_type,
            title=self.title,
            authors=tuple(a.name_as_printed for a in self.authorships.all()),
            abstract=tuple(self.abstract_paragraphs),
            has_pdf=self.has_pdf,
            has_doi=self.has_doi,
        )


class NameClusterQuerySet(models.QuerySet):
    def for_names(self, names: list[str]) -> NameClusterQuerySet:
        """The clusters of these names, matched by key or by slug."""
        keys = [arrowfile.name_key(name) for name in names]
        return self.filter(models.Q(key__in=keys) | models.Q(slug__in=names))


class NameCluster(models.Model):
    key = models.CharField(max_length=NAME_LENGTH)  # arrowfile.name_key() of the name
    name = models.CharField(max_length=NAME_LENGTH)  # as the cluster's own file writes it
    slug = models.SlugField(max_length=SLUG_LENGTH, allow_unicode=True)
    # What the imported file stated; null while no file of this name has been imported
    # (the name was only seen in other files' bylines).
    source_papers = models.PositiveIntegerField(null=True, blank=True)
    source_author_rows = models.PositiveIntegerField(null=True, blank=True)

    objects = NameClusterQuerySet.as_manager()

    class Meta:
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(fields=["key"], name="namecluster_unique_key"),
            models.UniqueConstraint(fields=["slug"], name="namecluster_unique_slug"),
        ]

    def __str__(self) -> str:
        return self.name

    def to_arrowfile(self) -> arrowfile.ClusterFile:
        """The cluster as a file of the dump. Two queries: papers with venues, authorships."""
        papers = (
            Paper.objects.filter(pk__in=Authorship.objects.filter(cluster=self).values("paper_id"))
            .select_related("venue")
            .prefetch_related(
                Prefetch(
                    "authorships",
                    queryset=Authorship.objects.order_by("position").only(
                        "paper_id", "author_id", "cluster_id", "name_as_printed"
                    ),
                )
            )
            .order_by("pk")
        )
        # Sorted here, not in SQL: the format orders titles by code point, and
        # PostgreSQL's collation would not.
        papers = sorted(papers, key=lambda paper: arrowfile.sort_key(paper.to_block()))
        identities = {
            authorship.author_id
            for paper in papers
            for authorship in paper.authorships.all()
            if authorship.cluster_id == self.pk
        }
        return arrowfile.ClusterFile(
            name=self.name,
            papers=tuple(paper.to_block() for paper in papers),
            author_rows=len(identities),
        )


class Author(models.Model):
    """One identity. Merged-away identities stay, pointing at the one they became."""

    name = models.CharField(max_length=NAME_LENGTH)  # display name, with its dblp number
    name_key = models.CharField(max_length=NAME_LENGTH)  # the NameCluster.key of `name`
    dblp_number = models.PositiveSmallIntegerField(null=True, blank=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )

    class Meta:
        ordering = ["name_key", "pk"]
        indexes = [
            # The importer's "which identity holds this exact printed name?" lookup.
            models.Index(fields=["name"], name="author_name_idx"),
            # "The identities of this cluster", for the cluster page.
            models.Index(fields=["name_key"], name="author_name_key_idx"),
        ]

    def __str__(self) -> str:
        return self.name


class Authorship(models.Model):
    # No index of its own: the (paper, position) constraint serves lookups by paper.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="authorships")
    # The cluster of `name_as_printed`; both are fixed once imported.
    cluster = models.ForeignKey(NameCluster, on_delete=models.PROTECT, related_name="authorships")
    position = models.PositiveIntegerField()  # 1-based byline order
    name_as_printed = models.CharField(max_length=NAME_LENGTH)

    class Meta:
        ordering = ["paper", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "position"], name="authorship_unique_paper_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name_as_printed} on paper {self.paper_id} (#{self.position})"
