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
from django.db import DatabaseError, transaction
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

BATCH = 1000


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


def check_storage_limits(cluster: ClusterFile) -> None:
    """Lengths the columns hold; raises before anything is written."""
    limits = [
        (cluster.name, NAME_LENGTH, "cluster name", 3),
    ]
    for paper in cluster.papers:
        limits += [
            (paper.venue, Venue._meta.get_field("name").max_length, "venue name", paper.line),
            (paper.venue_kind, Venue._meta.get_field("kind").max_length, "venue kind", paper.line),
            (
                paper.paper_type,
                Paper._meta.get_field("paper_type").max_length,
                "paper type",
                paper.line,
            ),
        ]
        limits += [(author, NAME_LENGTH, "author name", paper.line) for author in paper.authors]
    for text, limit, what, line in limits:
        if len(text) > limit:
            raise ArrowFormatError(
                line, f"{what} is {len(text)} characters long; at most {limit} fit"
            )


class Loader:
    """Writes parsed files into the database; call load() inside a transaction."""

    def __init__(self) -> None:
        # Venues are few and never change once created; ids are cached only after the
        # file that created them committed (see commit_cache).
        self.venues: dict[tuple[str, str], int] = {}
        self.pending_venues: dict[tuple[str, str], int] = {}

    def commit_cache(self) -> None:
        self.venues.update(self.pending_venues)
        self.pending_venues.clear()

    def load(self, cluster: ClusterFile) -> Tally:
        tally = Tally()
        blocks = {paper.fingerprint: paper for paper in reversed(cluster.papers)}
        known: set[str] = set()
        for chunk in chunked(blocks):
            known.update(
                Paper.objects.filter(fingerprint__in=chunk).values_list("fingerprint", flat=True)
            )
        new_blocks = [block for fingerprint, block in blocks.items() if fingerprint not in known]
        tally.papers_known = len(blocks) - len(new_blocks)
        tally.papers_new = len(new_blocks)
        names = {author for block in new_blocks for author in block.authors}
        clusters = self.clusters(cluster, names, tally)
        if new_blocks:
            author_ids = self.authors(names, tally)
            papers = Paper.objects.bulk_create(
                [self.paper(block) for block in new_blocks], batch_size=BATCH
            )
            # A name that editors split has people to tell apart: its new papers wait,
            # unassigned, instead of joining one of them silently.
            curated = {key for key, row in clusters.items() if row.is_curated}
            authorships = [
                Authorship(
                    paper=paper,
                    author_id=None if arrowfile.name_key(name) in curated else author_ids[name],
                    cluster_id=clusters[arrowfile.name_key(name)].pk,
                    position=position,
                    name_as_printed=name,
                )
                for paper, block in zip(papers, new_blocks, strict=True)
                for position, name in enumerate(block.authors, start=1)
            ]
            Authorship.objects.bulk_create(authorships, batch_size=BATCH)
            tally.authorships = len(authorships)
            for chunk in chunked({authorship.cluster_id for authorship in authorships}):
                NameCluster.objects.filter(pk__in=chunk).refresh_stats()
            search.index_papers(
                (paper.pk, paper.title, paper.abstract, " ".join(block.authors))
                for paper, block in zip(papers, new_blocks, strict=True)
            )
        return tally

    def paper(self, block: PaperBlock) -> Paper:
        return Paper(
            venue_id=self.venue_id(block.venue, block.venue_kind),
            year=block.year,
            paper_type=block.paper_type,
            title=block.title,
            abstract="\n".join(block.abstract),
            has_pdf=block.has_pdf,
            has_doi=block.has_doi,
            fingerprint=block.fingerprint,
        )

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
        self, cluster: ClusterFile, names: set[str], tally: Tally
    ) -> dict[str, NameCluster]:
        """Clusters by key for these names; creates missing clusters and records what
        the file itself states about its own cluster."""
        wanted = {arrowfile.name_key(name): name for name in sorted(names)}
        own_key = arrowfile.name_key(cluster.name)
        wanted[own_key] = cluster.name
        existing = {}
        for chunk in chunked(wanted):
            existing.update(
                (row.key, row)
                for row in NameCluster.objects.filter(key__in=chunk).only(
                    "key", "name", "source_papers", "source_author_rows", "is_curated"
                )
            )
        missing = [key for key in wanted if key not in existing]
        stated = {
            "name": cluster.name,
            "source_papers": cluster.stated_papers,
            "source_author_rows": cluster.author_rows,
        }
        slugs = unique_slugs(NameCluster, [wanted[key] for key in missing])
        created = NameCluster.objects.bulk_create(
            [
                NameCluster(
                    key=key,
                    slug=slug,
                    folded_key=arrowfile.folded_key(wanted[key]),
                    initials_key=arrowfile.initials_key(wanted[key]),
                    **(stated if key == own_key else {"name": wanted[key]}),
                )
                for key, slug in zip(missing, slugs, strict=True)
            ],
            batch_size=BATCH,
        )
        tally.clusters_new = len(created)
        existing.update((row.key, row) for row in created)
        own = existing[own_key]
        if any(getattr(own, field) != value for field, value in stated.items()):
            NameCluster.objects.filter(pk=own.pk).update(**stated)
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
        created = Author.objects.bulk_create(
            [new_author(name) for name in missing], batch_size=BATCH
        )
        tally.authors_new = len(created)
        ids.update((author.name, author.pk) for author in created)
        return ids


def new_author(name: str) -> Author:
    base, number = arrowfile.split_dblp_number(name)
    return Author(
        name=name,
        name_key=arrowfile.name_key(name),
        base_key=arrowfile.name_key(base),
        dblp_number=number,
    )


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
        # The bar goes where the summary goes, and only when that is a terminal.
        self.stream = options.get("stdout") or sys.stdout
        show_bar = self.stream.isatty()
        total = sum(1 for _ in cluster_files(paths)) if show_bar else None
        self.bar = tqdm(
            cluster_files(paths), total=total, unit="file", disable=not show_bar, file=self.stream
        )
        # A dry run imports for real inside one transaction and rolls it back, so its
        # figures are exactly what a real run would report. A real run commits file by
        # file and never holds the write lock for longer than one file.
        with transaction.atomic() if dry_run else nullcontext():
            for path in self.bar:
                self.import_file(path)
            if dry_run:
                transaction.set_rollback(True)
        if not dry_run:
            forget_corpus_figures()
        self.bar.close()
        self.summarise(time.monotonic() - started, dry_run)
        if self.tally.rejected:
            raise CommandError(
                f"{self.tally.rejected} of {counted(self.tally.files, 'file')} rejected",
                returncode=1,
            )

    def import_file(self, path: Path) -> None:
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
        try:
            with transaction.atomic():
                tally = self.loader.load(result.cluster)
        except DatabaseError as error:
            self.loader.pending_venues.clear()
            return self.reject(f"{path}: the database refused the file: {error}")
        self.loader.commit_cache()
        self.tally.add(tally)

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
