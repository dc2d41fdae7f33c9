"""Curation: every change to who wrote what is an Edit.

`Edit.apply()` is the only code that writes `Authorship.author` (the importer aside,
which places papers nobody has curated yet), `Author.merged_into`, the annotations of
an identity and the pairs recorded as different people. A change is first planned
(`Edit.plan_split()` and its siblings return an unsaved Edit holding its moves, which a
confirmation page can preview), then applied in one transaction that locks the
identities it touches and checks that nothing moved since the plan was made. A revert
is a change like any other: the inverse of an applied one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, NamedTuple

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Max, Q
from django.utils import timezone

from .. import arrowfile, links
from .bibliography import CHUNK, Author, Authorship, NameCluster, Paper, chunked

ORCID = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")
ANNOTATIONS = ("label", "affiliation", "orcid", "homepage")


class EditConflict(Exception):
    """The change cannot be made as planned; the message says why, for the editor."""


def validate_orcid(value: str) -> None:
    """An ORCID iD, checksum included (ISO 7064 MOD 11-2)."""
    if not ORCID.match(value):
        raise ValidationError(f"“{value}” is not an ORCID iD (0000-0002-1825-0097).")
    total = 0
    for digit in value.replace("-", "")[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    if value[-1] != ("X" if check == 10 else str(check)):
        raise ValidationError(f"“{value}” has a wrong check digit: this ORCID iD is mistyped.")


def count_papers(n: int) -> str:
    return f"{n} paper" if n == 1 else f"{n} papers"


class EditQuerySet(models.QuerySet):
    def applied(self) -> EditQuerySet:
        return self.filter(status=Edit.Status.APPLIED)

    def version(self) -> str:
        """Changes whenever identities may have: a change is made (a new id) or a
        proposal is approved (a new review time). Part of every cache key whose answer
        an edit can change, so that no edit has to remember to invalidate it."""
        newest = self.aggregate(pk=models.Max("pk"), reviewed=models.Max("reviewed_at"))
        reviewed = newest["reviewed"].timestamp() if newest["reviewed"] else 0
        return f"{newest['pk'] or 0}-{reviewed}"

    def for_identity(self, author: Author) -> EditQuerySet:
        """Changes that moved papers from or to this identity, made or merged it."""
        touching = (
            Q(target=author)
            | Q(moves__from_author=author)
            | Q(moves__to_author=author)
            | Q(merges__author=author)
        )
        return self.filter(pk__in=Edit.objects.filter(touching).values("pk"))

    def for_cluster(self, cluster: NameCluster) -> EditQuerySet:
        return self.filter(
            Q(cluster=cluster)
            | Q(pk__in=EditMove.objects.filter(authorship__cluster=cluster).values("edit"))
        )


class Edit(models.Model):
    class Kind(models.TextChoices):
        SPLIT = "split", "split"
        MOVE = "move", "move"
        MERGE = "merge", "merge"
        ANNOTATE = "annotate", "annotate"
        DISTINCT = "distinct", "different people"
        REVERT = "revert", "revert"

    class Status(models.TextChoices):
        PROPOSED = "proposed", "proposed"  # by an editor, waiting for a moderator
        APPLIED = "applied", "applied"
        REVERTED = "reverted", "reverted"
        REJECTED = "rejected", "rejected"
        STALE = "stale", "stale"  # the papers moved before a moderator got to it

    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.APPLIED)
    editor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="edits"
    )
    reason = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    # The cluster whose page the change was made from, for its history.
    cluster = models.ForeignKey(
        NameCluster, null=True, blank=True, on_delete=models.PROTECT, related_name="edits"
    )
    # The identity that receives: the new one of a split, the target of a move, the
    # survivor of a merge, the annotated one.
    target = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reverts = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reverted_by"
    )
    # Annotations: {"fields": {name: [before, after]}}; pairs of identities recorded as
    # different people: {"pairs_added": [[a, b]], "pairs_removed": [[a, b]]}.
    changes = models.JSONField(default=dict, blank=True)
    override_distinct = models.BooleanField(default=False)
    # The moderator who approved or rejected a proposal, and what they said.
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reviews",
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.TextField(blank=True)

    objects = EditQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        permissions = [
            ("propose", "Can propose splits, moves, merges and annotations (editors)"),
            ("curate", "Can change identities directly and revert changes (moderators)"),
            ("moderate", "Can approve and reject proposals, handle reports, lock names"),
        ]
        indexes = [
            # The change log, newest first, by kind.
            models.Index(fields=["kind", "-created_at"], name="edit_kind_idx"),
            # The moderation queue: pending proposals, oldest first.
            models.Index(fields=["status", "created_at"], name="edit_status_idx"),
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What a plan_*() call decided, until apply() writes it.
        self.planned_moves: list[EditMove] = []
        self.planned_merges: list[EditMerge] = []
        # True once the planned moves are rows (a proposal's), which apply() updates.
        self.moves_stored = False
        # The clusters of the moved papers, found by _check(), whose counts
        # _refresh_clusters() brings up to date.
        self.moved_clusters: set[int] = set()

    def __str__(self) -> str:
        return f"Change #{self.pk}: {self.get_kind_display()}"

    def get_absolute_url(self) -> str:
        return links.by_id("clusters:change-detail", self.pk)

    # -- planning: unsaved Edits that know what they would do ---------------------------

    @classmethod
    def _picked(cls, cluster: NameCluster, picks: list[tuple[int, int | None]]) -> list[Placement]:
        """The chosen authorships, checked: of this cluster, and still where the page
        that chose them showed them (author id, or None for unassigned)."""
        if not picks:
            raise EditConflict("Choose at least one paper.")
        shown = dict(picks)
        found = {
            a.pk: a
            for chunk in chunked(shown)
            for a in Placement.of(Authorship.objects.filter(pk__in=chunk))
        }
        missing = set(shown) - set(found)
        if missing:
            raise EditConflict(f"No authorship {', '.join(map(str, sorted(missing)))} exists.")
        outside = [a for a in found.values() if a.cluster_id != cluster.pk]
        if outside:
            raise EditConflict(
                f"“{paper_title(outside[0])}” is not listed under {cluster.name}: choose papers "
                "of this name only."
            )
        moved = [a for a in found.values() if a.author_id != shown[a.pk]]
        if moved:
            raise EditConflict(
                f"{count_papers(len(moved))} moved since the page was shown "
                f"(“{paper_title(moved[0])}” first); look at the page again."
            )
        return [found[pk] for pk in shown]

    @classmethod
    def plan_split(cls, *, editor, reason: str, cluster: NameCluster, picks) -> Edit:
        """The chosen papers leave their identities for a new one of this name."""
        authorships = cls._picked(cluster, picks)
        sources = {a.author_id for a in authorships}
        if sources != {None} and len(sources) == 1:
            (source,) = sources
            # Every chosen paper is the source's (checked above): it keeps one if it
            # holds more than were chosen.
            if Authorship.objects.filter(author_id=source).count() == len(authorships):
                raise EditConflict(
                    "Every paper of this identity is chosen: a split would leave it empty. "
                    "Choose fewer papers, or annotate the identity instead."
                )
        edit = cls(kind=cls.Kind.SPLIT, editor=editor, reason=reason, cluster=cluster)
        edit.planned_moves = [EditMove.leaving(a) for a in authorships]
        return edit

    @classmethod
    def plan_move(cls, *, editor, reason: str, cluster: NameCluster, picks, target: Author) -> Edit:
        """The chosen papers go to an existing identity of this name or a related one."""
        authorships = cls._picked(cluster, picks)
        if not target.is_live:
            raise EditConflict(f"{target} was merged into another identity; move to that one.")
        if all(a.author_id == target.pk for a in authorships):
            raise EditConflict(f"These papers already belong to {target} (#{target.pk}).")
        if target.pk not in {pk for pk, _ in cluster_identities([cluster, *cluster.related()])}:
            raise EditConflict(
                f"{target} (#{target.pk}) holds no paper under {cluster.name} or a related name."
            )
        edit = cls(kind=cls.Kind.MOVE, editor=editor, reason=reason, cluster=cluster, target=target)
        edit.planned_moves = [
            EditMove.leaving(a, target.pk) for a in authorships if a.author_id != target.pk
        ]
        return edit

    @classmethod
    def plan_merge(
        cls,
        *,
        editor,
        reason: str,
        identities: list[Author],
        into: Author,
        cluster: NameCluster | None = None,
        override_distinct: bool = False,
    ) -> Edit:
        """The identities become `into`; the others stay, pointing at it."""
        others = [author for author in identities if author.pk != into.pk]
        if not others:
            raise EditConflict(
                "Choose two identities or more: an identity cannot merge into itself."
            )
        merged = [author for author in [into, *others] if not author.is_live]
        if merged:
            raise EditConflict(
                f"{merged[0]} (#{merged[0].pk}) was already merged into another identity."
            )
        pairs = DistinctPair.objects.among([into, *others])
        if pairs and not override_distinct:
            pair = pairs[0]
            raise EditConflict(
                f"{pair.first} (#{pair.first_id}) and {pair.second} (#{pair.second_id}) are "
                f"recorded as different people (change #{pair.edit_id}: “{pair.edit.reason}”). "
                "Merge anyway only if that record is wrong."
            )
        edit = cls(
            kind=cls.Kind.MERGE,
            editor=editor,
            reason=reason,
            target=into,
            cluster=cluster,
            override_distinct=override_distinct,
        )
        edit.planned_moves = [
            EditMove.leaving(a, into.pk)
            for chunk in chunked([author.pk for author in others])
            for a in Placement.of(Authorship.objects.filter(author_id__in=chunk).order_by("pk"))
        ]
        edit.planned_merges = [
            EditMerge(author=author, into_before=None, into_after=into) for author in others
        ]
        return edit

    @classmethod
    def plan_annotate(
        cls, *, editor, reason: str, identity: Author, values: dict[str, str]
    ) -> Edit:
        """New values for the identity's label, affiliation, ORCID iD and homepage."""
        if not identity.is_live:
            raise EditConflict(f"{identity} was merged into another identity; annotate that one.")
        if values.get("orcid"):
            validate_orcid(values["orcid"])
        if values.get("homepage"):
            URLValidator(schemes=["http", "https"])(values["homepage"])
        fields = {
            name: [getattr(identity, name), values[name]]
            for name in ANNOTATIONS
            if name in values and values[name] != getattr(identity, name)
        }
        if not fields:
            raise EditConflict("Nothing would change: every value is as it was.")
        return cls(
            kind=cls.Kind.ANNOTATE,
            editor=editor,
            reason=reason,
            target=identity,
            changes={"fields": fields},
        )

    @classmethod
    def plan_distinct(
        cls, *, editor, reason: str, identities: list[Author], cluster: NameCluster | None = None
    ) -> Edit:
        """Record that these identities are different people, so no merge joins them
        without an explicit override."""
        ids = sorted({author.pk for author in identities})
        if len(ids) < 2:
            raise EditConflict("Choose two identities or more to record as different people.")
        known = {(pair.first_id, pair.second_id) for pair in DistinctPair.objects.among(identities)}
        pairs = [[a, b] for i, a in enumerate(ids) for b in ids[i + 1 :] if (a, b) not in known]
        if not pairs:
            raise EditConflict("These identities are already recorded as different people.")
        return cls(
            kind=cls.Kind.DISTINCT,
            editor=editor,
            reason=reason,
            cluster=cluster,
            changes={"pairs_added": pairs},
        )

    def plan_revert(self, *, editor, reason: str) -> Edit:
        """The inverse of this change, to apply as a change of its own."""
        if self.status != self.Status.APPLIED:
            raise EditConflict(f"Change #{self.pk} is not in effect: it was reverted already.")
        edit = Edit(
            kind=self.Kind.REVERT,
            editor=editor,
            reason=reason,
            cluster=self.cluster,
            target=self.target,
            reverts=self,
            changes={
                "fields": {
                    name: [after, before]
                    for name, (before, after) in self.changes.get("fields", {}).items()
                },
                "pairs_added": self.changes.get("pairs_removed", []),
                "pairs_removed": self.changes.get("pairs_added", []),
            },
        )
        edit.planned_moves = [
            EditMove(
                authorship_id=move.authorship_id,
                from_author_id=move.to_author_id,
                to_author_id=move.from_author_id,
                placed_by_before_id=move.placed_by_after_id,
                placed_by_after_id=move.placed_by_before_id,
            )
            for move in self.moves.all()
        ]
        edit.planned_merges = [
            EditMerge(
                author_id=merge.author_id,
                into_before_id=merge.into_after_id,
                into_after_id=merge.into_before_id,
            )
            for merge in self.merges.all()
        ]
        return edit

    # -- applying --------------------------------------------------------------------

    def apply(self) -> Edit:
        """Make the planned change, whole or not at all. Raises EditConflict, with
        nothing changed, when papers or identities moved since the plan was made."""
        if self.pk and not (self.planned_moves or self.planned_merges):
            self.planned_moves = list(self.moves.all())
            self.planned_merges = list(self.merges.all())
            self.moves_stored = True
        try:
            with transaction.atomic():
                self._lock()
                self._check()
                if self.kind == self.Kind.SPLIT:
                    self.target = self._new_identity()
                self.status = self.Status.APPLIED
                self.save()
                self._write_moves()
                self._write_merges()
                self._write_annotations()
                self._write_pairs()
                self._settle_reverted()
                self._refresh_clusters()
        except IntegrityError as error:
            raise EditConflict(
                f"Another change got there first ({error}); look at the page again."
            ) from error
        return self

    # -- moderation -------------------------------------------------------------------

    def submit(self) -> Edit:
        """A moderator's change applies now; an editor's waits for a moderator. The
        pages, the admin and the shell all submit through here."""
        if self.editor.has_perm("clusters.curate"):
            return self.apply()
        if self.editor.has_perm("clusters.propose"):
            return self.propose()
        raise EditConflict(f"{self.editor} may neither change identities nor propose changes.")

    def propose(self) -> Edit:
        """Store the plan for a moderator to review; nothing changes yet."""
        locked = self._locked_clusters()
        if locked:
            raise EditConflict(
                f"{locked.name} is locked by the moderators ({locked.lock_reason}): "
                "no proposals until it is unlocked."
            )
        with transaction.atomic():
            self.status = self.Status.PROPOSED
            self.save()
            for move in self.planned_moves:
                move.edit = self
            for merge in self.planned_merges:
                merge.edit = self
            EditMove.store(self.planned_moves)
            self.moves_stored = True
            EditMerge.objects.bulk_create(self.planned_merges)
        return self

    def _locked_clusters(self) -> NameCluster | None:
        clusters = {self.cluster_id} | set(
            Authorship.objects.filter(
                pk__in=[m.authorship_id for m in self.planned_moves[:CHUNK]]
            ).values_list("cluster_id", flat=True)
        )
        return NameCluster.objects.filter(pk__in=clusters - {None}, locked_by__isnull=False).first()

    def approve(self, moderator, note: str = "") -> Edit:
        """Apply a proposal after checking that its papers have not moved since it was
        made; if they have, it is marked stale with the reason and nothing changes."""
        self._check_reviewable(moderator)
        if self.editor_id == moderator.pk:
            raise EditConflict("Nobody approves their own proposal: another moderator must.")
        self.reviewed_by, self.reviewed_at, self.review_note = moderator, timezone.now(), note
        try:
            return self.apply()
        except EditConflict as error:
            Edit.objects.filter(pk=self.pk).update(
                status=self.Status.STALE,
                reviewed_by=moderator,
                reviewed_at=self.reviewed_at,
                review_note=f"Stale: {error}",
            )
            self.status = self.Status.STALE
            raise EditConflict(
                f"Proposal #{self.pk} is stale and was not applied: {error}"
            ) from error

    def reject(self, moderator, note: str) -> Edit:
        self._check_reviewable(moderator)
        if not note.strip():
            raise EditConflict("Say why the proposal is rejected: the editor will read it.")
        self.status = self.Status.REJECTED
        self.reviewed_by, self.reviewed_at, self.review_note = (
            moderator,
            timezone.now(),
            note.strip(),
        )
        self.save(update_fields=["status", "reviewed_by", "reviewed_at", "review_note"])
        return self

    def _check_reviewable(self, moderator) -> None:
        if self.status != self.Status.PROPOSED:
            raise EditConflict(f"Change #{self.pk} is {self.status}, not waiting for review.")

    def _identity_ids(self) -> set[int]:
        ids = {m.from_author_id for m in self.planned_moves} | {
            m.to_author_id for m in self.planned_moves
        }
        ids |= {m.author_id for m in self.planned_merges} | {
            m.into_after_id for m in self.planned_merges
        }
        ids |= {m.into_before_id for m in self.planned_merges}
        ids.add(self.target_id)
        return {pk for pk in ids if pk is not None}

    def _lock(self) -> None:
        """Row locks on the identities, in id order so two changes cannot deadlock. On
        SQLite the transaction itself is the lock (BEGIN IMMEDIATE)."""
        for chunk in chunked(sorted(self._identity_ids())):
            list(
                Author.objects.select_for_update()
                .filter(pk__in=chunk)
                .order_by("pk")
                .values_list("pk")
            )

    def _check(self) -> None:
        """Every paper and identity is still where the plan found it."""
        current = {}
        self.moved_clusters = set()
        for chunk in chunked([m.authorship_id for m in self.planned_moves]):
            for pk, author, placed, cluster in Authorship.objects.filter(pk__in=chunk).values_list(
                "pk", "author_id", "placed_by_id", "cluster_id"
            ):
                current[pk] = (author, placed)
                self.moved_clusters.add(cluster)
        moved = [
            m
            for m in self.planned_moves
            if current.get(m.authorship_id) != (m.from_author_id, m.placed_by_before_id)
        ]
        if moved:
            raise EditConflict(self._moved_message(moved))
        self._check_receivers()
        for merge in self.planned_merges:
            now = (
                Author.objects.filter(pk=merge.author_id)
                .values_list("merged_into_id", flat=True)
                .first()
            )
            if now != merge.into_before_id:
                raise EditConflict(
                    f"Identity #{merge.author_id} was merged or unmerged since; "
                    "look at the page again."
                )
        if self.kind == self.Kind.ANNOTATE or self.changes.get("fields"):
            values = Author.objects.filter(pk=self.target_id).values(*ANNOTATIONS).first() or {}
            for name, (before, _) in self.changes.get("fields", {}).items():
                if values.get(name) != before:
                    raise EditConflict(
                        f"The {name} of #{self.target_id} changed since; look at the page again."
                    )

    def _check_receivers(self) -> None:
        """Papers go only to live identities (a change may have merged the target
        away meanwhile), and an identity merged away leaves none of its papers
        behind (a change may have given it more)."""
        unmerged = {m.author_id for m in self.planned_merges if m.into_after_id is None}
        receivers = {m.to_author_id for m in self.planned_moves} | {
            m.into_after_id for m in self.planned_merges
        }
        receivers -= unmerged | {None}
        gone = Author.objects.filter(pk__in=receivers, merged_into__isnull=False).first()
        if gone:
            merge = EditMerge.objects.filter(author=gone, edit__status=self.Status.APPLIED).last()
            by = f" by change #{merge.edit_id}" if merge else ""
            if self.reverts_id is not None:
                raise EditConflict(
                    f"Change #{self.reverts_id} cannot be reverted: {gone} (#{gone.pk}) was "
                    f"merged into another identity{by}. Revert that first."
                )
            raise EditConflict(
                f"{gone} (#{gone.pk}) was merged into another identity since{by}; "
                "look at the page again."
            )
        # Their planned papers are where the plan found them (checked above), so any
        # count beyond those is a paper that arrived since.
        leaving = {m.author_id for m in self.planned_merges if m.into_after_id is not None}
        planned = sum(1 for m in self.planned_moves if m.from_author_id in leaving)
        if leaving and Authorship.objects.filter(author_id__in=leaving).count() != planned:
            raise EditConflict(
                "An identity to merge was given more papers since; look at the page again."
            )

    def _moved_message(self, moved: list[EditMove]) -> str:
        later = (
            EditMove.objects.filter(
                authorship_id=moved[0].authorship_id, edit__status=self.Status.APPLIED
            )
            .select_related("edit", "authorship__paper")
            .order_by("-edit_id")
            .first()
        )
        title = later.authorship.paper.title if later else f"authorship #{moved[0].authorship_id}"
        if self.reverts_id is not None:
            by = (
                f" by change #{later.edit_id}" if later and later.edit_id != self.reverts_id else ""
            )
            return (
                f"Change #{self.reverts_id} cannot be reverted: “{title}” was moved again{by}. "
                "Revert the later change first."
            )
        by = f" (by change #{later.edit_id})" if later else ""
        return (
            f"{count_papers(len(moved))} moved since the page was shown: “{title}”{by}. "
            "Look at the page again."
        )

    def _new_identity(self) -> Author:
        """The split's new identity: the cluster's name with the next free number."""
        base, _ = arrowfile.split_dblp_number(self.cluster.name)
        base_key = arrowfile.name_key(base)
        highest = Author.objects.filter(base_key=base_key).aggregate(n=Max("dblp_number"))["n"] or 0
        number = highest + 1
        self.save()  # the identity points at the edit that made it
        return Author.objects.create(
            name=f"{base} {number:04d}",
            name_key=self.cluster.key,
            base_key=base_key,
            dblp_number=number,
            created_by=self,
        )

    def _write_moves(self) -> None:
        """Bulk UPDATEs, one per (from, to, provenance) group and chunk; each still
        checks that the rows are where the plan found them."""
        groups: dict[tuple, list[int]] = defaultdict(list)
        for move in self.planned_moves:
            move.edit = self
            if self.kind == self.Kind.SPLIT:
                move.to_author = self.target
            if self.kind != self.Kind.REVERT:
                move.placed_by_after = self
            key = (
                move.from_author_id,
                move.to_author_id,
                move.placed_by_before_id,
                move.placed_by_after_id,
            )
            groups[key].append(move.authorship_id)
        if self.moves_stored:
            stored = EditMove.objects.filter(edit=self)
            if self.kind == self.Kind.SPLIT:
                stored.update(to_author=self.target)
            if self.kind != self.Kind.REVERT:
                stored.update(placed_by_after=self)
        else:
            EditMove.store(self.planned_moves)
        for (source, target, before, after), ids in groups.items():
            for chunk in chunked(ids):
                updated = Authorship.objects.filter(
                    pk__in=chunk, author_id=source, placed_by_id=before
                ).update(author_id=target, placed_by_id=after)
                if updated != len(chunk):
                    raise EditConflict(
                        "Papers moved while the change was being made; nothing was changed."
                    )

    def _write_merges(self) -> None:
        for merge in self.planned_merges:
            merge.edit = self
            updated = Author.objects.filter(
                pk=merge.author_id, merged_into_id=merge.into_before_id
            ).update(merged_into_id=merge.into_after_id)
            if updated != 1:
                raise EditConflict(
                    f"Identity #{merge.author_id} changed while the change was being made."
                )
        EditMerge.objects.bulk_create([merge for merge in self.planned_merges if not merge.pk])

    def _write_annotations(self) -> None:
        fields = self.changes.get("fields", {})
        if fields:
            Author.objects.filter(pk=self.target_id).update(
                **{name: after for name, (_, after) in fields.items()}
            )

    def _write_pairs(self) -> None:
        removed = self.changes.get("pairs_removed", [])
        for first, second in removed:
            DistinctPair.objects.filter(first_id=first, second_id=second).delete()
        DistinctPair.objects.bulk_create(
            [
                DistinctPair(first_id=first, second_id=second, edit=self)
                for first, second in self.changes.get("pairs_added", [])
            ]
        )

    def _settle_reverted(self) -> None:
        """A revert takes the reverted change out of effect; reverting a revert puts
        the change it undid back in effect."""
        if self.reverts_id is None:
            return
        Edit.objects.filter(pk=self.reverts_id).update(status=self.Status.REVERTED)
        if self.reverts.reverts_id is not None:
            Edit.objects.filter(pk=self.reverts.reverts_id).update(status=self.Status.APPLIED)

    def _refresh_clusters(self) -> None:
        for chunk in chunked(self.moved_clusters):
            clusters = NameCluster.objects.filter(pk__in=chunk)
            clusters.refresh_stats()
            if self.kind in (self.Kind.SPLIT, self.Kind.MOVE):
                clusters.update(is_curated=True)


