"""The admin repairs through the same curation path as the site."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clusters.models import Author, Edit

from .conftest import picks, snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, django_user_model):
    admin = django_user_model.objects.create_superuser("ada", password="admin-pass-1")
    client.force_login(admin)
    return admin


def test_merge_action_asks_for_a_reason_then_makes_an_edit(client, tang, staff):
    ids = list(Author.objects.filter(name__iexact="hanlin tang").values_list("pk", flat=True))
    changelist = reverse("admin:clusters_author_changelist")
    asked = client.post(changelist, {"action": "merge_identities", "_selected_action": ids})
    assert asked.status_code == 200 and "Keep as" in asked.text
    client.post(
        changelist,
        {
            "action": "merge_identities",
            "_selected_action": ids,
            "apply": "1",
            "into": ids[0],
            "reason": "same person, per homepage",
        },
    )
    edit = Edit.objects.get()
    assert (edit.kind, edit.editor, edit.target_id) == ("merge", staff, ids[0])
    assert Author.objects.get(pk=ids[1]).merged_into_id == ids[0]


def test_revert_action_undoes_changes_newest_first(client, tang, staff):
    identities = list(Author.objects.values_list("pk", flat=True))
    before = snapshot(identities)
    first = Edit.plan_split(
        editor=staff, reason="a", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    second = Edit.plan_move(
        editor=staff,
        reason="b",
        cluster=tang,
        picks=picks(tang, "Entities 0"),
        target=Author.objects.get(name="HANLIN TANG"),
    ).apply()
    client.post(
        reverse("admin:clusters_edit_changelist"),
        {
            "action": "revert_changes",
            "_selected_action": [first.pk, second.pk],
            "apply": "1",
            "reason": "both wrong",
        },
    )
    assert snapshot(identities) == before
    assert Edit.objects.filter(kind="revert").count() == 2


def test_annotations_saved_in_the_admin_are_edits(client, tang, staff):
    author = Author.objects.get(name="Hanlin Tang")
    url = reverse("admin:clusters_author_change", args=[author.pk])
    client.post(
        url,
        {
            "label": "Intel AI Lab",
            "affiliation": "",
            "orcid": "",
            "homepage": "",
            "reason": "from the paper",
        },
    )
    edit = Edit.objects.get()
    assert (edit.kind, edit.changes["fields"]["label"]) == ("annotate", ["", "Intel AI Lab"])
    assert Author.objects.get(pk=author.pk).label == "Intel AI Lab"


def test_identity_structure_is_read_only_in_the_admin(client, tang, staff):
    author = Author.objects.get(name="Hanlin Tang")
    page = client.get(reverse("admin:clusters_author_change", args=[author.pk])).text
    assert 'name="merged_into"' not in page and 'name="name"' not in page
    assert client.get(reverse("admin:clusters_authorship_add")).status_code == 403


def test_every_model_has_an_admin_page_that_loads(client, tang, staff):
    from django.apps import apps

    for model in apps.get_app_config("clusters").get_models():
        url = reverse(f"admin:clusters_{model._meta.model_name}_changelist")
        assert client.get(url, {"q": "tang"}).status_code == 200, model
