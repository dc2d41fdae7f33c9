"""Two editors at once, on real concurrent connections (PostgreSQL): one change wins,
the other gets a clear conflict, and nothing is half-applied."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from clusters.models import Author, Authorship, Edit, EditConflict

from .conftest import picks

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("roles"),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row locks between connections are tested on PostgreSQL (CI runs it)",
    ),
]


def race(*plans: Edit) -> list[Edit | EditConflict]:
    """Apply the plans from as many threads, released together."""
    barrier = threading.Barrier(len(plans))
    results: list[Edit | EditConflict | None] = [None] * len(plans)

    def run(index: int, plan: Edit) -> None:
        try:
            barrier.wait()
            results[index] = plan.apply()
        except EditConflict as error:
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, plan)) for i, plan in enumerate(plans)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.parametrize("attempt", range(3))
def test_two_splits_of_the_same_papers(tang, editor, other_editor, attempt):
    plans = [
        Edit.plan_split(
            editor=who, reason=who.username, cluster=tang, picks=picks(tang, "Entities")
        )
        for who in (editor, other_editor)
    ]
    results = race(*plans)
    wins = [r for r in results if isinstance(r, Edit)]
    conflicts = [r for r in results if isinstance(r, EditConflict)]
    assert len(wins) == 1 and len(conflicts) == 1, results
    assert "moved since the page was shown" in str(conflicts[0])
    assert Edit.objects.count() == 1
    winner = Edit.objects.get()
    assert Authorship.objects.filter(placed_by=winner).count() == 2
    assert Author.objects.filter(created_by__isnull=False).count() == 1


def test_two_merges_of_one_identity_into_different_survivors(tang, editor, other_editor):
    main, shouted = Author.objects.get(name="Hanlin Tang"), Author.objects.get(name="HANLIN TANG")
    results = race(
        Edit.plan_merge(editor=editor, reason="a", identities=[main, shouted], into=main),
        Edit.plan_merge(editor=other_editor, reason="b", identities=[main, shouted], into=shouted),
    )
    assert sorted(type(r).__name__ for r in results) == ["Edit", "EditConflict"]
    merged = Author.objects.filter(pk__in=[main.pk, shouted.pk], merged_into__isnull=False)
    assert merged.count() == 1
    survivor = Author.objects.get(pk__in=[main.pk, shouted.pk], merged_into__isnull=True)
    assert Authorship.objects.filter(cluster=tang, author=survivor).count() == 6
