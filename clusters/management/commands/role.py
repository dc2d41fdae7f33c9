"""python manage.py role USERNAME editor|moderator [--remove]: give or take a role."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

ROLES = {"editor": "editors", "moderator": "moderators"}


class Command(BaseCommand):
    help = "Give a user a role (editor: proposes; moderator: reviews and changes directly)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("role", choices=sorted(ROLES))
        parser.add_argument("--remove", action="store_true", help="take the role away")

    def handle(self, *args, username: str, role: str, remove: bool, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(
                f"no user {username!r}: create one with createsuperuser or the admin"
            )
        group = Group.objects.get(name=ROLES[role])
        if remove:
            user.groups.remove(group)
            self.stdout.write(f"{username} is no longer {role}.")
        else:
            user.groups.add(group)
            self.stdout.write(f"{username} is now {role}.")
