"""What a reader clicks through, in a real browser (Playwright on Debian's Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from clusters.views import browse

from .conftest import run_import

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.browser,
    pytest.mark.usefixtures("roles"),
]

DEMO = Path(__file__).resolve().parent.parent / "clusters" / "demo"


@pytest.fixture(autouse=True)
def empty_index():
    """Transactional tests flush the tables between them, but not the full-text index
    (a virtual table on SQLite, no model): empty it, or the last test's papers stay."""
    from django.db import connection

    from clusters import search

    with connection.cursor() as cursor:
        cursor.execute(search.backend().clear)


@pytest.fixture
def site(live_server, monkeypatch, settings) -> str:
    # The live server answers /static/ from the source folders, which hold no hashed
    # names: the browser gets the unhashed ones.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    run_import(DEMO)
    monkeypatch.setattr(browse, "PER_PAGE", 6)  # so that the demo's lists have pages
    return live_server.url


def test_a_reader_finds_a_name_its_people_and_their_papers(page: Page, site, screenshot):
    page.goto(site)
    expect(page.get_by_role("heading", level=1)).to_have_text("Who wrote what")
    screenshot("01-home")

    page.get_by_label("Search titles, abstracts and author names").fill("mei lin")
    page.keyboard.press("Enter")
    expect(page).to_have_title(re.compile("^“mei lin” · Search"))
    screenshot("02-search")

    page.get_by_role("region", name="Names").get_by_role("link", name="Mei Lin").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Mei Lin")
    expect(page.locator(".group")).to_have_count(2)
    expect(page.locator("mark").get_by_text("mei lin", exact=True)).to_be_visible()
    screenshot("03-cluster")

    page.locator(".group").first.get_by_role("heading", level=2).get_by_role("link").click()
    expect(page).to_have_title(re.compile(r"^Mei Lin \(identity #\d+\)"))
    expect(page.get_by_role("img", name=re.compile("^Papers per year"))).to_be_visible()
    expect(page.get_by_role("region", name="Co-authors")).to_contain_text("Ji Liu 0002")
    screenshot("04-identity")

    page.get_by_role("link", name="Decentralized Adam with Compressed Gossip").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Decentralized Adam with Compressed Gossip"
    )
    expect(page.locator("pre.bibtex")).to_contain_text("@inproceedings{ferreira2022decentralized,")
    screenshot("05-paper")


def test_a_reader_filters_the_names_and_pages_through_them(page: Page, site, screenshot):
    page.goto(f"{site}/clusters/")
    page.get_by_label("At least this many papers").fill("2")
    page.get_by_label("Sort by").select_option("name")
    page.get_by_role("button", name="Apply").click()
    expect(page).to_have_title(re.compile("^Names · at least this many papers 2"))
    rows = page.locator("table.clusters tbody tr")
    expect(rows).to_have_count(6)
    expect(rows.first).to_contain_text("Anna Kowalska")
    screenshot("06-names-filtered")

    page.get_by_role("link", name="Next →").click()
    expect(rows.first).to_contain_text("Prakash")
    page.get_by_role("link", name="Next →").click()
    expect(rows).to_have_count(3)  # 15 names with two papers or more
    expect(page.get_by_role("link", name="Next →")).to_have_count(0)
    page.get_by_role("link", name="← Previous").click()
    expect(rows.first).to_contain_text("Prakash")
    screenshot("07-names-page-2")

    page.get_by_role("link", name=re.compile("^Remove filter At least this many papers")).click()
    expect(page).to_have_title("Names · Arrow")
    expect(page.get_by_label("At least this many papers")).to_have_value("")


def test_search_facets_narrow_the_results_and_abstracts_open_by_keyboard(
    page: Page, site, screenshot
):
    page.goto(f"{site}/search/?q=privacy")
    results = page.locator("ol.papers > li")
    expect(results).to_have_count(2)
    page.get_by_role("complementary").get_by_role("link", name="2023").click()
    expect(results).to_have_count(1)
    expect(results.first).to_contain_text("Shuffling Amplifies Privacy")
    expect(page.get_by_role("list", name="Active filters")).to_contain_text("From year: 2023")
    screenshot("08-search-faceted")

    page.goto(f"{site}/search/?q=sparsifier")
    summary = page.locator("details.abstract summary").first
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("details.abstract").first).to_have_attribute("open", "")


def test_pages_read_well_on_a_phone(page: Page, site, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{site}/clusters/wei-zhang/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width}px wide"
    screenshot("09-phone-cluster")


