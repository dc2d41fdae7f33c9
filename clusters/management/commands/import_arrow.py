"""python manage.py import_arrow PATH [PATH ...]: load cluster files of the Arrow dump.

A thin loop: parse (clusters.arrowfile) -> validate -> bulk write, one transaction per
file, so a rejected file leaves nothing behind and the other files still import.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, fields
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, models, transaction
from django.db.models import Max, Min
from django.utils.text import slugify
from tqdm import tqdm

from clusters import arrowfile, search
from clusters.arrowfile import ArrowFormatError, ClusterFile, PaperBlock
from clusters.models import (
    NAME_LENGTH,
    SLUG_LENGTH,
    Author,
    Authorship,
    NameCluster,
    Paper,
    Venue,
    forget_corpus_figures,
)
from clusters.models.bibliography import chunked
from clusters.pagecache import pages_changed

# A batch is written in one transaction: big enough that per-statement costs vanish,
# small enough that memory stays flat and the write lock is held for about a second.
BATCH_PAPERS = 10_000
BATCH_FILES = 2_000
REFRESH_RANGE = 20_000


def cluster_files(paths: list[Path]) -> Iterator[Path]:
    """Files as named, and every *.txt below a named directory, in a stable order."""
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".txt"):
                    yield Path(root) / name


@dataclass
class Tally:
    files: int = 0
    rejected: int = 0
    warnings: int = 0
    papers_new: int = 0
    papers_known: int = 0
    authors_new: int = 0
    clusters_new: int = 0
    authorships: int = 0

    def add(self, other: Tally) -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


VENUE_LIMIT = Venue._meta.get_field("name").max_length
KIND_LIMIT = Venue._meta.get_field("kind").max_length
TYPE_LIMIT = Paper._meta.get_field("paper_type").max_length


def check_storage_limits(cluster: ClusterFile) -> None:
    """Lengths the columns hold; raises before anything is written."""
    too_long(cluster.name, NAME_LENGTH, "cluster name", 3)
    for paper in cluster.papers:
        too_long(paper.venue, VENUE_LIMIT, "venue name", paper.line)
        too_long(paper.venue_kind, KIND_LIMIT, "venue kind", paper.line)
        too_long(paper.paper_type, TYPE_LIMIT, "paper type", paper.line)
        if max(map(len, paper.authors)) > NAME_LENGTH:
            longest = max(paper.authors, key=len)
            too_long(longest, NAME_LENGTH, "author name", paper.line)


def too_long(text: str, limit: int, what: str, line: int) -> None:
    if len(text) > limit:
        raise ArrowFormatError(line, f"{what} is {len(text)} characters long; at most {limit} fit")


class Loader:
    """Writes batches of parsed files into the database; call load() inside a transaction.

    A batch costs the same few statements however many files, papers and names it holds:
    lookups by chunks of keys, and rows written with executemany (SQLite) or COPY
    (PostgreSQL) under ids taken in advance, never through model instances. Cluster
    statistics are recounted once, at the end of the import (refresh_stats).
    """

    def __init__(self) -> None:
        # Venues are few and never change once created; ids are cached only after the
        # batch that created them committed (see commit_cache).
        self.venues: dict[tuple[str, str], int] = {}
        self.pending_venues: dict[tuple[str, str], int] = {}

    def commit_cache(self) -> None:
        self.venues.update(self.pending_venues)
        self.pending_venues.clear()

    def load(self, files: list[ClusterFile]) -> Tally:
        tally = Tally()
        # The first file that holds a paper gives its byline; later ones only repeat it.
        blocks: dict[str, PaperBlock] = {}
        for cluster in files:
            for paper in cluster.papers:
                blocks.setdefault(paper.fingerprint, paper)
        known: set[str] = set()
        for chunk in chunked(blocks):
            known.update(
                Paper.objects.filter(fingerprint__in=chunk).values_list("fingerprint", flat=True)
            )
        new_blocks = [block for fingerprint, block in blocks.items() if fingerprint not in known]
        tally.papers_known = sum(len(cluster.papers) for cluster in files) - len(new_blocks)
        tally.papers_new = len(new_blocks)
        names = {author for block in new_blocks for author in block.authors}
        clusters = self.clusters(files, names, tally)
        if not new_blocks:
            return tally
        author_ids = self.authors(names, tally)
        paper_ids = take_ids(Paper, len(new_blocks))
        insert(
            Paper,
            ["id", "venue_id", "year", "paper_type", "title", "abstract", "has_pdf", "has_doi",
             "fingerprint"],
            [
                (pk, self.venue_id(block.venue, block.venue_kind), block.year, block.paper_type,
                 block.title, "\n".join(block.abstract), block.has_pdf, block.has_doi,
                 block.fingerprint)
                for pk, block in zip(paper_ids, new_blocks, strict=True)
            ],
        )  # fmt: skip
        # A name that editors split has people to tell apart: its new papers wait,
        # unassigned, instead of joining one of them silently.
        authorships = [
            (
                paper_id,
                None if clusters[key].is_curated else author_ids[name],
                clusters[key].pk,
                position,
                name,
            )
            for paper_id, block in zip(paper_ids, new_blocks, strict=True)
            for position, name in enumerate(block.authors, start=1)
            for key in (arrowfile.name_key(name),)
        ]
        insert(
            Authorship,
            ["paper_id", "author_id", "cluster_id", "position", "name_as_printed"],
            authorships,
        )
        tally.authorships = len(authorships)
        search.index_papers(
            (pk, block.title, "\n".join(block.abstract), " ".join(block.authors))
            for pk, block in zip(paper_ids, new_blocks, strict=True)
        )
        return tally

    def venue_id(self, name: str, kind: str) -> int:
        key = (name, kind)
        if key not in self.venues and key not in self.pending_venues:
            venue = Venue.objects.filter(name=name, kind=kind).first()
            if venue is None:
                # "neurips" for the first NeurIPS, "neurips-workshop" for the next kind.
                (slug,) = unique_slugs(Venue, [name])
                if slug != slugify(name, allow_unicode=True):
                    (slug,) = unique_slugs(Venue, [f"{name} {kind}"])
                venue = Venue.objects.create(name=name, kind=kind, slug=slug)
            self.pending_venues[key] = venue.pk
        return self.venues.get(key) or self.pending_venues[key]

    def clusters(
        self, files: list[ClusterFile], names: set[str], tally: Tally
    ) -> dict[str, NameCluster]:
        """Clusters by key for these names; creates missing clusters and records what
        each file states about its own cluster."""
        wanted = {arrowfile.name_key(name): name for name in sorted(names)}
        stated = {
            arrowfile.name_key(cluster.name): (
                cluster.name,
                cluster.stated_papers,
                cluster.author_rows,
            )
            for cluster in files
        }
        wanted.update((key, name) for key, (name, _, _) in stated.items())
        existing = {}
        for chunk in chunked(wanted):
            existing.update(
                (row.key, row)
                for row in NameCluster.objects.filter(key__in=chunk).only(
                    "key", "name", "source_papers", "source_author_rows", "is_curated"
                )
            )
        missing = [key for key in wanted if key not in existing]
        slugs = unique_slugs(NameCluster, [wanted[key] for key in missing])
        created = [
            NameCluster(
                pk=pk,
                key=key,
                name=stated.get(key, (wanted[key],))[0],
                slug=slug,
                folded_key=arrowfile.folded_key(wanted[key]),
                initials_key=arrowfile.initials_key(wanted[key]),
                source_papers=stated.get(key, (None, None))[1],
                source_author_rows=stated.get(key, (None, None, None))[2],
            )
            for pk, key, slug in zip(take_ids(NameCluster, len(missing)), missing, slugs,
                                     strict=True)
        ]  # fmt: skip
        insert(
            NameCluster,
            ["id", "key", "name", "slug", "folded_key", "initials_key", "source_papers",
             "source_author_rows"],
            [
                (row.pk, row.key, row.name, row.slug, row.folded_key, row.initials_key,
                 row.source_papers, row.source_author_rows)
                for row in created
            ],
        )  # fmt: skip
        tally.clusters_new = len(created)
        existing.update((row.key, row) for row in created)
        changed = [
            (*values, existing[key].pk)
            for key, values in stated.items()
            if (existing[key].name, existing[key].source_papers, existing[key].source_author_rows)
            != values
        ]
        if changed:
            with connection.cursor() as cursor:
                cursor.executemany(
                    f"UPDATE {NameCluster._meta.db_table} SET name = %s, source_papers = %s, "
                    "source_author_rows = %s WHERE id = %s",
                    changed,
                )
        return existing

    def authors(self, names: set[str], tally: Tally) -> dict[str, int]:
        """Identity ids by exact printed name; the first identity that held a name keeps
        receiving it (through merges); names never seen get a new identity each."""
        found: dict[str, Author] = {}
        for chunk in chunked(names):
            for author in Author.objects.filter(name__in=chunk).order_by("pk"):
                found.setdefault(author.name, author)
        ids = {name: author.live_identity().pk for name, author in found.items()}
        missing = sorted(names - ids.keys())
        created = list(zip(take_ids(Author, len(missing)), missing, strict=True))
        insert(
            Author,
            ["id", "name", "name_key", "base_key", "dblp_number"],
            [(pk, *new_author(name)) for pk, name in created],
        )
        tally.authors_new = len(created)
        ids.update((name, pk) for pk, name in created)
        return ids


def refresh_clusters_since(watermark: int) -> None:
    """Recount the clusters that received authorships after `watermark`, a range of
    cluster ids at a time, each in its own short transaction."""
    touched = Authorship.objects.filter(pk__gt=watermark).order_by().values("cluster_id").distinct()
    bounds = NameCluster.objects.filter(pk__in=touched).aggregate(low=Min("pk"), high=Max("pk"))
    if bounds["low"] is None:
        return
    for low in range(bounds["low"], bounds["high"] + 1, REFRESH_RANGE):
        with transaction.atomic():
            NameCluster.objects.filter(
                pk__gte=low, pk__lt=low + REFRESH_RANGE, pk__in=touched
            ).refresh_stats()


def analyze() -> None:
    """Fresh planner statistics after a load: without them PostgreSQL walks a million
    rows for a rare search word (600 ms) where its index takes 2 ms. PostgreSQL also
    vacuums: that marks the loaded pages all-visible, so authorships can be read from an
    index alone. Without it, a prolific identity's co-authors at a million papers were
    read by scanning every authorship (720 ms, against 120 to 200 ms after VACUUM)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            cursor.execute("VACUUM (ANALYZE)")  # not inside a caller's transaction
            return
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA analysis_limit = 1000")  # sampled: seconds, not minutes
        cursor.execute("ANALYZE")


