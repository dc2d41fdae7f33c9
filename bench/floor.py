"""The floor for import speed: the least work that stores a dump's rows.

    .venv/bin/python bench/floor.py DUMP_FOLDER DATABASE_FILE

DATABASE_FILE must hold Arrow's schema (`manage.py migrate`), so the rows go into the
same tables under the same unique constraints and indexes. This reads each file with
str.split and no checks, keeps every id it has handed out in dictionaries (memory grows
with the dump: a floor is allowed that), and writes with sqlite3's executemany, one
transaction per 10,000 papers, like the importer. It writes the same rows: venues,
papers, clusters, identities, authorships and the full-text index (unfolded), but
no statistics.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import time
from pathlib import Path

HEADER_BLOCKS = 5
LINK_WORDS = {"PDF", "Details", "DOI"}


def files(folder: Path):
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".txt"):
                yield Path(root) / name


def papers(text: str):
    """(venue, kind, year, type, title, authors, abstract, pdf, doi) of each block."""
    blocks = text.split("\n\n")
    index = HEADER_BLOCKS
    while index < len(blocks):
        venue_line, title, byline = blocks[index], blocks[index + 1], blocks[index + 2]
        index += 3
        abstract = []
        while not set(blocks[index].split(" ")) <= LINK_WORDS:
            abstract.append(blocks[index])
            index += 1
        links = blocks[index].split(" ")
        index += 1
        words = venue_line.split(" ")
        at = max(i for i, word in enumerate(words) if len(word) == 4 and word.isdigit())
        head, kind, year = " ".join(words[: at - 1]), words[at - 1], int(words[at])
        paper_type = " ".join(words[at + 1 :])
        yield (
            head, kind, year, paper_type, title, byline.split("\n"), "\n".join(abstract),
            "PDF" in links, "DOI" in links,
        )  # fmt: skip


class Floor:
    """Hands out ids from dictionaries and queues rows by statement."""

    def __init__(self, database: Path) -> None:
        self.db = sqlite3.connect(database, isolation_level=None)
        self.venues: dict[tuple[str, str], int] = {}
        self.papers: dict[bytes, int] = {}
        self.authors: dict[str, int] = {}
        self.clusters: dict[str, int] = {}
        self.rows: dict[str, list[tuple]] = {}

    def flush(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        for sql, values in self.rows.items():
            self.db.executemany(sql, values)
        self.db.execute("COMMIT")
        self.rows.clear()

    def add(self, sql: str, row: tuple) -> None:
        self.rows.setdefault(sql, []).append(row)

    def paper(self, venue, kind, year, paper_type, title, byline, abstract, pdf, doi) -> bool:
        fingerprint = hashlib.sha1(f"{venue}\x1f{kind}\x1f{year}\x1f{title}".encode())
        key = fingerprint.digest()
        if key in self.papers:
            return False
        paper_id = self.papers[key] = len(self.papers) + 1
        if (venue, kind) not in self.venues:
            venue_id = self.venues[venue, kind] = len(self.venues) + 1
            self.add(
                "INSERT INTO clusters_venue (id, name, kind, slug) VALUES (?, ?, ?, ?)",
                (venue_id, venue, kind, f"v{venue_id}"),
            )
        self.add(
            "INSERT INTO clusters_paper (id, venue_id, year, paper_type, title, abstract, "
            "has_pdf, has_doi, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (paper_id, self.venues[venue, kind], year, paper_type, title, abstract, pdf, doi,
             fingerprint.hexdigest()),
        )  # fmt: skip
        for position, name in enumerate(byline, start=1):
            self.add(
                "INSERT INTO clusters_authorship (paper_id, author_id, cluster_id, "
                "position, name_as_printed) VALUES (?, ?, ?, ?, ?)",
                (paper_id, self.author(name), self.cluster(name), position, name),
            )
        self.add(
            "INSERT INTO clusters_paper_fts (rowid, title, abstract, authors) VALUES (?, ?, ?, ?)",
            (paper_id, title, abstract, " ".join(byline)),
        )
        return True

    def author(self, name: str) -> int:
        if name not in self.authors:
            author_id = self.authors[name] = len(self.authors) + 1
            self.add(
                "INSERT INTO clusters_author (id, name, name_key, base_key, label, "
                "affiliation, orcid, homepage) VALUES (?, ?, ?, ?, '', '', '', '')",
                (author_id, name, name.lower(), name.lower()),
            )
        return self.authors[name]

    def cluster(self, name: str) -> int:
        key = name.lower()
        if key not in self.clusters:
            cluster_id = self.clusters[key] = len(self.clusters) + 1
            self.add(
                "INSERT INTO clusters_namecluster (id, key, name, slug, folded_key, "
                "initials_key, paper_count, identity_count, spelling_count, "
                "first_year, last_year, is_curated, lock_reason, ambiguity, uncertain_papers) "
                "VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, '', 0, 0)",
                (cluster_id, key, name, f"c{cluster_id}", key, key),
            )
        return self.clusters[key]


def load(folder: Path, database: Path) -> dict[str, int]:
    floor = Floor(database)
    pending = 0
    for path in files(folder):
        for paper in papers(path.read_bytes().decode("utf-8")):
            pending += floor.paper(*paper)
            if pending == 10_000:
                floor.flush()
                pending = 0
    floor.flush()
    return {
        "papers": len(floor.papers),
        "authors": len(floor.authors),
        "clusters": len(floor.clusters),
    }


def main() -> None:
    folder, database = Path(sys.argv[1]), Path(sys.argv[2])
    started = time.monotonic()
    figures = load(folder, database)
    print(
        f"floor: {figures['papers']:,} papers, {figures['authors']:,} identities, "
        f"{figures['clusters']:,} clusters in {time.monotonic() - started:.1f} s"
    )


if __name__ == "__main__":
    main()