def test_an_editor_splits_a_name_and_reverts_it(page: Page, site, screenshot, django_user_model):
    from .conftest import make_user

    make_user(django_user_model, "edith", role="moderators")
    page.goto(f"{site}/clusters/mei-lin/")
    page.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("edith")
    page.get_by_label("Password").fill("edith-pass-1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Edit identities")).to_be_visible()
    screenshot("10-editor-cluster")

    for title in (
        "Span-Level Negation Detection in Clinical Notes",
        "Few-Shot Medication Extraction with Label Descriptions",
    ):
        page.get_by_label(f"Choose “{title}”").check()
    page.get_by_role("button", name="Split chosen papers into a new identity").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Split papers of Mei Lin into a new identity"
    )
    expect(page.get_by_role("row", name=re.compile("^Mei Lin"))).to_contain_text("5")
    screenshot("11-split-preview")

    page.get_by_label("Reason").fill("Clinical NLP papers: another Mei Lin, with Sarah O'Connor")
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^Change #\d+: split$"))
    expect(page.locator("table.diff tbody tr")).to_have_count(2)
    screenshot("12-change")

    page.get_by_role("link", name="Mei Lin 0001").first.click()
    expect(page.locator(".callout")).to_contain_text("This identity was made by change")
    expect(page.get_by_role("heading", name="Edit this identity")).to_be_visible()
    screenshot("12b-new-identity-as-editor")
    page.go_back()
    page.get_by_role("link", name="Revert this change…").click()
    page.get_by_label("Reason").fill("Checked: the same person moved labs")
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_text(re.compile(r"This change reverts change #\d+"))).to_be_visible()
    page.goto(f"{site}/clusters/mei-lin/")
    expect(page.locator(".group")).to_have_count(2)
    screenshot("13-after-revert")


def log_in(page: Page, site: str, username: str) -> None:
    page.goto(f"{site}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"{username}-pass-1")
    page.get_by_role("button", name="Log in").click()


def test_an_editor_proposes_a_split_and_a_moderator_approves_it(
    page: Page, live_server, settings, screenshot, django_user_model, tmp_path
):
    from .conftest import NER, OPTIMISATION, make_user, write_dump

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    write_dump(tmp_path, OPTIMISATION + NER)
    run_import(tmp_path)
    make_user(django_user_model, "edith", role="editors")
    make_user(django_user_model, "mona", role="moderators")
    site = live_server.url

    log_in(page, site, "edith")
    page.goto(f"{site}/clusters/hanlin-tang/")
    expect(page.locator(".group")).to_have_count(1)
    for n in range(2):
        page.get_by_label(f"Choose “Entities {n}”").check()
    page.get_by_role("button", name="Split chosen papers into a new identity").click()
    page.get_by_label("Reason").fill("NER papers with Hongli Mao: a different Hanlin Tang")
    page.get_by_role("button", name="Confirm").click()
    expect(
        page.get_by_text(re.compile(r"Proposal #\d+ is waiting for a moderator"))
    ).to_be_visible()
    screenshot("14-proposal")
    page.get_by_role("button", name="Log out").click()

    log_in(page, site, "mona")
    page.get_by_role("link", name="Moderation").click()
    expect(page.get_by_role("heading", name="Proposals (1)")).to_be_visible()
    screenshot("15-moderation-queue")
    page.get_by_role("link", name=re.compile(r"^#\d+ split$")).click()
    expect(page.locator("table.diff tbody tr")).to_have_count(2)
    page.get_by_role("button", name="Approve and apply").click()
    expect(page.get_by_text(re.compile(r"Proposal #\d+ approved and applied"))).to_be_visible()
    page.goto(f"{site}/clusters/hanlin-tang/")
    expect(page.locator(".group")).to_have_count(2)
    expect(page.locator(".group h2").nth(1)).to_contain_text("Hanlin Tang 0001")
    screenshot("16-after-approval")


def test_an_editor_turns_a_suggested_person_into_a_split_proposal(
    page: Page, site, screenshot, django_user_model
):
    from .conftest import make_user

    make_user(django_user_model, "edith", role="editors")
    log_in(page, site, "edith")
    page.goto(f"{site}/clusters/mei-lin/")
    page.get_by_role("link", name="Suggest how to split this name").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Who is who under “Mei Lin”")
    people = page.locator("section.suggestion:not(.uncertain)")
    expect(people).to_have_count(2)
    clinical = people.nth(1)
    expect(clinical).to_contain_text("co-authors on several of its papers: Sarah O'Connor")
    expect(page.locator("section.suggestion.uncertain")).to_contain_text("Tactile Servoing")
    screenshot("17-suggestions")

    clinical.get_by_role("button", name="Propose these papers as one person…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Split papers of Mei Lin into a new identity"
    )
    page.get_by_label("Reason").fill("Clinical NLP with Sarah O'Connor, as suggested")
    page.get_by_role("button", name="Confirm").click()
    expect(
        page.get_by_text(re.compile(r"Proposal #\d+ is waiting for a moderator"))
    ).to_be_visible()

    page.get_by_role("link", name="Ambiguous names").click()
    rows = page.locator("table.clusters tbody tr")
    expect(rows.first).to_contain_text("Mei Lin")
    expect(rows.first).to_contain_text("2 groups of papers share no co-authors")
    screenshot("18-ambiguity-dashboard")