def take_ids(model: type[models.Model], count: int) -> list[int]:
    """`count` fresh primary keys for rows written by insert(). On SQLite the import's
    transaction holds the write lock, so nobody else can take the ones after the largest;
    on PostgreSQL they come from the table's own sequence."""
    if not count:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                [table, count],
            )
            return [pk for (pk,) in cursor.fetchall()]
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        (largest,) = cursor.fetchone()
    return list(range(largest + 1, largest + 1 + count))


def insert(model: type[models.Model], names: list[str], rows: list[tuple]) -> None:
    """Write rows of the named fields in one statement, the other columns at their
    defaults: COPY on PostgreSQL, executemany elsewhere. No model instances: at a
    million papers they cost more than the database does."""
    if not rows:
        return
    fields = [model._meta.get_field(name) for name in names]
    others = [
        field
        for field in model._meta.concrete_fields
        if field.name not in names and field.attname not in names and not field.primary_key
    ]
    defaults = tuple(field.get_db_prep_save(field.get_default(), connection) for field in others)
    columns = [field.column for field in fields] + [field.column for field in others]
    table = model._meta.db_table
    quoted = ", ".join(connection.ops.quote_name(column) for column in columns)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor, connection.wrap_database_errors:
            raw = cursor.cursor  # psycopg's own, for COPY; its errors as Django's
            with raw.copy(f"COPY {table} ({quoted}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row + defaults)
        return
    placeholders = ", ".join(["%s"] * len(columns))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {table} ({quoted}) VALUES ({placeholders})",
            [row + defaults for row in rows],
        )