class Placement(NamedTuple):
    """Where an authorship is now: what planning a change reads of each of its papers.
    A tuple, not a model instance, as a change may read thousands, and only the ids:
    a title is read only to name a paper in an error, and thousands of abstracts would
    cost more than the change itself."""

    pk: int
    cluster_id: int
    paper_id: int
    author_id: int | None
    placed_by_id: int | None

    @classmethod
    def of(cls, authorships: models.QuerySet) -> Iterator[Placement]:
        return (cls(*row) for row in authorships.values_list(*cls._fields))


def paper_title(authorship: Placement) -> str:
    """The title of an authorship's paper, for a message (1 query)."""
    return Paper.objects.filter(pk=authorship.paper_id).values_list("title", flat=True).get()


def cluster_identities(clusters: list[NameCluster]) -> list[tuple[int, str]]:
    """(id, name) of the live identities holding papers of these clusters (1 query)."""
    return list(
        Author.objects.filter(authorships__cluster__in=clusters, merged_into=None)
        .distinct()
        .order_by("name", "pk")
        .values_list("pk", "name")
    )


class EditMove(models.Model):
    """One authorship moved by an edit: exactly what it was before and after.

    A change of 5,000 papers writes 5,000 of these, so every index costs: each one
    here serves a lookup. An edit's moves are read through the unique (edit,
    authorship) index and an authorship's through editmove_latest_idx, so those two
    foreign keys have no index of their own; nothing looks moves up by provenance, and
    edits are never deleted, so placed_by_before and placed_by_after have none either.
    """

    edit = models.ForeignKey(Edit, on_delete=models.CASCADE, related_name="moves", db_index=False)
    authorship = models.ForeignKey(
        Authorship, on_delete=models.PROTECT, related_name="moves", db_index=False
    )
    # Null: unassigned (a paper that arrived after the name was split). Indexed for
    # an identity's history.
    from_author = models.ForeignKey(Author, null=True, on_delete=models.PROTECT, related_name="+")
    to_author = models.ForeignKey(Author, null=True, on_delete=models.PROTECT, related_name="+")
    # Authorship.placed_by before and after, so that a revert restores provenance too.
    placed_by_before = models.ForeignKey(
        Edit, null=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    placed_by_after = models.ForeignKey(
        Edit, null=True, on_delete=models.PROTECT, related_name="+", db_index=False
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["edit", "authorship"], name="editmove_unique_authorship"
            ),
        ]
        indexes = [
            # "Which change moved this authorship last?", for refused reverts.
            models.Index(fields=["authorship", "-edit"], name="editmove_latest_idx"),
        ]

    def __str__(self) -> str:
        return f"authorship {self.authorship_id}: #{self.from_author_id} → #{self.to_author_id}"

    @classmethod
    def leaving(cls, authorship: Placement, to: int | None = None) -> EditMove:
        """A planned move of this authorship from where it is now to identity `to`
        (to a split's new identity, made at apply time, when `to` is None)."""
        return cls(
            authorship_id=authorship.pk,
            from_author_id=authorship.author_id,
            to_author_id=to,
            placed_by_before_id=authorship.placed_by_id,
        )

    @classmethod
    def store(cls, moves: list[EditMove]) -> None:
        """INSERT the moves of one edit, without bulk_create's work per object and per
        bound value, which took a third of a 5,000-paper change: on PostgreSQL one
        statement whose columns, all ids, are arrays, on SQLite one executemany. The moves
        keep no primary key; nothing reads it."""
        if not moves:
            return
        fields = [field for field in cls._meta.concrete_fields if not field.primary_key]
        rows = [tuple(getattr(move, field.attname) for field in fields) for move in moves]
        names = ", ".join(connection.ops.quote_name(field.column) for field in fields)
        table = connection.ops.quote_name(cls._meta.db_table)
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                arrays = ", ".join(["%s::bigint[]"] * len(fields))
                cursor.execute(
                    f"INSERT INTO {table} ({names}) SELECT * FROM unnest({arrays})",
                    [list(column) for column in zip(*rows, strict=True)],
                )
            else:
                values = ", ".join(["%s"] * len(fields))
                cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({values})", rows)


