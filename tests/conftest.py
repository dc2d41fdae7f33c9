"""Shared test helpers: small make_* builders for cluster files and a dump on disk.

Data comes from these helpers, never from JSON fixtures. Tests that need the real
material in ../shared (seeds and the corpus) use the `shared` fixture, which skips
where that folder is absent (a fresh clone) and is present in CI.
"""

from __future__ import annotations

import importlib
import io
import os
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils.text import slugify

from clusters import arrowfile
from clusters.arrowfile import ClusterFile, PaperBlock

SHARED = Path(
    os.environ.get("ARROW_SHARED", Path(__file__).resolve().parent.parent.parent / "shared")
)


@pytest.fixture(scope="session", autouse=True)
def collected_static(tmp_path_factory) -> Path:
    """Serve static files as production does: hashed and compressed by collectstatic,
    so a template naming a missing file fails its test."""
    root = tmp_path_factory.mktemp("static")
    settings.STATIC_ROOT = root
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    return root


CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Playwright drives Debian's Chromium; it downloads no browser of its own."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs the chromium package")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium to run browser tests")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture
def screenshot(page):
    """Saves what the reader sees to artifacts/ (ignored by git), to look at."""
    ARTIFACTS.mkdir(exist_ok=True)

    def take(name: str) -> None:
        page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)

    return take


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test starts with an empty cache (the front page caches its figures)."""
    cache.clear()


@pytest.fixture(autouse=True)
def memory_cache(settings):
    """Tests keep their cache in memory: the site's shared one on disk would carry
    entries from one test database to the next."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"test-{uuid.uuid4()}",  # empty for each test
        }
    }


# The cast: what each may do.
@pytest.fixture
def reader(django_user_model):
    """Logged in, no role: may browse and report, like anyone."""
    return django_user_model.objects.create_user("rita", password="reader-pass-1")


@pytest.fixture
def editor(django_user_model):
    """In "editors": proposes splits, moves, merges and annotations; they wait for review."""
    return make_user(django_user_model, "edith", role="editors")


@pytest.fixture
def other_editor(django_user_model):
    """A second editor, for conflicts."""
    return make_user(django_user_model, "otto", role="editors")


@pytest.fixture
def moderator(django_user_model):
    """In "moderators": changes identities directly, reviews proposals and reports,
    reverts, locks names."""
    return make_user(django_user_model, "mona", role="moderators")


@pytest.fixture
def other_moderator(django_user_model):
    return make_user(django_user_model, "max", role="moderators")


@pytest.fixture
def roles() -> None:
    """The roles again, for transactional tests: the flush after each of them empties
    every table, the groups the migration made included."""
    from django.apps import apps

    importlib.import_module("clusters.migrations.0005_roles").create_roles(apps, None)


def make_user(user_model, username: str, *permissions: str, role: str | None = None):
    user = user_model.objects.create_user(
        username, password=f"{username}-pass-1", email=f"{username}@example.org"
    )
    user.user_permissions.add(*Permission.objects.filter(codename__in=permissions))
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user_model.objects.get(pk=user.pk)  # fresh, without a stale permission cache


@pytest.fixture
def shared() -> Path:
    if not (SHARED / "FORMAT.md").exists():
        pytest.skip(f"{SHARED} is absent: real seeds and corpus are only in CI and dev machines")
    return SHARED


def make_paper(
    title: str = "A Paper", authors: tuple[str, ...] = ("Ada Lovelace",), **fields
) -> PaperBlock:
    values = dict(
        venue="ICLR",
        venue_kind="Conference",
        year=2024,
        paper_type="Conference Paper",
        abstract=("We study things.",),
        has_pdf=True,
        has_doi=False,
    )
    values.update(fields)
    return PaperBlock(title=title, authors=tuple(authors), **values)


def make_cluster(name: str, papers: list[PaperBlock], author_rows: int = 1) -> ClusterFile:
    return ClusterFile(name, tuple(sorted(papers, key=arrowfile.sort_key)), author_rows)


def write_files(folder: Path, clusters: list[ClusterFile]) -> list[Path]:
    """One file per cluster, numbered like the dump's (`00000_<slug>.txt`)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, cluster in enumerate(clusters):
        path = folder / f"{number:05d}_{slugify(cluster.name, allow_unicode=True)}.txt"
        path.write_text(arrowfile.render(cluster), encoding="utf-8", newline="")
        paths.append(path)
    return paths


def write_dump(folder: Path, papers: list[PaperBlock]) -> list[Path]:
    """A complete dump of these papers: one file for every name on every paper."""
    return write_files(folder, arrowfile.complete_dump(papers))


def run_import(*args: object) -> tuple[int, str, str]:
    """import_arrow as the shell runs it: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_arrow", *map(str, args), stdout=out, stderr=err)
    except CommandError as error:
        err.write(str(error))
        return error.returncode, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


# -- a name held by several people, for curation tests ---------------------------------

OPTIMISATION = [
    make_paper(f"Optimisation {n}", ("Hanlin Tang", "Ji Liu", "Ce Zhang"), year=2018 + n)
    for n in range(3)
]
NER = [
    make_paper(f"Entities {n}", ("Hongli Mao", "Hanlin Tang"), year=2022 + n, venue="ACL")
    for n in range(2)
]
SHOUTED = [make_paper("Inference at scale", ("HANLIN TANG", "Yiwu Yao"), year=2025)]


@pytest.fixture
def tang(tmp_path):
    """ "Hanlin Tang": an optimisation researcher (3 papers), an NER researcher (2), and
    "HANLIN TANG" (1), imported as three identities... of two spellings."""
    from clusters.models import NameCluster

    write_dump(tmp_path / "tang", OPTIMISATION + NER + SHOUTED)
    run_import(tmp_path / "tang")
    return NameCluster.objects.get(key="hanlin tang")


def picks(cluster, title_prefix: str) -> list[tuple[int, int | None]]:
    """The (authorship, identity shown) pairs a page would post for these papers."""
    from clusters.models import Authorship

    return list(
        Authorship.objects.filter(cluster=cluster, paper__title__startswith=title_prefix)
        .order_by("pk")
        .values_list("pk", "author_id")
    )


def snapshot(identities: list[int] | None = None) -> dict:
    """Who wrote what, and all said of the identities (of these only, if given: a
    split's new identity stays after a revert, empty)."""
    from clusters.models import Author, Authorship, DistinctPair

    authors = Author.objects.filter(pk__in=identities) if identities else Author.objects.all()
    return {
        "authorships": sorted(
            Authorship.objects.values_list("pk", "paper_id", "author_id", "placed_by_id")
        ),
        "merged": sorted(authors.values_list("pk", "merged_into_id")),
        "notes": sorted(authors.values_list("pk", "label", "affiliation", "orcid", "homepage")),
        "pairs": sorted(DistinctPair.objects.values_list("first_id", "second_id")),
    }
