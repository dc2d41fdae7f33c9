"""The editors' pages: each action previews on GET, applies on POST, and refuses
the wrong people and the wrong method with the database unchanged."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clusters.models import Author, Authorship, Edit, NameCluster

from .conftest import make_paper, picks, run_import, snapshot, write_dump

pytestmark = pytest.mark.django_db


def chosen(cluster: NameCluster, prefix: str) -> list[str]:
    return [f"{pk}:{author or ''}" for pk, author in picks(cluster, prefix)]


def url(name: str, cluster: NameCluster) -> str:
    return reverse(f"clusters:cluster-{name}", args=[cluster.slug])


def test_editors_see_the_controls_and_readers_do_not(client, tang, reader, moderator):
    assert "Edit identities" not in client.get(tang.get_absolute_url()).text
    client.force_login(reader)
    assert "Edit identities" not in client.get(tang.get_absolute_url()).text
    client.force_login(moderator)
    page = client.get(tang.get_absolute_url()).text
    assert "Edit identities" in page
    pick = chosen(tang, "Entities 0")[0]
    assert f'name="a" value="{pick}"' in page


def test_split_previews_then_applies_and_redirects_to_the_change(client, tang, moderator):
    client.force_login(moderator)
    picked = chosen(tang, "Entities")
    preview = client.get(url("split", tang), {"a": picked})
    assert preview.status_code == 200
    assert "Nothing has changed yet" in preview.text
    assert "2 from Hanlin Tang" in preview.text and "Entities 0" in preview.text
    assert not Edit.objects.exists()

    response = client.post(
        url("split", tang), {"a": picked, "reason": "NER papers: another person"}
    )
    edit = Edit.objects.get()
    assert response.status_code == 302 and response["Location"] == edit.get_absolute_url()
    assert (edit.kind, edit.editor, edit.reason) == (
        "split",
        moderator,
        "NER papers: another person",
    )
    assert Authorship.objects.filter(author=edit.target).count() == 2
    change = client.get(edit.get_absolute_url())
    assert "Papers moved (2)" in change.text and "Hanlin Tang 0001" in change.text
    original = Author.objects.get(name="Hanlin Tang")
    assert "This identity was split into" in client.get(original.get_absolute_url()).text


def test_a_reason_is_required(client, tang, moderator):
    client.force_login(moderator)
    response = client.post(url("split", tang), {"a": chosen(tang, "Entities"), "reason": "  "})
    assert response.status_code == 200
    assert "Say why" in response.text and not Edit.objects.exists()


def test_a_stale_page_gets_a_message_and_changes_nothing(client, tang, moderator, other_editor):
    client.force_login(moderator)
    stale = chosen(tang, "Entities")
    Edit.plan_split(
        editor=other_editor, reason="first", cluster=tang, picks=picks(tang, "Entities 1")
    ).apply()
    before = snapshot()
    response = client.post(url("split", tang), {"a": stale, "reason": "late"}, follow=True)
    assert "moved since the page was shown" in response.text
    assert snapshot() == before and Edit.objects.count() == 1


@pytest.mark.parametrize(
    "params, message",
    [
        ({}, "Choose at least one paper."),
        ({"a": ["x:y"]}, "is not a paper choice this site makes"),
    ],
)
def test_bad_selections_come_back_with_a_message(client, tang, moderator, params, message):
    client.force_login(moderator)
    response = client.get(url("split", tang), params, follow=True)
    assert message in response.text and not Edit.objects.exists()


def test_move_and_merge_through_their_pages(client, tang, moderator):
    client.force_login(moderator)
    shouted = Author.objects.get(name="HANLIN TANG")
    response = client.post(
        url("move", tang), {"a": chosen(tang, "Optimisation 2"), "to": shouted.pk, "reason": "same"}
    )
    assert response.status_code == 302
    assert Authorship.objects.filter(author=shouted).count() == 2
    main = Author.objects.get(name="Hanlin Tang")
    preview = client.get(url("merge", tang), {"i": [main.pk, shouted.pk]})
    assert f"Merge 2 identities into Hanlin Tang (#{main.pk})" in preview.text
    client.post(url("merge", tang), {"i": [main.pk, shouted.pk], "into": main.pk, "reason": "one"})
    shouted.refresh_from_db()
    assert shouted.merged_into == main


def test_different_people_block_a_merge_until_overridden(client, tang, moderator):
    client.force_login(moderator)
    ids = list(Author.objects.filter(name__iexact="hanlin tang").values_list("pk", flat=True))
    client.post(url("distinct", tang), {"i": ids, "reason": "Intel and Rochester"})
    refused = client.get(url("merge", tang), {"i": ids}, follow=True)
    assert "recorded as different people" in refused.text
    client.post(url("merge", tang), {"i": ids, "reason": "wrong record", "override_distinct": "on"})
    assert Author.objects.filter(pk__in=ids, merged_into__isnull=False).count() == 1


def test_annotate_validates_the_orcid_checksum(client, tang, moderator):
    client.force_login(moderator)
    author = Author.objects.get(name="Hanlin Tang")
    annotate = reverse("clusters:author-annotate", args=[author.pk])
    bad = client.post(annotate, {"orcid": "0000-0002-1825-0098", "reason": "r"})
    assert bad.status_code == 200 and "wrong check digit" in bad.text
    client.post(annotate, {"orcid": "0000-0002-1825-0097", "label": "optimisation", "reason": "r"})
    author.refresh_from_db()
    assert author.orcid == "0000-0002-1825-0097"
    assert "optimisation" in client.get(author.get_absolute_url()).text


def test_revert_from_the_change_page(client, tang, moderator):
    client.force_login(moderator)
    before = snapshot()
    client.post(
        url("move", tang),
        {
            "a": chosen(tang, "Optimisation 2"),
            "to": Author.objects.get(name="HANLIN TANG").pk,
            "reason": "same",
        },
    )
    edit = Edit.objects.get()
    revert = reverse("clusters:change-revert", args=[edit.pk])
    assert "1 from HANLIN TANG" in client.get(revert).text
    client.post(revert, {"reason": "it was not"})
    assert snapshot() == before
    assert Edit.objects.get(pk=edit.pk).status == "reverted"
    again = client.get(revert, follow=True)
    assert "not in effect" in again.text


def test_history_feed_and_provenance(client, tang, moderator):
    edit = Edit.plan_split(
        editor=moderator, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    assert f"#{edit.pk} split" in client.get(f"/changes/?cluster={tang.slug}").text
    assert f"#{edit.pk} split" in client.get(f"/changes/?identity={edit.target.pk}").text
    assert "No changes yet" in client.get("/changes/?kind=merge").text
    feed = client.get(reverse("clusters:change-feed"))
    assert feed["Content-Type"].startswith("application/atom+xml")
    assert f"#{edit.pk} split in Hanlin Tang by mona" in feed.text
    cluster_page = client.get(tang.get_absolute_url()).text
    assert (
        f'Placed here by <a href="{edit.get_absolute_url()}">change #{edit.pk}</a>' in cluster_page
    )


def test_unassigned_papers_are_listed_on_the_cluster_page(client, tang, moderator, tmp_path):
    Edit.plan_split(
        editor=moderator, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    write_dump(tmp_path / "newer", [make_paper("Entities 9", ("Hongli Mao", "Hanlin Tang"))])
    run_import(tmp_path / "newer")
    data = client.get(tang.get_absolute_url()).context["data"]
    assert data["groups"][0]["identity"]["name"] == "Unassigned"
    assert [p["title"] for p in data["groups"][0]["papers"]] == ["Entities 9"]


ACTIONS = ["split", "move", "merge", "distinct"]


@pytest.mark.parametrize("action", ACTIONS)
def test_anonymous_users_are_sent_to_log_in_and_nothing_changes(client, tang, action):
    before = snapshot()
    response = client.post(url(action, tang), {"a": chosen(tang, "Entities"), "reason": "r"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert snapshot() == before


@pytest.mark.parametrize("action", ACTIONS)
def test_readers_get_403_and_nothing_changes(client, tang, reader, action):
    client.force_login(reader)
    before = snapshot()
    response = client.post(url(action, tang), {"a": chosen(tang, "Entities"), "reason": "r"})
    assert response.status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("action", ACTIONS)
def test_other_methods_are_405(client, tang, moderator, action):
    client.force_login(moderator)
    assert client.put(url(action, tang)).status_code == 405
    assert client.delete(url(action, tang)).status_code == 405


def test_revert_and_annotate_refuse_readers(client, tang, reader, moderator):
    edit = Edit.plan_split(
        editor=moderator, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    client.force_login(reader)
    before = snapshot()
    assert (
        client.post(reverse("clusters:change-revert", args=[edit.pk]), {"reason": "r"}).status_code
        == 403
    )
    author = Author.objects.get(name="Hanlin Tang")
    assert (
        client.post(
            reverse("clusters:author-annotate", args=[author.pk]), {"label": "x", "reason": "r"}
        ).status_code
        == 403
    )
    assert snapshot() == before


def test_pages_around_an_unassigned_paper_still_render(client, tang, moderator, tmp_path):
    Edit.plan_split(
        editor=moderator, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    write_dump(tmp_path / "newer", [make_paper("Entities 9", ("Hongli Mao", "Hanlin Tang"))])
    run_import(tmp_path / "newer")
    paper = Authorship.objects.get(paper__title="Entities 9", author=None).paper
    mao = Author.objects.get(name="Hongli Mao")
    for page in (
        paper.get_absolute_url(),
        mao.get_absolute_url(),
        tang.get_absolute_url(),
        "/search/?q=entities",
    ):
        assert client.get(page).status_code == 200, page
    assert (
        'Hanlin Tang<span class="meta"> (unassigned)</span>'
        in client.get(mao.get_absolute_url()).text
    )


def test_identity_page_lets_an_editor_split_its_papers(client, tang, moderator):
    client.force_login(moderator)
    author = Author.objects.get(name="Hanlin Tang")
    page = client.get(author.get_absolute_url())
    pick = [p for p in page.context["data"]["papers"] if p["title"] == "Entities 0"][0]
    assert f'value="{pick["authorship"]["pick"]}" id="pick-' in page.text
    assert reverse("clusters:cluster-split", args=[tang.slug]) in page.text
    client.post(
        reverse("clusters:cluster-split", args=[tang.slug]),
        {
            "a": [pick["authorship"]["pick"]],
            "reason": "from the identity page",
        },
    )
    edit = Edit.objects.get()
    paper = Authorship.objects.get(pk=pick["authorship"]["id"]).paper
    authors = client.get(paper.get_absolute_url()).context["data"]["paper"]["authors"]
    assert [(a["name"], a["placed_by"]) for a in authors] == [
        ("Hongli Mao", None),
        ("Hanlin Tang", edit.pk),
    ]
    home = client.get("/").context["data"]["recent_changes"]
    assert [(c["id"], c["kind"], c["moved"]) for c in home] == [(edit.pk, "split", 1)]