def new_author(name: str) -> tuple[str, str, str, int | None]:
    """(name, name_key, base_key, dblp_number) of a new identity."""
    base, number = arrowfile.split_dblp_number(name)
    return name, arrowfile.name_key(name), arrowfile.name_key(base), number


def unique_slugs(model: type[NameCluster | Venue], names: list[str]) -> list[str]:
    """Readable URL slugs unique in the model's table (unicode kept: "王伟" stays "王伟");
    a taken slug gets the next free number ("j-liu-2")."""
    bases = [
        slugify(name, allow_unicode=True)[: SLUG_LENGTH - 20].strip("-") or "name" for name in names
    ]
    taken: set[str] = set()
    for chunk in chunked(set(bases)):
        taken.update(model.objects.filter(slug__in=chunk).values_list("slug", flat=True))
    slugs = []
    for base in bases:
        slug = base
        if slug in taken:
            taken.update(
                model.objects.filter(slug__startswith=f"{base}-").values_list("slug", flat=True)
            )
            number = 2
            while f"{base}-{number}" in taken:
                number += 1
            slug = f"{base}-{number}"
        taken.add(slug)
        slugs.append(slug)
    return slugs


class Command(BaseCommand):
    help = "Import Arrow author-name-cluster files, or directories of *.txt files."

    def add_arguments(self, parser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, help="files or directories")
        parser.add_argument("--strict", action="store_true", help="reject files with warnings")
        parser.add_argument(
            "--dry-run", action="store_true", help="parse and report, write nothing"
        )

    def handle(self, *args, paths: list[Path], strict: bool, dry_run: bool, **options) -> None:
        missing = [str(path) for path in paths if not path.exists()]
        if missing:
            raise CommandError(f"no such file or directory: {', '.join(missing)}")
        started = time.monotonic()
        self.strict = strict
        self.loader = Loader()
        self.tally = Tally()
        self.batch: list[tuple[Path, ClusterFile]] = []
        self.batch_papers = 0
        # The bar goes where the summary goes, and only when that is a terminal.
        self.stream = options.get("stdout") or sys.stdout
        show_bar = self.stream.isatty()
        total = sum(1 for _ in cluster_files(paths)) if show_bar else None
        self.bar = tqdm(
            cluster_files(paths), total=total, unit="file", disable=not show_bar, file=self.stream
        )
        # Authorships written from here on are this import's; their clusters are
        # recounted once at the end instead of once per batch.
        watermark = Authorship.objects.aggregate(largest=Max("pk"))["largest"] or 0
        # A dry run imports for real inside one transaction and rolls it back, so its
        # figures are exactly what a real run would report. A real run commits batch by
        # batch and holds the write lock for one batch at a time.
        with transaction.atomic() if dry_run else nullcontext():
            try:
                for path in self.bar:
                    self.read_file(path)
                self.flush()
            finally:
                refresh_clusters_since(watermark)
            if dry_run:
                transaction.set_rollback(True)
        if not dry_run:
            forget_corpus_figures()
            pages_changed()
            if self.tally.papers_new:
                analyze()
        self.bar.close()
        self.summarise(time.monotonic() - started, dry_run)
        if self.tally.rejected:
            raise CommandError(
                f"{self.tally.rejected} of {counted(self.tally.files, 'file')} rejected",
                returncode=1,
            )

    def read_file(self, path: Path) -> None:
        self.tally.files += 1
        try:
            result = arrowfile.parse(arrowfile.decode(path.read_bytes()))
            check_storage_limits(result.cluster)
        except ArrowFormatError as error:
            return self.reject(f"{path}:{error.line}: {error.reason}")
        except OSError as error:
            return self.reject(f"{path}: cannot read: {error.strerror}")
        for warning in result.warnings:
            self.say(f"{path}:{warning.line}: warning: {warning.reason}", self.style.WARNING)
        self.tally.warnings += len(result.warnings)
        if self.strict and result.warnings:
            warnings = counted(len(result.warnings), "warning")
            return self.reject(f"{path}: rejected: {warnings} under --strict")
        self.batch.append((path, result.cluster))
        self.batch_papers += len(result.cluster.papers)
        if self.batch_papers >= BATCH_PAPERS or len(self.batch) >= BATCH_FILES:
            self.flush()

    def flush(self) -> None:
        """Write the files read so far in one transaction; if the database refuses the
        batch, write its files one by one, so that only the file at fault is rejected."""
        batch, self.batch, self.batch_papers = self.batch, [], 0
        if not batch:
            return
        try:
            self.write([cluster for _, cluster in batch])
        except DatabaseError:
            if len(batch) == 1:
                raise
            for path, cluster in batch:
                try:
                    self.write([cluster])
                except DatabaseError as error:
                    self.reject(f"{path}: the database refused the file: {error}")

    def write(self, files: list[ClusterFile]) -> None:
        try:
            with transaction.atomic():
                tally = self.loader.load(files)
        except DatabaseError:
            self.loader.pending_venues.clear()
            raise
        self.loader.commit_cache()
        self.tally.add(tally)
        if not connection.force_debug_cursor:
            # With DEBUG on, Django keeps the last 9,000 statements; the importer's hold
            # thousands of keys each, which is hundreds of megabytes. (Tests that count
            # statements force the debug cursor, and keep them.)
            connection.queries_log.clear()

    def reject(self, message: str) -> None:
        self.tally.rejected += 1
        self.say(message, self.style.ERROR)

    def say(self, message: str, style) -> None:
        # Lifts the bar off the terminal while the message is written.
        with tqdm.external_write_mode(file=self.stream):
            self.stderr.write(message, style)

    def summarise(self, seconds: float, dry_run: bool) -> None:
        t = self.tally
        self.stdout.write(
            ("Dry run, nothing written. " if dry_run else "")
            + f"{counted(t.files, 'file')}: {counted(t.papers_new, 'paper')} new, "
            f"{t.papers_known} already known, {counted(t.authors_new, 'author')} new, "
            f"{counted(t.clusters_new, 'cluster')} new, {counted(t.authorships, 'authorship')}, "
            f"{counted(t.warnings, 'warning')}, {counted(t.rejected, 'file')} rejected, "
            f"{seconds:.1f} s"
        )


def counted(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
