"""Editors propose, moderators review: nothing changes without a second pair of eyes
unless a moderator made it. Readers report problems into the same queue."""

from __future__ import annotations

import time

import pytest
from django.core import mail
from django.core.signing import Signer
from django.urls import reverse

from clusters.models import Author, Edit, EditConflict, Report

from .conftest import picks, snapshot

pytestmark = pytest.mark.django_db


def chosen(cluster, prefix: str) -> list[str]:
    return [f"{pk}:{author or ''}" for pk, author in picks(cluster, prefix)]


def propose_split(client, cluster, prefix="Entities", reason="NER papers: another person"):
    return client.post(
        reverse("clusters:cluster-split", args=[cluster.slug]),
        {"a": chosen(cluster, prefix), "reason": reason},
    )


def test_an_editors_split_is_a_proposal_that_changes_nothing(client, tang, editor):
    client.force_login(editor)
    before = snapshot()
    response = propose_split(client, tang)
    proposal = Edit.objects.get()
    assert response["Location"] == proposal.get_absolute_url()
    assert (proposal.status, proposal.editor, proposal.moves.count()) == ("proposed", editor, 2)
    assert snapshot() == before
    page = client.get(tang.get_absolute_url())
    assert [p["id"] for p in page.context["data"]["pending"]] == [proposal.pk]
    assert "Your changes are proposals" in page.text
    mine = client.get(reverse("clusters:my-proposals")).context["data"]["proposals"]
    assert [(p["id"], p["status"]) for p in mine] == [(proposal.pk, "proposed")]


def test_identity_pages_list_a_proposal_as_soon_as_it_is_made_and_drop_it_when_rejected(
    client, tang, editor, moderator
):
    # The identity's summary is cached: the proposal and its review must each show at once.
    ner = (
        Author.objects.filter(name="Hanlin Tang", authorships__paper__title__startswith="Entities")
        .distinct()
        .get()
    )

    def pending() -> list[int]:
        return [p["id"] for p in client.get(ner.get_absolute_url()).context["data"]["pending"]]

    assert pending() == []
    client.force_login(editor)
    propose_split(client, tang)
    proposal = Edit.objects.get()
    assert pending() == [proposal.pk]
    client.force_login(moderator)
    client.post(reverse("clusters:proposal-reject", args=[proposal.pk]), {"note": "one person"})
    assert pending() == []


def test_a_moderator_approves_from_the_queue_and_the_editor_hears(client, tang, editor, moderator):
    client.force_login(editor)
    propose_split(client, tang)
    proposal = Edit.objects.get()
    client.force_login(moderator)
    queue = client.get(reverse("clusters:moderation")).context["data"]["proposals"]
    assert [(p["id"], p["moved"]) for p in queue] == [(proposal.pk, 2)]
    assert "Approve and apply" in client.get(proposal.get_absolute_url()).text
    client.post(reverse("clusters:proposal-approve", args=[proposal.pk]), {"note": "agreed"})
    proposal.refresh_from_db()
    assert (proposal.status, proposal.reviewed_by, proposal.review_note) == (
        "applied",
        moderator,
        "agreed",
    )
    assert Author.objects.get(name="Hanlin Tang 0001").authorships.count() == 2
    (message,) = mail.outbox
    assert message.to == ["edith@example.org"] and "was applied" in message.subject


def test_nobody_approves_their_own_proposal(client, tang, moderator):
    own = Edit.plan_split(
        editor=moderator, reason="mine", cluster=tang, picks=picks(tang, "Entities")
    ).propose()
    with pytest.raises(EditConflict, match="Nobody approves their own proposal"):
        own.approve(moderator)
    client.force_login(moderator)
    assert "Approve and apply" not in client.get(own.get_absolute_url()).text
    client.post(reverse("clusters:proposal-approve", args=[own.pk]))
    assert Edit.objects.get(pk=own.pk).status == "proposed"


def test_a_proposal_whose_papers_moved_is_marked_stale(
    client, tang, editor, moderator, other_moderator
):
    proposal = Edit.plan_split(
        editor=editor, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).propose()
    Edit.plan_move(
        editor=other_moderator,
        reason="first",
        cluster=tang,
        picks=picks(tang, "Entities 1"),
        target=Author.objects.get(name="HANLIN TANG"),
    ).apply()
    before = snapshot()
    client.force_login(moderator)
    response = client.post(reverse("clusters:proposal-approve", args=[proposal.pk]), follow=True)
    assert "is stale and was not applied" in response.text
    proposal.refresh_from_db()
    assert proposal.status == "stale" and "moved since" in proposal.review_note
    assert snapshot() == before
    assert "was stale" in mail.outbox[0].subject


def test_reject_needs_a_note_which_the_editor_reads(client, tang, editor, moderator):
    proposal = Edit.plan_split(
        editor=editor, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).propose()
    client.force_login(moderator)
    client.post(reverse("clusters:proposal-reject", args=[proposal.pk]), {"note": ""})
    assert Edit.objects.get(pk=proposal.pk).status == "proposed"
    client.post(
        reverse("clusters:proposal-reject", args=[proposal.pk]),
        {"note": "Same person: see her homepage"},
    )
    assert Edit.objects.get(pk=proposal.pk).status == "rejected"
    client.force_login(editor)
    assert "Same person: see her homepage" in client.get(reverse("clusters:my-proposals")).text
    assert "was rejected" in mail.outbox[0].subject


