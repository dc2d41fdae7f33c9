"""Papers, venues, author identities, authorships and name clusters.

An `Author` is one identity (one person, as far as Arrow knows); a `NameCluster` is one
name, casefolded, as the Arrow dump files it. Every `Authorship` keeps the name exactly
as printed on the paper and the cluster of that name, so the cluster pages and the
exporter can always find "every paper by someone with this name" whatever editors later
decide about who is who.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from django.conf import settings
from django.core.cache import cache
from django.db import models
from django.db.models import Count, Max, Min, OuterRef, Prefetch, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse

from .. import arrowfile, links

NAME_LENGTH = 500
SLUG_LENGTH = 80
VENUE_YEARS_CACHE_KEY = "arrow:venue-years"
FIGURES_CACHE_KEY = "arrow:corpus-figures"
# Keeps every IN (...) list far below SQLite's limit of 32,766 bound variables.
CHUNK = 2000


def chunked(items: Iterable, size: int = CHUNK) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def corpus_figures() -> dict[str, int]:
    """Totals for the front page. Cached: COUNT(*) over millions of rows is too slow to
    run on every request. The importer forgets them when it is done (four queries)."""

    def count() -> dict[str, int]:
        return {
            "papers": Paper.objects.count(),
            "identities": Author.objects.filter(merged_into=None).count(),
            "clusters": NameCluster.objects.count(),
            "venues": Venue.objects.count(),
        }

    return cache.get_or_set(FIGURES_CACHE_KEY, count, timeout=300)


def venue_years() -> dict[int, list[dict[str, int]]]:
    """Papers per venue and year, newest first, for the venue list. Cached like the
    figures: grouping a million papers takes 80 ms."""

    def group() -> dict[int, list[dict[str, int]]]:
        years: dict[int, list[dict[str, int]]] = {}
        for venue_id, year, count in (
            Paper.objects.values_list("venue_id", "year")
            .annotate(n=models.Count("pk"))
            .order_by("venue_id", "-year")
        ):
            years.setdefault(venue_id, []).append({"year": year, "papers": count})
        return years

    return cache.get_or_set(VENUE_YEARS_CACHE_KEY, group, timeout=300)


def forget_corpus_figures() -> None:
    cache.delete_many([FIGURES_CACHE_KEY, VENUE_YEARS_CACHE_KEY])


class Venue(models.Model):
    name = models.CharField(max_length=300)
    kind = models.CharField(max_length=100)  # Conference, Journal, Workshop, ...
    slug = models.SlugField(max_length=SLUG_LENGTH, allow_unicode=True)

    class Meta:
        ordering = ["name", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["name", "kind"], name="venue_unique_name_kind"),
            models.UniqueConstraint(fields=["slug"], name="venue_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.kind}"

    def get_absolute_url(self) -> str:
        return links.remembered("clusters:venue-detail", self.slug)


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
        indexes = [
            # Proceedings pages (one venue, one year) and the venue list's per-year counts.
            models.Index(fields=["venue", "year"], name="paper_venue_year_idx"),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return links.by_id("clusters:paper-detail", self.pk)

    @property
    def venue_line(self) -> str:
        return arrowfile.venue_line(self.venue.name, self.venue.kind, self.year, self.paper_type)

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

    def named(self, text: str, limit: int = 10) -> NameClusterQuerySet:
        """Clusters whose name is this text, in any case, with or without diacritics
        or a dblp number: the names a search for "cedric renggli" should offer."""
        return self.filter(
            models.Q(key=arrowfile.name_key(text)) | models.Q(folded_key=arrowfile.folded_key(text))
        ).order_by("-paper_count", "key")[:limit]

    def ambiguous(self) -> NameClusterQuerySet:
        """Clusters a curator should look at: the source held several author records
        under the name, or several spellings or identities share it here."""
        return self.filter(
            models.Q(source_author_rows__gt=1)
            | models.Q(spelling_count__gt=1)
            | models.Q(identity_count__gt=1)
        )

    def refresh_stats(self) -> int:
        """Recount papers, identities, spellings and years from the authorships, in one
        UPDATE; call it whenever authorships of these clusters are added or moved."""
        of_cluster = Authorship.objects.filter(cluster=OuterRef("pk")).order_by().values("cluster")

        def aggregate(expression) -> Coalesce:
            return Coalesce(Subquery(of_cluster.annotate(value=expression).values("value")), 0)

        return self.update(
            paper_count=aggregate(Count("paper", distinct=True)),
            identity_count=aggregate(Count("author", distinct=True)),
            spelling_count=aggregate(Count("name_as_printed", distinct=True)),
            first_year=aggregate(Min("paper__year")),
            last_year=aggregate(Max("paper__year")),
        )


class NameCluster(models.Model):
    key = models.CharField(max_length=NAME_LENGTH)  # arrowfile.name_key() of the name
    name = models.CharField(max_length=NAME_LENGTH)  # as the cluster's own file writes it
    slug = models.SlugField(max_length=SLUG_LENGTH, allow_unicode=True)
    folded_key = models.CharField(max_length=NAME_LENGTH)  # arrowfile.folded_key()
    initials_key = models.CharField(max_length=NAME_LENGTH)  # arrowfile.initials_key()
    # What the imported file stated; null while no file of this name has been imported
    # (the name was only seen in other files' bylines).
    source_papers = models.PositiveIntegerField(null=True, blank=True)
    source_author_rows = models.PositiveIntegerField(null=True, blank=True)
    # Kept by refresh_stats(), so that lists filter and sort without aggregating.
    paper_count = models.PositiveIntegerField(default=0)
    identity_count = models.PositiveIntegerField(default=0)
    spelling_count = models.PositiveIntegerField(default=0)
    first_year = models.PositiveSmallIntegerField(default=0)
    last_year = models.PositiveSmallIntegerField(default=0)
    # Editors have split or moved papers of this name: papers that arrive later wait
    # as unassigned instead of joining one of its people silently.
    is_curated = models.BooleanField(default=False)
    # Moderators lock a name that is being fought over: no proposals while locked.
    locked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    locked_at = models.DateTimeField(null=True, blank=True)
    lock_reason = models.CharField(max_length=300, blank=True)
    # From the newest split suggestion (clusters.models.suggesting): how many people the
    # name seems to hold, and the ambiguity dashboard's ranking. Null: not scored yet.
    suggested_people = models.PositiveIntegerField(null=True, blank=True)
    uncertain_papers = models.PositiveIntegerField(default=0)
    ambiguity = models.FloatField(default=0)
    ambiguity_scored_at = models.DateTimeField(null=True, blank=True)

    objects = NameClusterQuerySet.as_manager()

    class Meta:
        ordering = ["key"]
        constraints = [
            models.UniqueConstraint(fields=["key"], name="namecluster_unique_key"),
            models.UniqueConstraint(fields=["slug"], name="namecluster_unique_slug"),
        ]
        indexes = [
            # Related clusters: spellings with and without diacritics or a dblp number.
            models.Index(fields=["folded_key"], name="namecluster_folded_idx"),
            # Related clusters: the expansions of an initial form ("H. Tang").
            models.Index(fields=["initials_key"], name="namecluster_initials_idx"),
            # The cluster list sorted by papers, and the front page's largest clusters.
            models.Index(fields=["-paper_count", "key"], name="namecluster_papers_idx"),
            # The cluster list sorted by identities.
            models.Index(fields=["-identity_count", "key"], name="namecluster_identities_idx"),
            # The cluster list sorted by most recent paper.
            models.Index(fields=["-last_year", "key"], name="namecluster_recent_idx"),
            # The ambiguity dashboard, worst first.
            models.Index(fields=["-ambiguity", "key"], name="namecluster_ambiguity_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("clusters:cluster-detail", args=[self.slug])

    @property
    def is_ambiguous(self) -> bool:
        return (self.source_author_rows or 0) > 1 or max(
            self.spelling_count, self.identity_count
        ) > 1

    def related(self, limit: int = 50) -> list[NameCluster]:
        """Other clusters of the same name: with or without diacritics or a dblp number,
        its initial form ("H. Tang"), or, for an initial form, its expansions. One query."""
        related = models.Q(folded_key=self.folded_key) | models.Q(folded_key=self.initials_key)
        if self.folded_key == self.initials_key:
            related |= models.Q(initials_key=self.folded_key)
        return list(
            NameCluster.objects.filter(related)
            .exclude(pk=self.pk)
            .exclude(folded_key="")
            .order_by("-paper_count", "key")[:limit]
        )

    def suggestions(self):
        """Likely people among this name's papers, with evidence (cached)."""
        from .suggesting import cluster_suggestions

        return cluster_suggestions(self)

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
        blocks = sorted(
            ((paper.to_block(), paper) for paper in papers),
            key=lambda pair: arrowfile.sort_key(pair[0]),
        )
        identities = {
            authorship.author_id
            for _, paper in blocks
            for authorship in paper.authorships.all()
            if authorship.cluster_id == self.pk and authorship.author_id is not None
        }
        return arrowfile.ClusterFile(
            name=self.name,
            papers=tuple(block for block, _ in blocks),
            author_rows=len(identities),
        )


