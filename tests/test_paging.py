"""Keyset pagination: walking the pages forwards and back visits every row once, in
order, for every sort of the cluster list."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from clusters.filters import ClusterFilter
from clusters.models import NameCluster
from clusters.views import browse, paging

from .conftest import run_import

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parent.parent / "clusters" / "demo"


@pytest.fixture
def demo() -> None:
    run_import(DEMO)


@pytest.mark.parametrize("sort", list(browse.CLUSTER_SORTS))
def test_pages_forwards_and_back_cover_every_row_once(demo, sort):
    ordering = browse.CLUSTER_SORTS[sort]
    everything = list(NameCluster.objects.order_by(*ordering).values_list("pk", flat=True))
    queryset = NameCluster.objects.all()

    forwards, cursor, pages = [], "", []
    while True:
        page = paging.keyset_page(queryset, ordering, 5, after=cursor)
        pages.append(page)
        forwards += [row.pk for row in page.rows]
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    assert forwards == everything
    assert pages[0].previous_cursor is None and len(pages) == 9  # 43 rows, 5 a page

    backwards, page = [], pages[-1]
    backwards = [row.pk for row in page.rows]
    while page.previous_cursor:
        page = paging.keyset_page(queryset, ordering, 5, before=page.previous_cursor)
        backwards = [row.pk for row in page.rows] + backwards
    assert backwards == everything


def test_counts_stop_at_the_cap(demo):
    assert paging.capped_count(NameCluster.objects.all(), cap=10) == (10, True)
    assert paging.capped_count(NameCluster.objects.all(), cap=100) == (43, False)


def test_the_list_page_links_to_the_next_page_and_keeps_the_filters(client, demo, monkeypatch):
    monkeypatch.setattr(browse, "PER_PAGE", 4)
    first = client.get("/clusters/?sort=name&min_papers=2")
    names = [c["name"] for c in first.context["data"]["clusters"]]
    assert names == ["Anna Kowalska", "Emre Yıldız", "Hana Kobayashi", "Ji Liu 0002"]
    after = first.context["data"]["page"]["next"]
    assert f'href="?sort=name&amp;min_papers=2&amp;after={after}"' in first.text
    second = client.get(f"/clusters/?sort=name&min_papers=2&after={after}")
    assert [c["name"] for c in second.context["data"]["clusters"]][0] == "Kenji Sato"
    chips = second.context["data"]["filters"]
    assert [(chip["label"], chip["value"], chip["remove"]) for chip in chips] == [
        ("At least this many papers", "2", "?sort=name")
    ]


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's trigram index (CI runs it)"
)
@pytest.mark.parametrize(
    ("params", "keys"), [({"name": "KOWAL"}, ["anna kowalska"]), ({"starts": "mei"}, ["mei lin"])]
)
def test_name_filters_read_the_trigram_index_on_postgresql(demo, params, keys):
    """The list's "contains" and "starts with" filters are LIKE patterns, which only
    migration 0009's trigram index serves: without it, every name is scanned. The test
    tables are so small that the planner would scan them anyway, so scans of the table
    or of a whole B-tree are priced out, to ask only "can the index serve this query?"."""
    names = ClusterFilter(params, queryset=NameCluster.objects.all()).qs
    assert sorted(names.values_list("key", flat=True)) == keys
    with connection.cursor() as cursor:
        for scan in ("seqscan", "indexscan", "indexonlyscan"):
            cursor.execute(f"SET LOCAL enable_{scan} = off")
    assert "Bitmap Index Scan on namecluster_key_trgm_idx" in names.explain()
