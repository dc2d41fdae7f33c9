"""Every page costs a fixed number of SQL queries, however large the cluster or the
identity: pinned here on a 2,000-paper cluster against a 3-paper one. Each count is of
a page made afresh for a reader: it starts with the version of the edits, which keys
the readers' page cache (clusters/pagecache.py); a page served from that cache costs
that one query (tests/test_pagecache.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clusters.models import Author, NameCluster, Paper

from .conftest import make_cluster, make_paper, run_import, write_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def clusters(tmp_path) -> tuple[NameCluster, NameCluster]:
    big = [
        make_paper(
            f"Paper {n} on topic {n % 17}",
            ("Hanlin Tang", f"Coauthor {n % 50}", f"Other {n % 7}")
            if n % 3
            else ("HANLIN TANG", f"Coauthor {n % 50}"),
            year=2000 + n % 25,
            venue=f"Venue {n % 5}",
        )
        for n in range(2000)
    ]
    small = [make_paper(f"Small {n}", ("Ada Lovelace", "Coauthor 1")) for n in range(3)]
    write_files(tmp_path, [make_cluster("Hanlin Tang", big), make_cluster("Ada Lovelace", small)])
    status, _, _ = run_import(tmp_path)
    assert status == 0
    return NameCluster.objects.get(key="hanlin tang"), NameCluster.objects.get(key="ada lovelace")


def test_cluster_page(client, clusters, django_assert_num_queries):
    # the version of the edits (read once: it keys the page cache and the layout); the
    # cluster; its authorships with identities, years and titles; related clusters; the
    # page's papers with venues; their bylines; proposals waiting for review
    for cluster in clusters:
        with django_assert_num_queries(7):
            response = client.get(cluster.get_absolute_url() + "?page=3")
        assert response.status_code == 200
        # The authorships' order comes from the cache until papers or identities change.
        with django_assert_num_queries(6):
            client.get(cluster.get_absolute_url() + "?page=2")
    big = client.get(clusters[0].get_absolute_url()).context["data"]
    assert big["cluster"]["papers"] == 2000 and big["page"]["pages"] == 40


def test_identity_page(client, clusters, django_assert_num_queries):
    # the version of the edits (read once: it keys the page cache and the summary); the
    # identity; its authorships with years, titles, venues, printed names and their
    # clusters; those venues; co-authors, then their names; identities merged into it;
    # splits from it; proposals waiting for review; the page of papers; their bylines
    for name in ("Hanlin Tang", "Ada Lovelace"):
        url = Author.objects.get(name=name).get_absolute_url()
        with django_assert_num_queries(11):
            response = client.get(url)
        assert response.status_code == 200
        # The summary comes from the cache until an import, an edit or a review
        # (another address: not the page cache's).
        with django_assert_num_queries(4):
            client.get(url + "?page=1")


def test_paper_page(client, clusters, django_assert_num_queries):
    # the version of the edits; the paper with its venue; its authorships with clusters
    url = Paper.objects.filter(title__startswith="Paper").first().get_absolute_url()
    with django_assert_num_queries(3):
        client.get(url)


def test_list_pages(client, clusters, django_assert_num_queries):
    # the version of the edits (each page below starts with it); the capped count; one
    # page (keyset); the venue filter's choices
    with django_assert_num_queries(4):
        client.get(reverse("clusters:cluster-list") + "?sort=identities")
    # the venue; papers per venue and year (then cached until the next import); the
    # count of that year; the page; its papers; their bylines
    with django_assert_num_queries(7):
        client.get(reverse("clusters:venue-detail", args=["venue-1"]))
    with django_assert_num_queries(6):
        client.get(reverse("clusters:venue-detail", args=["venue-2"]))
    # venues, with papers per venue and year from the cache
    with django_assert_num_queries(2):
        client.get(reverse("clusters:venue-list"))


def test_editor_cluster_page_and_change_pages(client, clusters, django_assert_num_queries, editor):
    from clusters.models import Authorship, Edit

    big = clusters[0]
    picks = list(
        Authorship.objects.filter(cluster=big, name_as_printed="Hanlin Tang")
        .order_by("pk")
        .values_list("pk", "author_id")[:1000]
    )
    edit = Edit.plan_split(editor=editor, reason="half", cluster=big, picks=picks).apply()
    client.force_login(editor)
    # session; user; permissions (user, groups); then the reader's seven (editors skip the
    # page cache, but the version keys the layout); identities of this and related names
    # for the editor's controls
    with django_assert_num_queries(12):
        assert client.get(big.get_absolute_url()).status_code == 200
    # session; user; permissions (user, groups); the reader's eleven (no page cache, but
    # the version keys the summary); the main name's cluster, its related clusters, and
    # their identities for the editor's controls
    url = Author.objects.get(name="Hanlin Tang").get_absolute_url()
    with django_assert_num_queries(18):
        assert client.get(url).status_code == 200
    client.logout()
    # changes with editors, clusters, targets and move counts; their count
    with django_assert_num_queries(2):
        client.get(reverse("clusters:change-list"))
    # the change; its first 500 moves; its merges; the changes that reverted it
    with django_assert_num_queries(4):
        assert client.get(edit.get_absolute_url()).context["data"]["change"]["moved"] == 1000


def test_a_split_and_a_merge_read_no_abstract_and_write_moves_in_few_statements(clusters, editor):
    """A change of 1,000 papers reads no abstract (thousands of them cost more than
    the change) and writes its moves in one statement: on PostgreSQL one INSERT of
    arrays, on SQLite one executemany (Django logs it as "1000 times: INSERT ...")."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from clusters.models import Authorship, Edit

    big = clusters[0]
    picks = list(
        Authorship.objects.filter(cluster=big, name_as_printed="Hanlin Tang")
        .order_by("pk")
        .values_list("pk", "author_id")[:1000]
    )
    with CaptureQueriesContext(connection) as split:
        edit = Edit.plan_split(editor=editor, reason="half", cluster=big, picks=picks).apply()
    stay = Author.objects.get(name="Hanlin Tang")
    with CaptureQueriesContext(connection) as merge:
        Edit.plan_merge(
            editor=editor, reason="one", identities=[stay, edit.target], into=stay
        ).apply()
    for captured in (split, merge):
        statements = [query["sql"] for query in captured.captured_queries]
        assert not [sql for sql in statements if '"abstract"' in sql]
        inserts = [sql for sql in statements if 'INSERT INTO "clusters_editmove"' in sql]
        assert len(inserts) == 1
        if connection.vendor == "sqlite":
            assert inserts[0].startswith("1000 times: ")
    assert Edit.objects.get(pk=edit.pk).moves.count() == 1000
