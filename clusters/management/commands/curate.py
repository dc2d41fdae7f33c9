"""python manage.py curate split|move|merge|revert ...: curation from the shell,
through the same Edit path as the pages (recorded, with a reason, revertible)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from clusters.models import Author, Authorship, Edit, EditConflict, NameCluster


class Command(BaseCommand):
    help = "Split, move, merge or revert, as an editor would from the site."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--editor", required=True, help="username the change is made as")
        parser.add_argument("--reason", required=True)
        actions = parser.add_subparsers(dest="action", required=True)
        split = actions.add_parser("split", help="chosen authorships become a new identity")
        split.add_argument("cluster", help="the cluster's slug or name")
        split.add_argument("authorships", nargs="+", type=int)
        move = actions.add_parser("move", help="chosen authorships go to an identity")
        move.add_argument("cluster", help="the cluster's slug or name")
        move.add_argument("authorships", nargs="+", type=int)
        move.add_argument("--to", type=int, required=True, help="the identity's id")
        merge = actions.add_parser("merge", help="identities become one")
        merge.add_argument("identities", nargs="+", type=int)
        merge.add_argument("--into", type=int, required=True, help="the identity kept")
        revert = actions.add_parser("revert", help="undo an applied change")
        revert.add_argument("change", type=int)

    def handle(self, *args, action: str, editor: str, reason: str, **options) -> None:
        user = get_user_model().objects.filter(username=editor).first()
        if user is None or not (
            user.has_perm("clusters.curate") or user.has_perm("clusters.propose")
        ):
            raise CommandError(f"{editor!r} is not a user who may curate identities")
        if action == "revert" and not user.has_perm("clusters.curate"):
            raise CommandError("Only moderators revert changes.")
        try:
            edit = getattr(self, f"plan_{action}")(user, reason, **options).submit()
        except EditConflict as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"{edit} {edit.status}: {edit.moves.count()} authorships moved. "
            f"{edit.get_absolute_url()}"
        )

    def cluster(self, name: str) -> NameCluster:
        cluster = NameCluster.objects.for_names([name]).first()
        if cluster is None:
            raise CommandError(f"no cluster named {name!r}")
        return cluster

    def identity(self, pk: int) -> Author:
        author = Author.objects.filter(pk=pk).first()
        if author is None:
            raise CommandError(f"no identity #{pk}")
        return author

    def picks(self, ids: list[int]) -> list[tuple[int, int | None]]:
        """From the shell the choice is of what the database holds now."""
        found = dict(Authorship.objects.filter(pk__in=ids).values_list("pk", "author_id"))
        return [(pk, found.get(pk)) for pk in ids]

    def plan_split(
        self, user, reason: str, cluster: str, authorships: list[int], **options
    ) -> Edit:
        return Edit.plan_split(
            editor=user, reason=reason, cluster=self.cluster(cluster), picks=self.picks(authorships)
        )

    def plan_move(
        self, user, reason: str, cluster: str, authorships: list[int], to: int, **options
    ) -> Edit:
        return Edit.plan_move(
            editor=user,
            reason=reason,
            cluster=self.cluster(cluster),
            picks=self.picks(authorships),
            target=self.identity(to),
        )

    def plan_merge(self, user, reason: str, identities: list[int], into: int, **options) -> Edit:
        return Edit.plan_merge(
            editor=user,
            reason=reason,
            identities=[self.identity(pk) for pk in identities],
            into=self.identity(into),
        )

    def plan_revert(self, user, reason: str, change: int, **options) -> Edit:
        edit = Edit.objects.filter(pk=change).first()
        if edit is None:
            raise CommandError(f"no change #{change}")
        return edit.plan_revert(editor=user, reason=reason)
