"""Full-text search over papers: titles, abstracts and the names printed on them.

One small interface, one backend per database: SQLite FTS5 (a contentless table, as
papers never change once imported) and PostgreSQL (a tsvector table with a GIN index),
both created by migration 0002.
Both read the same parsed query, so a search means the same on either database.

Ranking every match of a common word costs seconds at a million papers while counting
them costs milliseconds, so callers count first and rank a bounded candidate set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from .arrowfile import fold

MAX_QUERY_LENGTH = 500
MAX_TERMS = 16
TOKEN = re.compile(r'"([^"]*)"|(\S+)')
WORD = re.compile(r"\w+")
TABLE = "clusters_paper_fts"
ANGLE_BRACKETS = str.maketrans("<>", "  ")


class QueryError(ValueError):
    """A query that cannot be searched; the message is for the reader."""


@dataclass(frozen=True)
class Term:
    words: tuple[str, ...]  # one word, or a quoted phrase
    prefix: bool = False  # the last word may be the start of a longer one (`optim*`)


def parse_query(text: str) -> list[Term]:
    """Words and "quoted phrases", all required; punctuation and operators are words."""
    text = text.strip()
    if not text:
        raise QueryError("Type a word or a name to search for.")
    if len(text) > MAX_QUERY_LENGTH:
        raise QueryError(
            f"That query is {len(text):,} characters long; "
            f"searches take at most {MAX_QUERY_LENGTH}."
        )
    terms = []
    for phrase, token in TOKEN.findall(text):
        words = tuple(word.lower() for word in WORD.findall(phrase or token))
        if words:
            terms.append(Term(words, prefix=bool(token) and token.endswith("*")))
    if not terms:
        raise QueryError("That query has no words to search for.")
    return terms[:MAX_TERMS]


class SQLiteBackend:
    clear = f"INSERT INTO {TABLE}({TABLE}) VALUES ('delete-all')"
    insert = f"INSERT INTO {TABLE}(rowid, title, abstract, authors) VALUES (%s, %s, %s, %s)"

    # Where a word is found counts: in the title most, then in the names, then in the
    # abstract.
    WEIGHTS = {"title": 10, "authors": 4, "abstract": 1}

    def phrase(self, term: Term) -> str:
        return '"' + fold(" ".join(term.words)) + '"' + ("*" if term.prefix else "")

    def expression(self, terms: list[Term]) -> str:
        return " AND ".join(self.phrase(term) for term in terms)

    def match(self, terms: list[Term]) -> tuple[str, list]:
        return f"SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH %s", [self.expression(terms)]

    def listed(self, ids: list[int]) -> tuple[str, list]:
        return "SELECT value FROM json_each(%s)", [_json(ids)]

    def newest(self, terms: list[Term], limit: int) -> tuple[str, list]:
        # FTS5 walks its doclists backwards: no need to collect every match first.
        sql = f"SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH %s ORDER BY rowid DESC LIMIT %s"
        return sql, [self.expression(terms), limit]

    def rank(self, terms: list[Term], ids: list[int], limit: int, offset: int) -> tuple[str, list]:
        # Each candidate scores the weight of every column that holds each term, newest
        # first among equals. Not FTS5's bm25(): before its first row it walks every
        # match of each term in the whole index to weigh the terms (50 ms for a common
        # word at a million papers, 330 ms for a phrase), where a column filter over the
        # candidates' id range takes a millisecond.
        hits, params = [], []
        # Of several terms, with the whole query too: FTS5 then walks only the matches,
        # led by the rarest term, not every row of the range that holds a common word.
        everything = f" AND ({self.expression(terms)})" if len(terms) > 1 else ""
        span = [min(ids), max(ids)]
        for term in terms:
            for column, weight in self.WEIGHTS.items():
                hits.append(
                    f"SELECT rowid AS id, {weight} AS weight FROM {TABLE} "
                    f"WHERE {TABLE} MATCH %s AND rowid BETWEEN %s AND %s"
                )
                params += [f"({{{column}}} : {self.phrase(term)}){everything}", *span]
        sql = (
            f"WITH hits AS ({' UNION ALL '.join(hits)}) "
            "SELECT id FROM hits WHERE id IN (SELECT value FROM json_each(%s)) "
            "GROUP BY id ORDER BY SUM(weight) DESC, id DESC LIMIT %s OFFSET %s"
        )
        return sql, [*params, _json(ids), limit, offset]


class PostgreSQLBackend:
    clear = f"DELETE FROM {TABLE}"
    insert = (
        f"INSERT INTO {TABLE} (paper_id, document) VALUES (%s, "
        "setweight(to_tsvector('english', %s), 'A') || "
        "setweight(to_tsvector('english', %s), 'C') || "
        "setweight(to_tsvector('english', %s), 'B'))"
    )

    def expression(self, terms: list[Term]) -> str:
        return " & ".join(
            "("
            + " <-> ".join(fold(word) for word in term.words)
            + (":*" if term.prefix else "")
            + ")"
            for term in terms
        )

    def match(self, terms: list[Term]) -> tuple[str, list]:
        sql = f"SELECT paper_id FROM {TABLE} WHERE document @@ to_tsquery('english', %s)"
        return sql, [self.expression(terms)]

    def listed(self, ids: list[int]) -> tuple[str, list]:
        return "SELECT unnest(%s::bigint[])", [ids]

    def newest(self, terms: list[Term], limit: int) -> tuple[str, list]:
        sql = (
            f"SELECT paper_id FROM {TABLE} WHERE document @@ to_tsquery('english', %s) "
            "ORDER BY paper_id DESC LIMIT %s"
        )
        return sql, [self.expression(terms), limit]

    def rank(self, terms: list[Term], ids: list[int], limit: int, offset: int) -> tuple[str, list]:
        sql = (
            f"SELECT paper_id FROM {TABLE} WHERE paper_id = ANY(%s) "
            "ORDER BY ts_rank_cd(document, to_tsquery('english', %s)) DESC, paper_id DESC "
            "LIMIT %s OFFSET %s"
        )
        return sql, [ids, self.expression(terms), limit, offset]


def _json(ids: list[int]) -> str:
    return "[" + ",".join(str(int(pk)) for pk in ids) + "]"


BACKENDS = {"sqlite": SQLiteBackend, "postgresql": PostgreSQLBackend}


def backend(vendor: str | None = None) -> SQLiteBackend | PostgreSQLBackend:
    vendor = vendor or connection.vendor
    if vendor not in BACKENDS:
        raise NotImplementedError(f"full-text search has no backend for {vendor}")
    return BACKENDS[vendor]()


def searchable(text: str) -> str:
    """The text as the index sees it. Folded here rather than by the database, so that
    both backends fold alike, and further than FTS5's unicode61 does ("Łukasz" is found
    as "lukasz"). Angle brackets become spaces: PostgreSQL's parser would otherwise
    drop `<script>` as a tag, and titles that mention markup must be found by it."""
    return fold(text).translate(ANGLE_BRACKETS)


def index_papers(rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Add papers to the index: (id, title, abstract, the printed names joined)."""
    folded = [
        (pk, searchable(title), searchable(abstract), searchable(authors))
        for pk, title, abstract, authors in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(backend().insert, folded)


def rebuild() -> int:
    """Index every paper again, in batches; returns how many were indexed."""
    from .models import Authorship, Paper
    from .pagecache import pages_changed

    search = backend()
    with connection.cursor() as cursor:
        cursor.execute(search.clear)
    indexed = 0
    last = 0
    while batch := list(
        Paper.objects.filter(pk__gt=last)
        .order_by("pk")
        .values_list("pk", "title", "abstract")[:2000]
    ):
        names: dict[int, list[str]] = {}
        for paper_id, name in (
            Authorship.objects.filter(paper_id__in=[row[0] for row in batch])
            .order_by("paper_id", "position")
            .values_list("paper_id", "name_as_printed")
        ):
            names.setdefault(paper_id, []).append(name)
        index_papers(
            (pk, title, abstract, " ".join(names.get(pk, []))) for pk, title, abstract in batch
        )
        indexed += len(batch)
        last = batch[-1][0]
    pages_changed()  # search pages kept from the old index
    return indexed


def matching(terms: list[Term]) -> tuple[str, list]:
    """SQL selecting the ids of matching papers, for `pk__in=RawSQL(...)`."""
    return backend().match(terms)


def listed(ids: list[int]) -> tuple[str, list]:
    """SQL selecting these ids, for `pk__in=RawSQL(...)`: one parameter however many, where
    the ORM prepares each of 2,000 ids on its own."""
    return backend().listed(ids)


def newest(terms: list[Term], limit: int) -> list[int]:
    """Ids of the newest `limit` matching papers, newest first, straight from the index:
    at a million papers, gathering every match of a common word first costs 100s of ms."""
    sql, params = backend().newest(terms, limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [pk for (pk,) in cursor.fetchall()]


def rank(terms: list[Term], ids: list[int], limit: int, offset: int = 0) -> list[int]:
    """The ids among `ids` in order of relevance, one page of them."""
    if not ids:
        return []
    sql, params = backend().rank(terms, ids, limit, offset)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]
