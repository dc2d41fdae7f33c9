"""Who may do what, on every URL; CSRF on every change; login throttling; the
production settings pass Django's deployment checks."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

from clusters.models import Author, Authorship, Edit, NameCluster, Paper, Report

from .conftest import picks

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = "public"  # anyone: GET answers 200
EDITORS = "editors"  # editors and moderators; anonymous: login; readers: 403
MODERATORS = "moderators"  # moderators only; anonymous: login; readers, editors: 403
MEMBERS = "members"  # any logged-in user

# Every URL of the site, with who may use it. A new URL fails the test below until
# it is listed here.
ACCESS = {
    "home": PUBLIC,
    "cluster-list": PUBLIC,
    "cluster-detail": PUBLIC,
    "author-detail": PUBLIC,
    "paper-detail": PUBLIC,
    "venue-list": PUBLIC,
    "venue-detail": PUBLIC,
    "venue-year": PUBLIC,
    "search": PUBLIC,
    "change-list": PUBLIC,
    "change-feed": PUBLIC,
    "change-detail": PUBLIC,
    "report": PUBLIC,
    "cluster-split": EDITORS,
    "cluster-suggestions": EDITORS,
    "ambiguity": EDITORS,
    "cluster-move": EDITORS,
    "cluster-merge": EDITORS,
    "cluster-distinct": EDITORS,
    "author-annotate": EDITORS,
    "change-revert": MODERATORS,
    "proposal-approve": MODERATORS,
    "proposal-reject": MODERATORS,
    "cluster-lock": MODERATORS,
    "cluster-unlock": MODERATORS,
    "moderation": MODERATORS,
    "report-handle": MODERATORS,
    "my-proposals": MEMBERS,
}


def test_every_url_of_the_site_has_a_rule():
    names = {name for name in get_resolver("clusters.urls").reverse_dict if isinstance(name, str)}
    assert names == set(ACCESS)


@pytest.fixture
def world(tang, moderator, editor):
    """One of everything a URL can name."""
    applied = Edit.plan_split(
        editor=moderator, reason="a", cluster=tang, picks=picks(tang, "Entities 0")
    ).apply()
    proposal = Edit.plan_split(
        editor=editor, reason="p", cluster=tang, picks=picks(tang, "Entities 1")
    ).propose()
    report = Report.objects.create(cluster=tang, text="wrong")
    paper = Paper.objects.select_related("venue").first()
    author = Author.objects.get(name="Hanlin Tang")
    args = {
        "cluster-detail": [tang.slug],
        "author-detail": [author.pk],
        "paper-detail": [paper.pk],
        "venue-detail": [paper.venue.slug],
        "venue-year": [paper.venue.slug, paper.year],
        "change-detail": [applied.pk],
        "change-revert": [applied.pk],
        "proposal-approve": [proposal.pk],
        "proposal-reject": [proposal.pk],
        "cluster-split": [tang.slug],
        "cluster-suggestions": [tang.slug],
        "cluster-move": [tang.slug],
        "cluster-merge": [tang.slug],
        "cluster-distinct": [tang.slug],
        "cluster-lock": [tang.slug],
        "cluster-unlock": [tang.slug],
        "author-annotate": [author.pk],
        "report-handle": [report.pk],
    }
    urls = {name: reverse(f"clusters:{name}", args=args.get(name, [])) for name in ACCESS}
    urls["report"] += f"?cluster={tang.slug}"
    return urls


def state() -> tuple:
    return (
        sorted(Authorship.objects.values_list("pk", "author_id")),
        sorted(Edit.objects.values_list("pk", "status")),
        sorted(Report.objects.values_list("pk", "status")),
        sorted(NameCluster.objects.values_list("pk", "locked_at")),
        sorted(Author.objects.values_list("pk", "merged_into_id", "label")),
    )


def allowed(rule: str, role: str) -> bool:
    return {
        PUBLIC: True,
        MEMBERS: role != "anonymous",
        EDITORS: role in ("editor", "moderator"),
        MODERATORS: role == "moderator",
    }[rule]


@pytest.mark.parametrize("role", ["anonymous", "reader", "editor", "moderator"])
def test_every_url_as_every_role(client, world, role, request):
    if role != "anonymous":
        client.force_login(request.getfixturevalue(role))
    for name, url in world.items():
        rule = ACCESS[name]
        before = state()
        for method in ("get", "post"):
            data = {"reason": "walk", "note": "walk"} if method == "post" else None
            response = getattr(client, method)(url, data)
            if allowed(rule, role):
                assert response.status_code in (200, 302, 405), (role, method, name)
                continue
            if role == "anonymous":
                assert response.status_code == 302, (role, method, name)
                assert response["Location"].startswith("/accounts/login/"), (role, method, name)
            else:
                assert response.status_code == 403, (role, method, name, response.status_code)
            assert state() == before, (role, method, name)
        if rule == PUBLIC and name != "report":
            assert client.get(url).status_code == 200, (role, name)


def test_changes_need_a_csrf_token(tang, moderator):
    client = Client(enforce_csrf_checks=True)
    client.force_login(moderator)
    before = state()
    url = reverse("clusters:cluster-split", args=[tang.slug])
    response = client.post(
        url, {"a": [f"{pk}:{a}" for pk, a in picks(tang, "Entities")], "reason": "r"}
    )
    assert response.status_code == 403
    assert state() == before


def test_every_change_is_a_post(client, world, moderator):
    client.force_login(moderator)
    before = state()
    for name in (
        "proposal-approve",
        "proposal-reject",
        "cluster-lock",
        "cluster-unlock",
        "report-handle",
    ):
        assert client.get(world[name]).status_code == 405, name
    for name in ("cluster-split", "change-revert", "author-annotate"):
        client.get(world[name])  # previews and forms only
    assert state() == before


def test_logins_are_throttled_after_five_failures(client, moderator):
    login = reverse("login")
    for _ in range(4):
        assert client.post(login, {"username": "mona", "password": "wrong"}).status_code == 200
    assert client.post(login, {"username": "mona", "password": "wrong"}).status_code == 429
    locked = client.post(login, {"username": "mona", "password": "mona-pass-1"})
    assert locked.status_code == 429
    assert "Too many attempts" in locked.text
    other = Client(REMOTE_ADDR="10.0.0.2")
    assert other.post(login, {"username": "mona", "password": "mona-pass-1"}).status_code == 302


def test_pages_carry_a_content_security_policy(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert client.get("/")["X-Frame-Options"] == "DENY"


def test_production_settings_pass_the_deployment_checks():
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DEBUG", "DATABASE_URL"}},
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "arrow.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout
