"""Random sequences of splits, moves, merges and reverts (hypothesis stateful testing):
every authorship stays with exactly one live identity, no paper gains or loses an
authorship, and a revert restores the state before the change exactly."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from clusters import arrowfile
from clusters.models import Author, Authorship, Edit, EditConflict, NameCluster, Paper, Venue

SPELLINGS = ["Hanlin Tang", "HANLIN TANG", "hanlin tang"]


def build_cluster() -> NameCluster:
    """Eight papers of one name in three spellings, each with a co-author."""
    venue = Venue.objects.create(name="ICML", kind="Conference", slug="icml")
    cluster = NameCluster.objects.create(
        key="hanlin tang",
        name="Hanlin Tang",
        slug="hanlin-tang",
        folded_key="hanlin tang",
        initials_key="h tang",
    )
    coauthors = NameCluster.objects.create(
        key="ji liu", name="Ji Liu", slug="ji-liu", folded_key="ji liu", initials_key="j liu"
    )
    authors = [
        Author.objects.create(name=name, name_key="hanlin tang", base_key="hanlin tang")
        for name in SPELLINGS
    ]
    liu = Author.objects.create(name="Ji Liu", name_key="ji liu", base_key="ji liu")
    for n in range(8):
        paper = Paper.objects.create(
            venue=venue, year=2018 + n, title=f"Paper {n}", fingerprint=f"p{n}"
        )
        spelling = n % 3
        Authorship.objects.create(
            paper=paper,
            author=authors[spelling],
            cluster=cluster,
            position=1,
            name_as_printed=SPELLINGS[spelling],
        )
        Authorship.objects.create(
            paper=paper, author=liu, cluster=coauthors, position=2, name_as_printed="Ji Liu"
        )
    NameCluster.objects.all().refresh_stats()
    return cluster


def state(identities: set[int] | None = None) -> tuple:
    authors = (
        Author.objects.all() if identities is None else Author.objects.filter(pk__in=identities)
    )
    return (
        sorted(Authorship.objects.values_list("pk", "author_id", "placed_by_id")),
        sorted(authors.values_list("pk", "merged_into_id")),
    )


class Curation(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.editor = get_user_model().objects.create_user("stateful")
        self.cluster = build_cluster()
        self.bylines = sorted(
            Authorship.objects.values_list("pk", "paper_id", "position", "name_as_printed")
        )
        self.applied: list[tuple[Edit, tuple, set[int]]] = []  # edit, state before, identities then

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self.atomic.__exit__(None, None, None)

    def live_identities(self) -> list[int]:
        return sorted(
            Authorship.objects.filter(cluster=self.cluster, author__merged_into=None)
            .order_by("author_id")
            .values_list("author_id", flat=True)
            .distinct()
        )

    def apply(self, plan: Edit) -> None:
        before, identities = state(), set(Author.objects.values_list("pk", flat=True))
        plan.apply()
        self.applied.append((plan, before, identities))

    @rule(data=st.data())
    def split(self, data) -> None:
        rows = list(
            Authorship.objects.filter(cluster=self.cluster)
            .order_by("pk")
            .values_list("pk", "author_id")
        )
        chosen = data.draw(st.lists(st.sampled_from(rows), min_size=1, max_size=4, unique=True))
        try:
            plan = Edit.plan_split(
                editor=self.editor, reason="split", cluster=self.cluster, picks=chosen
            )
        except EditConflict:
            return  # e.g. every paper of an identity chosen: refused, nothing written
        self.apply(plan)

    @rule(data=st.data())
    def move(self, data) -> None:
        rows = list(
            Authorship.objects.filter(cluster=self.cluster)
            .order_by("pk")
            .values_list("pk", "author_id")
        )
        chosen = data.draw(st.lists(st.sampled_from(rows), min_size=1, max_size=4, unique=True))
        target = Author.objects.get(pk=data.draw(st.sampled_from(self.live_identities())))
        try:
            plan = Edit.plan_move(
                editor=self.editor, reason="move", cluster=self.cluster, picks=chosen, target=target
            )
        except EditConflict:
            return
        self.apply(plan)

    @precondition(lambda self: len(self.live_identities()) >= 2)
    @rule(data=st.data())
    def merge(self, data) -> None:
        ids = data.draw(
            st.lists(st.sampled_from(self.live_identities()), min_size=2, max_size=3, unique=True)
        )
        identities = list(Author.objects.filter(pk__in=ids))
        into = data.draw(st.sampled_from(identities))
        self.apply(
            Edit.plan_merge(editor=self.editor, reason="merge", identities=identities, into=into)
        )

    @precondition(lambda self: self.applied)
    @rule()
    def revert_latest(self) -> None:
        edit, before, identities = self.applied.pop()
        edit.refresh_from_db()
        edit.plan_revert(editor=self.editor, reason="undo").apply()
        assert state(identities) == (before[0], [row for row in before[1] if row[0] in identities])

    @precondition(lambda self: self.applied)
    @rule(data=st.data())
    def revert_any(self, data) -> None:
        index = data.draw(st.integers(0, len(self.applied) - 1))
        edit = self.applied[index][0]
        edit.refresh_from_db()
        before = state()
        try:
            edit.plan_revert(editor=self.editor, reason="undo an older one").apply()
        except EditConflict as error:
            assert "cannot be reverted" in str(error) or "not in effect" in str(error)
            assert state() == before
            return
        # Reverted out of order: the snapshots no longer describe the past, and the
        # newest change in effect is the revert, which this list does not hold.
        self.applied = []

    @invariant()
    def every_authorship_has_one_live_identity(self) -> None:
        assert not Authorship.objects.filter(author__isnull=True).exists()
        assert not Authorship.objects.filter(author__merged_into__isnull=False).exists()

    @invariant()
    def no_paper_gains_or_loses_an_authorship(self) -> None:
        assert (
            sorted(Authorship.objects.values_list("pk", "paper_id", "position", "name_as_printed"))
            == self.bylines
        )

    @invariant()
    def cluster_counts_follow_the_authorships(self) -> None:
        cluster = NameCluster.objects.get(pk=self.cluster.pk)
        assert cluster.identity_count == len(self.live_identities())
        assert cluster.paper_count == 8


@pytest.mark.django_db
def test_random_curation_keeps_the_invariants() -> None:
    run_state_machine_as_test(
        Curation,
        settings=settings(
            max_examples=30,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


def test_the_state_machine_starts_from_the_same_names_the_importer_would_make() -> None:
    assert {arrowfile.name_key(name) for name in SPELLINGS} == {"hanlin tang"}