class Author(models.Model):
    """One identity. Merged-away identities stay, pointing at the one they became, so
    that their pages redirect; identities emptied by a split or a move stay too."""

    name = models.CharField(max_length=NAME_LENGTH)  # display name, with its dblp number
    name_key = models.CharField(max_length=NAME_LENGTH)  # key of the cluster it began in
    base_key = models.CharField(max_length=NAME_LENGTH)  # name_key of the name less its number
    dblp_number = models.PositiveSmallIntegerField(null=True, blank=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )
    # The split that made this identity; null for identities the importer made.
    created_by = models.ForeignKey(
        "clusters.Edit",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="created_identities",
    )
    # What editors say about the person (changed through Edit.annotate only).
    label = models.CharField(max_length=200, blank=True)
    affiliation = models.CharField(max_length=300, blank=True)
    orcid = models.CharField(max_length=19, blank=True)
    homepage = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["name_key", "pk"]
        constraints = [
            # Numbers given to split-off identities are never given twice; two splits of
            # one name at once: one of them fails instead of sharing a number.
            models.UniqueConstraint(
                fields=["base_key", "dblp_number"],
                condition=models.Q(created_by__isnull=False),
                name="author_unique_new_number",
            ),
        ]
        indexes = [
            # The importer's "which identity holds this exact printed name?" lookup.
            models.Index(fields=["name"], name="author_name_idx"),
            # The next free dblp-style number of a name, for a split.
            models.Index(fields=["base_key", "dblp_number"], name="author_number_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return links.by_id("clusters:author-detail", self.pk)

    @property
    def is_live(self) -> bool:
        return self.merged_into_id is None

    def live_identity(self) -> Author:
        """The identity this one was merged into, through chains (a query per hop)."""
        author, seen = self, {self.pk}
        while author.merged_into_id is not None and author.merged_into_id not in seen:
            seen.add(author.merged_into_id)
            author = Author.objects.get(pk=author.merged_into_id)
        return author


class Authorship(models.Model):
    # No index of its own: the (paper, position) constraint serves lookups by paper.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    # Written by Edit.apply() only, and by the importer for new papers. Null while a
    # paper that arrived after editors split the name waits in the cluster's
    # "unassigned" list.
    author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.PROTECT, related_name="authorships"
    )
    # The cluster of `name_as_printed`; both are fixed once imported.
    cluster = models.ForeignKey(NameCluster, on_delete=models.PROTECT, related_name="authorships")
    position = models.PositiveIntegerField()  # 1-based byline order
    name_as_printed = models.CharField(max_length=NAME_LENGTH)
    # The change that put this authorship with its identity; null: imported as printed.
    placed_by = models.ForeignKey(
        "clusters.Edit",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
    )

    class Meta:
        ordering = ["paper", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "position"], name="authorship_unique_paper_position"
            ),
        ]
        indexes = [
            # An identity's co-authors: the authorships of its papers, read for their
            # identity alone. Covering it cuts a third to a half off that query for the
            # most prolific identities at a million on SQLite; imports take 7% longer.
            models.Index(fields=["paper", "author"], name="authorship_paper_author_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name_as_printed} on paper {self.paper_id} (#{self.position})"