class EditMerge(models.Model):
    """One identity merged away (or back) by an edit."""

    edit = models.ForeignKey(Edit, on_delete=models.CASCADE, related_name="merges")
    author = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="+")
    into_before = models.ForeignKey(Author, null=True, on_delete=models.PROTECT, related_name="+")
    into_after = models.ForeignKey(Author, null=True, on_delete=models.PROTECT, related_name="+")

    def __str__(self) -> str:
        return f"#{self.author_id}: into #{self.into_before_id} → #{self.into_after_id}"


class DistinctPairQuerySet(models.QuerySet):
    def among(self, identities: list[Author]) -> list[DistinctPair]:
        ids = [author.pk for author in identities]
        return list(
            self.filter(first_id__in=ids, second_id__in=ids).select_related(
                "first", "second", "edit"
            )
        )


class DistinctPair(models.Model):
    """Two identities an editor recorded as different people."""

    first = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="+")
    second = models.ForeignKey(Author, on_delete=models.PROTECT, related_name="+")
    edit = models.ForeignKey(Edit, on_delete=models.PROTECT, related_name="+")

    objects = DistinctPairQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["first", "second"], name="distinctpair_unique"),
            models.CheckConstraint(
                condition=Q(first__lt=models.F("second")), name="distinctpair_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.first_id} and #{self.second_id} are different people"
