"""Readers' pages are kept rendered (clusters/pagecache.py): a second view costs one
query, and no change (an edit, an approval, an import, a lock) is ever hidden by it."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from clusters.models import Author, Edit
from clusters.pagecache import for_readers

from .conftest import make_paper, picks, run_import, write_dump

pytestmark = pytest.mark.django_db


def anonymous_get(client, url: str):
    client.logout()
    client.cookies.clear()
    return client.get(url)


def test_a_second_view_is_served_whole_for_one_query(client, tang, django_assert_num_queries):
    first = client.get(tang.get_absolute_url())
    assert first["X-Page-Cache"] == "miss"
    # the version of the edits, which is part of the page's key
    with django_assert_num_queries(1):
        second = client.get(tang.get_absolute_url())
    assert second["X-Page-Cache"] == "hit"
    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]
    assert "Cookie" in second["Vary"]
    # another page, or the same page's JSON twin, is another entry
    twin = client.get(tang.get_absolute_url() + "?format=json")
    assert twin["X-Page-Cache"] == "miss" and twin.json()["cluster"]["slug"] == tang.slug


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/clusters/",
        "/clusters/hanlin-tang/",
        "/venues/",
        "/search/?q=entities",
    ],
)
def test_every_readers_page_is_kept(client, tang, url):
    assert client.get(url)["X-Page-Cache"] == "miss"
    assert client.get(url)["X-Page-Cache"] == "hit"


def test_an_applied_edit_shows_at_once(client, tang, editor):
    url = tang.get_absolute_url()
    assert len(client.get(url + "?format=json").json()["identities"]) == 2
    Edit.plan_split(
        editor=editor, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    after = client.get(url + "?format=json")
    assert after["X-Page-Cache"] == "miss"
    assert len(after.json()["identities"]) == 3


def test_an_approval_shows_at_once(client, tang, editor, moderator):
    """Approving keeps the proposal's id: the review time moves the version."""
    proposal = Edit.plan_split(
        editor=editor, reason="NER", cluster=tang, picks=picks(tang, "Entities")
    ).propose()
    url = tang.get_absolute_url() + "?format=json"
    assert len(client.get(url).json()["identities"]) == 2
    assert client.get(url)["X-Page-Cache"] == "hit"
    proposal.approve(moderator)
    assert len(client.get(url).json()["identities"]) == 3


def test_an_import_shows_at_once(client, tang, tmp_path):
    url = "/search/?q=radiance&format=json"
    assert client.get(url).json()["results"] == []
    write_dump(tmp_path / "more", [make_paper("Neural Radiance Fields", ("Hanlin Tang",))])
    run_import(tmp_path / "more")
    assert [paper["title"] for paper in client.get(url).json()["results"]] == [
        "Neural Radiance Fields"
    ]
    home = client.get("/?format=json").json()
    assert home["figures"]["papers"] == 7


def test_a_lock_shows_at_once(client, tang, moderator):
    url = tang.get_absolute_url()
    assert "Locked by the moderators" not in client.get(url).text
    client.force_login(moderator)
    client.post(reverse("clusters:cluster-lock", args=[tang.slug]), {"reason": "edit war"})
    assert "Locked by the moderators: edit war" in anonymous_get(client, url).text
    client.force_login(moderator)
    client.post(reverse("clusters:cluster-unlock", args=[tang.slug]))
    assert "Locked by the moderators" not in anonymous_get(client, url).text


def test_signed_in_users_neither_read_nor_fill_it(client, tang, editor):
    url = tang.get_absolute_url()
    reader_page = client.get(url)
    client.force_login(editor)
    editors_page = client.get(url)
    assert "X-Page-Cache" not in editors_page
    assert "edith" in editors_page.text and "edith" not in reader_page.text
    assert 'name="a"' in editors_page.text and 'name="a"' not in reader_page.text
    # and the editor's page was not kept for the next reader
    assert "edith" not in anonymous_get(client, url).text


def test_a_reader_with_flash_messages_gets_the_page_made_for_them(client, tang):
    url = tang.get_absolute_url()
    client.get(url)
    client.cookies[CookieStorage.cookie_name] = "anything"
    assert "X-Page-Cache" not in client.get(url)


def test_it_can_be_turned_off(client, tang, settings):
    settings.PAGE_CACHE_SECONDS = 0
    client.get(tang.get_absolute_url())
    response = client.get(tang.get_absolute_url())
    assert "X-Page-Cache" not in response and response.context["data"]["cluster"]


def test_a_missing_page_is_not_kept(client, tang):
    assert client.get("/clusters/nobody-at-all/").status_code == 404
    assert "X-Page-Cache" not in client.get("/clusters/nobody-at-all/")


def test_an_identity_merged_away_still_redirects(client, tang, editor):
    first, second = Author.objects.get(name="Hanlin Tang"), Author.objects.get(name="HANLIN TANG")
    assert client.get(second.get_absolute_url()).status_code == 200
    Edit.plan_merge(
        editor=editor, reason="one person", identities=[first, second], into=first
    ).apply()
    response = client.get(second.get_absolute_url())
    assert response.status_code == 301 and response["Location"] == first.get_absolute_url()


class SlowPage:
    """A view that holds its request until released, and counts how often it is made."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.made = 0
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, request):
        self.made += 1
        self.entered.set()
        assert self.release.wait(5)
        return HttpResponse(f"page {self.made}", status=self.status)


def ask_in_thread(view, answers: list):
    """Request the page in another thread, as a reader whose page's key is known (so
    the thread asks nothing of the test's database)."""
    request = RequestFactory().get("/slow/")
    request.arrow_made_from = "version"
    thread = threading.Thread(target=lambda: answers.append(for_readers(view)(request)))
    thread.start()
    return thread


def test_readers_asking_for_a_page_being_made_wait_for_it(db):
    page = SlowPage()
    answers = []
    first = ask_in_thread(page, answers)
    assert page.entered.wait(5)
    second = ask_in_thread(page, answers)
    time.sleep(0.2)  # the second request is waiting, not making the page
    assert page.made == 1 and len(answers) == 0
    page.release.set()
    first.join(5), second.join(5)
    assert page.made == 1
    assert [answer["X-Page-Cache"] for answer in answers] == ["miss", "hit"]
    assert answers[0].content == answers[1].content == b"page 1"


def test_a_page_that_is_not_kept_is_made_by_each_reader_that_waited(db):
    page = SlowPage(status=404)
    answers = []
    first = ask_in_thread(page, answers)
    assert page.entered.wait(5)
    second = ask_in_thread(page, answers)
    time.sleep(0.2)
    assert page.made == 1
    page.release.set()
    first.join(5), second.join(5)
    assert page.made == 2
    assert sorted(answer.content for answer in answers) == [b"page 1", b"page 2"]
    assert all(answer.status_code == 404 and "X-Page-Cache" not in answer for answer in answers)