def test_the_queue_flags_proposals_on_the_same_papers(
    client, tang, editor, other_editor, moderator
):
    first = Edit.plan_split(
        editor=editor, reason="a", cluster=tang, picks=picks(tang, "Entities")
    ).propose()
    second = Edit.plan_move(
        editor=other_editor,
        reason="b",
        cluster=tang,
        picks=picks(tang, "Entities 0"),
        target=Author.objects.get(name="HANLIN TANG"),
    ).propose()
    alone = Edit.plan_split(
        editor=editor, reason="c", cluster=tang, picks=picks(tang, "Optimisation 0")
    ).propose()
    client.force_login(moderator)
    queue = {
        p["id"]: p["conflicts"]
        for p in client.get(reverse("clusters:moderation")).context["data"]["proposals"]
    }
    assert queue == {first.pk: [second.pk], second.pk: [first.pk], alone.pk: []}
    only_moves = client.get(reverse("clusters:moderation"), {"kind": "move"}).context["data"][
        "proposals"
    ]
    assert [p["id"] for p in only_moves] == [second.pk]


def test_a_locked_name_takes_no_proposals(client, tang, editor, moderator):
    client.force_login(moderator)
    client.post(reverse("clusters:cluster-lock", args=[tang.slug]), {"reason": "edit war"})
    client.force_login(editor)
    page = client.get(tang.get_absolute_url())
    assert "Locked by the moderators: edit war" in page.text
    response = propose_split(client, tang)
    assert not Edit.objects.exists()
    assert "locked by the moderators (edit war)" in client.get(response["Location"]).text
    client.force_login(moderator)
    client.post(reverse("clusters:cluster-unlock", args=[tang.slug]))
    client.force_login(editor)
    propose_split(client, tang)
    assert Edit.objects.get().status == "proposed"


# -- readers' reports -------------------------------------------------------------------


def report(client, cluster, text="Two people here", seconds_ago=10, **extra):
    started = Signer(salt="arrow.report").sign(f"{time.time() - seconds_ago:.3f}")
    data = {
        "cluster": cluster.slug,
        "text": text,
        "contact": "",
        "website": "",
        "started": started,
        **extra,
    }
    return client.post(reverse("clusters:report"), data)


def test_anyone_reports_a_problem_and_a_moderator_resolves_it(client, tang, moderator):
    form = client.get(reverse("clusters:report"), {"cluster": tang.slug})
    assert form.status_code == 200 and 'name="started"' in form.text
    assert report(client, tang)["Location"] == tang.get_absolute_url()
    filed = Report.objects.get()
    assert (filed.cluster, filed.text, filed.status) == (tang, "Two people here", "open")
    client.force_login(moderator)
    queue = client.get(reverse("clusters:moderation")).context["data"]["reports"]
    assert [r["id"] for r in queue] == [filed.pk]
    client.post(
        reverse("clusters:report-handle", args=[filed.pk]), {"status": "resolved", "note": "split"}
    )
    filed.refresh_from_db()
    assert (filed.status, filed.handled_by, filed.note) == ("resolved", moderator, "split")


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"website": "http://spam.example"}, "looks automated"),
        ({"seconds_ago": 0}, "That was quick"),
        ({"started": "forged"}, "This form is broken"),
        ({"seconds_ago": 3 * 86400}, "has expired"),
        ({"text": ""}, "This field is required."),
    ],
)
def test_reports_that_look_automated_or_broken_are_refused(client, tang, extra, message):
    response = report(client, tang, **extra)
    assert response.status_code == 200 and message in response.text
    assert not Report.objects.exists()


def test_reports_are_rate_limited_per_address(client, tang):
    for _ in range(5):
        assert report(client, tang).status_code == 302
    sixth = report(client, tang)
    assert sixth.status_code == 200 and "At most 5 reports an hour" in sixth.text
    assert Report.objects.count() == 5


def test_the_role_command_gives_and_takes_roles(django_user_model):
    import io

    from django.core.management import CommandError, call_command

    user = django_user_model.objects.create_user("newbie")
    call_command("role", "newbie", "moderator", stdout=io.StringIO())
    user = django_user_model.objects.get(pk=user.pk)
    assert user.has_perm("clusters.moderate") and user.has_perm("clusters.curate")
    call_command("role", "newbie", "moderator", "--remove", stdout=io.StringIO())
    assert not django_user_model.objects.get(pk=user.pk).has_perm("clusters.curate")
    with pytest.raises(CommandError, match="no user 'ghost'"):
        call_command("role", "ghost", "editor")


def test_an_editor_in_the_admin_proposes_too(client, tang, editor):
    from django.contrib.auth.models import Permission

    editor.is_staff = True
    editor.save()
    editor.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_author", "change_author"])
    )
    client.force_login(editor)
    ids = list(Author.objects.filter(name__iexact="hanlin tang").values_list("pk", flat=True))
    before = snapshot()
    client.post(
        reverse("admin:clusters_author_changelist"),
        {
            "action": "merge_identities",
            "_selected_action": ids,
            "apply": "1",
            "into": ids[0],
            "reason": "same",
        },
    )
    assert Edit.objects.get().status == "proposed" and snapshot() == before
