"""The public pages on the demo corpus: what a reader sees, and their JSON twins."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from clusters.models import Author, NameCluster, Paper, Venue

from .conftest import make_paper, run_import, write_dump

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parent.parent / "clusters" / "demo"


@pytest.fixture
def demo() -> None:
    status, _, err = run_import(DEMO)
    assert (status, err) == (0, "")


def identity(name: str) -> Author:
    return Author.objects.get(name=name)


def page_urls() -> list[str]:
    """One URL of every public page of the demo corpus."""
    paper = Paper.objects.get(title="Decentralized Adam with Compressed Gossip")
    return [
        reverse("clusters:home"),
        reverse("clusters:cluster-list"),
        NameCluster.objects.get(key="mei lin").get_absolute_url(),
        identity("Mei Lin").get_absolute_url(),
        paper.get_absolute_url(),
        reverse("clusters:venue-list"),
        paper.venue.get_absolute_url(),
        reverse("clusters:venue-year", args=[paper.venue.slug, 2022]),
        reverse("clusters:search") + "?q=privacy",
    ]


def test_every_page_advertises_a_json_twin_built_from_the_same_data(client, demo):
    for url in page_urls():
        html = client.get(url)
        assert html.status_code == 200, url
        alternate = re.search(
            r'<link rel="alternate" type="application/json" href="([^"]+)">', html.text
        )
        assert alternate, url
        twin = client.get(url.split("?")[0] + alternate.group(1).replace("&amp;", "&"))
        assert twin["Content-Type"] == "application/json", url
        assert twin.json() == json.loads(json.dumps(html.context["data"])), url


def test_home_shows_figures_and_the_names_to_curate_first(client, demo, django_assert_num_queries):
    # the version of the edits (the page cache's key); papers, live identities,
    # clusters, venues (cached after this); names to curate; recent changes
    with django_assert_num_queries(7):
        response = client.get("/")
    data = response.context["data"]
    assert data["figures"] == {"papers": 20, "identities": 45, "clusters": 43, "venues": 14}
    names = [cluster["name"] for cluster in data["to_curate"]]
    assert names[:2] == ["Mei Lin", "Anna Kowalska"]  # two spellings each, most papers
    assert "Wei Zhang" not in names  # one spelling, one identity: nothing tells yet
    # then whole from the page cache: the version of the edits
    with django_assert_num_queries(1):
        client.get("/")


def test_figures_and_venue_years_are_fresh_after_an_import(client, demo, tmp_path):
    assert client.get("/").context["data"]["figures"]["papers"] == 20
    venues = client.get("/venues/?format=json").json()["venues"]
    assert "Brand New Venue" not in {venue["name"] for venue in venues}
    write_dump(tmp_path, [make_paper("Brand new", ("Ada Lovelace",), venue="Brand New Venue")])
    run_import(tmp_path)
    assert client.get("/").context["data"]["figures"]["papers"] == 21
    venues = client.get("/venues/?format=json").json()["venues"]
    (new,) = [venue for venue in venues if venue["name"] == "Brand New Venue"]
    assert new["papers"] == 1


def test_cluster_page_groups_the_papers_by_identity(client, demo):
    response = client.get("/clusters/mei-lin/")
    data = response.context["data"]
    assert data["cluster"]["papers"] == 6 and data["cluster"]["identities"] == 2
    assert data["cluster"]["source_author_rows"] == 2 and data["cluster"]["ambiguous"]
    assert [(i["name"], i["papers"]) for i in data["identities"]] == [
        ("Mei Lin", 5),
        ("mei lin", 1),
    ]
    assert [len(group["papers"]) for group in data["groups"]] == [5, 1]
    first = data["groups"][0]["papers"]
    assert [paper["year"] for paper in first] == [2024, 2023, 2022, 2021, 2020]
    byline = first[2]["authors"]
    assert [(a["name"], a["in_cluster"]) for a in byline][:2] == [
        ("Tomás Ferreira", False),
        ("Mei Lin", True),
    ]
    assert (
        f'href="{identity("Mei Lin").get_absolute_url()}" class="this-name"><mark>Mei Lin</mark>'
        in response.text
    )
    assert "the source kept 2 separate author records" in response.text


def test_cluster_page_can_show_one_identity(client, demo):
    lower = identity("mei lin")
    data = client.get(f"/clusters/mei-lin/?identity={lower.pk}").context["data"]
    assert [group["identity"]["id"] for group in data["groups"]] == [lower.pk]
    assert len(data["identities"]) == 2  # the list of identities stays whole


def test_cluster_page_shows_an_approved_proposal_at_once(client, demo, editor, moderator):
    from clusters.models import Authorship, Edit

    cluster = NameCluster.objects.get(key="mei lin")
    before = client.get(cluster.get_absolute_url()).context["data"]  # now in the cache
    assert [i["papers"] for i in before["identities"]] == [5, 1]
    lower = identity("mei lin")
    picks = list(
        Authorship.objects.filter(cluster=cluster, author=lower).values_list("pk", "author_id")
    )
    proposal = Edit.plan_move(
        editor=editor, reason="one person", cluster=cluster, picks=picks, target=identity("Mei Lin")
    ).submit()
    assert [
        i["papers"] for i in client.get(cluster.get_absolute_url()).context["data"]["identities"]
    ] == [5, 1]  # a proposal changes nothing
    proposal.approve(moderator)
    after = client.get(cluster.get_absolute_url()).context["data"]
    assert [(i["name"], i["papers"]) for i in after["identities"]] == [("Mei Lin", 6)]


def test_related_names_link_spellings_numbers_and_initials(client, demo, tmp_path):
    write_dump(tmp_path, [make_paper("Initials", ("Y. Liu", "M. Lin"))])
    run_import(tmp_path)

    def related(slug: str) -> set[str]:
        return {c["name"] for c in client.get(f"/clusters/{slug}/").context["data"]["related"]}

    assert related("cédric-rousseau") == {"Cedric Rousseau"}
    assert related("yang-liu") == {"Yang Liu 0001", "Yang Liu 0002", "Y. Liu"}
    assert related("y-liu") == {"Yang Liu", "Yang Liu 0001", "Yang Liu 0002"}
    assert related("mei-lin") == {"M. Lin"}
    assert related("jürgen-weber") == set()  # "Juergen" is another spelling, not a folding


def test_identity_page_shows_papers_years_venues_and_coauthors(client, demo):
    mei = identity("Mei Lin")
    response = client.get(mei.get_absolute_url())
    data = response.context["data"]
    assert [p["title"] for p in data["papers"]][
        0
    ] == "Lossless Model Expansion for Continual Pre-training"
    assert data["papers_per_year"] == [{"year": y, "papers": 1} for y in range(2020, 2025)]
    assert {v["name"]: v["papers"] for v in data["venues"]}["ACL"] == 2
    coauthors = {c["name"]: c["papers"] for c in data["coauthors"]}
    assert coauthors["Ji Liu 0002"] == 3 and "Mei Lin" not in coauthors
    assert data["names"] == [
        {"printed": "Mei Lin", "cluster": {"name": "Mei Lin", "slug": "mei-lin"}, "papers": 5}
    ]
    assert '<svg class="chart" role="img" aria-label="Papers per year: 2020: 1' in response.text


@pytest.mark.parametrize("others, shown", [(40, "40"), (41, "40+")])
def test_identity_page_says_40_plus_coauthors_only_when_there_are_more(
    client, tmp_path, others, shown
):
    names = ("Zed Last", *(f"Author Number{n}" for n in range(others)))
    write_dump(tmp_path, [make_paper("A crowded paper", names)])
    assert run_import(tmp_path)[0] == 0
    response = client.get(identity("Zed Last").get_absolute_url())
    data = response.context["data"]
    assert len(data["coauthors"]) == 40 and data["more_coauthors"] == (others > 40)
    assert f"<dt>Co-authors</dt><dd>{shown}</dd>" in response.text


def test_identity_page_cuts_long_bylines_but_keeps_and_marks_its_own_name(client, tmp_path):
    names = tuple(f"Author Number{n}" for n in range(30)) + ("Zed Last",)
    write_dump(tmp_path, [make_paper("A crowded paper", names)])
    assert run_import(tmp_path)[0] == 0
    zed = identity("Zed Last")
    response = client.get(zed.get_absolute_url())
    byline = response.context["data"]["papers"][0]["authors"]
    assert [a["name"] for a in byline] == [*names[:12], "Zed Last"]
    assert [a["this_identity"] for a in byline] == [False] * 12 + [True]
    assert response.context["data"]["papers"][0]["authors_total"] == 31
    assert f'href="{zed.get_absolute_url()}" class="this-name"><mark>Zed Last</mark>' in (
        response.text
    )
    assert "… 31 authors in all" in response.text


def test_merged_identity_answers_301_through_chains(client, demo):
    a, b, c = identity("Juergen Weber"), identity("Jürgen Weber"), identity("Sarah O'Connor")
    Author.objects.filter(pk=a.pk).update(merged_into=b)
    Author.objects.filter(pk=b.pk).update(merged_into=c)
    response = client.get(f"{a.get_absolute_url()}?format=json")
    assert response.status_code == 301
    assert response["Location"] == f"{c.get_absolute_url()}?format=json"


def test_paper_page_lists_every_author_and_cites_the_paper(client, demo):
    paper = Paper.objects.get(title="Decentralized Adam with Compressed Gossip")
    data = client.get(paper.get_absolute_url()).context["data"]["paper"]
    assert [a["name"] for a in data["authors"]] == [
        "Tomás Ferreira",
        "Mei Lin",
        "Ji Liu 0002",
        "Priya Raman",
    ]
    assert data["authors"][2]["cluster"]["slug"] == "ji-liu-0002"
    bibtex = client.get(paper.get_absolute_url() + "?format=bibtex")
    assert bibtex["Content-Type"].startswith("application/x-bibtex")
    assert bibtex.text.startswith("@inproceedings{ferreira2022decentralized,")
    assert "author = {Ferreira, Tomás and Lin, Mei and Liu, Ji and Raman, Priya}" in bibtex.text
    (csl,) = json.loads(client.get(paper.get_absolute_url() + "?format=csl-json").text)
    assert csl["type"] == "paper-conference" and csl["issued"] == {"date-parts": [[2022]]}
    assert csl["author"][0] == {"family": "Ferreira", "given": "Tomás"}


def test_journal_papers_cite_as_articles(client, demo):
    paper = Paper.objects.get(title="Workload-Aware Compaction for LSM Trees")
    assert client.get(paper.get_absolute_url() + "?format=bibtex").text.startswith("@article{")


def test_venue_pages_list_proceedings_by_year(client, demo):
    venues = {v["name"]: v for v in client.get("/venues/").context["data"]["venues"]}
    assert venues["ACL"]["years"] == [{"year": 2023, "papers": 1}, {"year": 2020, "papers": 1}]
    acl = Venue.objects.get(name="ACL")
    latest = client.get(acl.get_absolute_url()).context["data"]
    assert latest["year"] == 2023 and [p["title"] for p in latest["papers"]] == [
        "Few-Shot Medication Extraction with Label Descriptions"
    ]
    older = client.get(reverse("clusters:venue-year", args=["acl", 2020])).context["data"]
    assert older["papers"][0]["title"] == "Span-Level Negation Detection in Clinical Notes"


@pytest.mark.parametrize(
    "url",
    [
        "/clusters/nobody/",
        "/authors/999999/",
        "/papers/999999/",
        "/venues/nowhere/",
        "/venues/acl/1999/",
        "/authors/abc/",
        "/papers/1.5/",
    ],
)
def test_unknown_ids_and_slugs_are_404(client, demo, url):
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    "url, notice",
    [
        ("/clusters/mei-lin/?page=abc", "“abc” is not a page number"),
        ("/clusters/mei-lin/?identity=zz", "“zz” is not an identity of this cluster"),
        ("/clusters/?min_papers=many", "At least this many papers: Enter a number."),
        ("/clusters/?year_from=20x5", "From year: Enter a number."),
        ("/clusters/?venue=nowhere", "With a paper at: Select a valid choice."),
        ("/clusters/?sort=shoe-size", "“shoe-size” is not a way to sort clusters"),
        ("/clusters/?after=%%%", "That page link is broken or out of date"),
        ("/clusters/?after=WzFd", "That page link is broken or out of date"),
        ("/authors/{mei}/?page=-3", "“-3” is not a page number"),
        ("/venues/acl/?page=0", "“0” is not a page number"),
    ],
)
def test_bad_query_parameters_give_the_page_with_a_notice(client, demo, url, notice):
    response = client.get(url.format(mei=identity("Mei Lin").pk))
    assert response.status_code == 200
    assert notice in " ".join(response.context["data"]["notices"])


def test_text_from_the_files_is_text_never_markup(client, tmp_path):
    evil = make_paper(
        "<script>alert('title')</script>",
        ("<b>Bold</b> Name",),
        abstract=("<img src=x onerror=alert(1)> & <script>alert('abstract')</script>",),
    )
    write_dump(tmp_path, [evil])
    run_import(tmp_path)
    paper = Paper.objects.get()
    pages = [
        paper.get_absolute_url(),
        NameCluster.objects.get().get_absolute_url(),
        Author.objects.get().get_absolute_url(),
        "/search/?q=script+alert",
        "/venues/",
    ]
    for url in pages:
        html = client.get(url).text
        assert "<script>alert" not in html and "<img src=x" not in html and "<b>Bold" not in html, (
            url
        )
    assert (
        "&lt;script&gt;alert(&#x27;abstract&#x27;)&lt;/script&gt;"
        in client.get(paper.get_absolute_url()).text
    )
    assert "<mark>script</mark>&gt;<mark>alert</mark>" in client.get("/search/?q=script+alert").text


def test_pages_have_one_h1_and_labelled_fields(client, demo):
    for url in page_urls():
        html = client.get(url).text
        assert html.count("<h1") == 1, url
        title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)  # the head's
        assert "<" not in title and "\n" not in title and title.endswith(" · Arrow"), (url, title)
        levels = [int(level) for level in re.findall(r"<h([1-6])", html)]
        assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), (url, levels)
        for field_id in re.findall(r'<(?:input|select)[^>]*\bid="([^"]+)"', html):
            assert f'for="{field_id}"' in html, (url, field_id)


def test_static_files_have_hashed_names_and_are_served_compressed(client):
    page = client.get("/").text
    (css,) = re.findall(r'href="(/static/css/arrow\.[0-9a-f]{12}\.css)"', page)
    response = client.get(css, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]


def test_highlight_marks_searched_words_and_escapes_the_rest():
    from clusters.templatetags.arrow import highlight

    marked = highlight('Graphs & <Graphing> "O\'Neil" on graph-learning', ["graph", "o"])
    assert marked == (
        "<mark>Graph</mark>s &amp; &lt;<mark>Graph</mark>ing&gt; &quot;<mark>O</mark>&#x27;"
        "Neil&quot; <mark>o</mark>n <mark>graph</mark>-learning"
    )
    assert highlight("<b>", []) == "&lt;b&gt;"
    # the longer of two words that start alike is marked whole
    assert highlight("learning", ["lea", "learning"]) == "<mark>learning</mark>"


def test_byline_links_marks_and_escapes_every_name():
    from clusters.templatetags.arrow import byline

    def author(name, identity, ours=False):
        return {"name": name, "identity": identity, "in_cluster": ours}

    paper = {
        "authors": [
            author("Ada <Lovelace>", "/authors/1/", ours=True),
            author('Bob "Graph" O\'Neil & co', '/authors/2/?x="y"'),
            author("Graph Unplaced", None),
        ],
        "authors_total": 40,
    }
    assert byline(paper, ["graph"]) == (
        '<a href="/authors/1/" class="this-name"><mark>Ada &lt;Lovelace&gt;</mark></a>, '
        '<a href="/authors/2/?x=&quot;y&quot;">Bob &quot;<mark>Graph</mark>&quot; '
        "O&#x27;Neil &amp; co</a>, "
        '<mark>Graph</mark> Unplaced<span class="meta"> (unassigned)</span>'
        ' <span class="more">… 40 authors in all</span>'
    )
    paper["authors_total"] = 3
    assert "authors in all" not in byline(paper, [])


def test_a_list_filtered_by_papers_counts_only_so_far(client, tmp_path):
    """Under a venue or year filter every name is checked against its papers, so the
    count stops at PAPER_FILTER_COUNT_CAP and says so; without one it goes on."""
    from clusters.views.browse import PAPER_FILTER_COUNT_CAP

    crowd = tuple(f"Author Number{n:03d}" for n in range(PAPER_FILTER_COUNT_CAP + 1))
    write_dump(tmp_path, [make_paper("Crowded", crowd, venue="CROWD", year=2020)])
    run_import(tmp_path)
    filtered = client.get("/clusters/?venue=crowd&year_from=2020&format=json").json()["page"]
    assert (filtered["total"], filtered["total_is_lower_bound"]) == (PAPER_FILTER_COUNT_CAP, True)
    assert f"{PAPER_FILTER_COUNT_CAP}+ names" in client.get("/clusters/?venue=crowd").text
    whole = client.get("/clusters/?format=json").json()["page"]
    assert (whole["total"], whole["total_is_lower_bound"]) == (len(crowd), False)
