"""`manage.py curate`: the same changes from the shell."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from clusters.models import Author, Authorship, Edit

from .conftest import picks

pytestmark = pytest.mark.django_db


def curate(*args: object) -> str:
    out = io.StringIO()
    call_command("curate", *map(str, args), stdout=out)
    return out.getvalue()


def test_split_merge_and_revert_from_the_shell(tang, moderator):
    ids = [pk for pk, _ in picks(tang, "Entities")]
    out = curate("--editor", "mona", "--reason", "NER person", "split", "Hanlin Tang", *ids)
    split = Edit.objects.get()
    assert out.startswith(f"Change #{split.pk}: split applied: 2 authorships moved.")
    assert Authorship.objects.filter(author=split.target).count() == 2
    main, shouted = Author.objects.get(name="Hanlin Tang"), Author.objects.get(name="HANLIN TANG")
    curate("--editor", "mona", "--reason", "one", "merge", main.pk, shouted.pk, "--into", main.pk)
    curate("--editor", "mona", "--reason", "undo", "revert", split.pk)
    assert Edit.objects.get(pk=split.pk).status == "reverted"


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--editor", "nobody", "--reason", "r", "revert", "1"],
            "'nobody' is not a user who may curate",
        ),
        (["--editor", "mona", "--reason", "r", "revert", "999"], "no change #999"),
        (
            ["--editor", "mona", "--reason", "r", "split", "Nobody Here", "1"],
            "no cluster named 'Nobody Here'",
        ),
        (
            ["--editor", "mona", "--reason", "r", "merge", "{main}", "--into", "{main}"],
            "cannot merge into itself",
        ),
    ],
)
def test_bad_commands_say_what_is_wrong(tang, moderator, args, message):
    main = Author.objects.get(name="Hanlin Tang").pk
    with pytest.raises(CommandError, match=message):
        curate(*[arg.format(main=main) for arg in args])
    assert not Edit.objects.exists()


def test_an_editor_proposes_from_the_shell(tang, editor):
    ids = [pk for pk, _ in picks(tang, "Entities")]
    out = curate("--editor", "edith", "--reason", "NER", "split", "Hanlin Tang", *ids)
    assert Edit.objects.get().status == "proposed" and " proposed: 2 authorships moved." in out
    with pytest.raises(CommandError, match="Only moderators revert changes."):
        curate("--editor", "edith", "--reason", "r", "revert", Edit.objects.get().pk)
