"""Full-text search: the query language, the index on both databases, the page."""

from __future__ import annotations

import pytest
from django.db.models.expressions import RawSQL

from clusters import search
from clusters.models import Paper
from clusters.search import QueryError, Term
from clusters.views import searching

from .conftest import make_paper, run_import, write_dump

PAPERS = [
    make_paper(
        "Private Federated Quantiles",
        ("Cédric Rousseau", "Priya Raman"),
        year=2022,
        venue="AISTATS",
        abstract=("We estimate quantiles under local differential privacy.",),
    ),
    make_paper(
        "Shuffling Amplifies Privacy",
        ("Priya Raman", "Cedric Rousseau"),
        year=2023,
        venue="ICML",
        abstract=("A trusted shuffler amplifies guarantees.",),
    ),
    make_paper(
        "Tactile Servoing for Cable Routing",
        ("Kenji Sato",),
        year=2025,
        venue="CoRL",
        abstract=("Routing a cable needs contact feedback; privacy plays no part here.",),
        paper_type="Journal Article",
    ),
]


@pytest.fixture
def corpus(tmp_path) -> None:
    write_dump(tmp_path, PAPERS)
    run_import(tmp_path)


def titles(client, query: str) -> list[str]:
    results = client.get(f"/search/{query}&format=json").json()["results"]
    return [paper["title"] for paper in results]


# -- the query language -----------------------------------------------------------------


def test_words_phrases_and_prefixes_parse_into_terms():
    assert search.parse_query('  federated "local differential" optim* ') == [
        Term(("federated",)),
        Term(("local", "differential")),
        Term(("optim",), prefix=True),
    ]


@pytest.mark.parametrize(
    "text, terms",
    [
        ('"unbalanced', [Term(("unbalanced",))]),
        ("AND OR NOT *", [Term(("and",)), Term(("or",)), Term(("not",))]),
        ("col:umn -x (y)", [Term(("col", "umn")), Term(("x",)), Term(("y",))]),
    ],
)
def test_operators_and_stray_quotes_are_plain_words(text, terms):
    assert search.parse_query(text) == terms


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "Type a word"),
        ("   ", "Type a word"),
        ("* - ()", "has no words"),
        ("x" * 5000, "5,000 characters long; searches take at most 500"),
    ],
)
def test_unsearchable_queries_say_why(text, message):
    with pytest.raises(QueryError, match=message):
        search.parse_query(text)


# -- the index and the page -------------------------------------------------------------

pytestmark_db = pytest.mark.django_db


@pytestmark_db
def test_titles_abstracts_and_names_are_searched(client, corpus):
    assert titles(client, "?q=quantiles") == ["Private Federated Quantiles"]
    assert titles(client, "?q=shuffler") == ["Shuffling Amplifies Privacy"]
    assert titles(client, "?q=kenji") == ["Tactile Servoing for Cable Routing"]


@pytestmark_db
def test_diacritics_and_case_fold_both_ways(client, corpus):
    both = {"Private Federated Quantiles", "Shuffling Amplifies Privacy"}
    assert set(titles(client, "?q=cedric")) == both
    assert set(titles(client, "?q=CÉDRIC")) == both


@pytestmark_db
def test_a_name_search_offers_the_clusters_of_that_name(client, corpus):
    data = client.get("/search/?q=CEDRIC rousseau").context["data"]
    assert sorted(cluster["name"] for cluster in data["names"]) == [
        "Cedric Rousseau",
        "Cédric Rousseau",
    ]
    assert len(data["results"]) == 2


@pytestmark_db
def test_phrases_and_prefixes(client, corpus):
    assert titles(client, '?q="differential privacy"') == ["Private Federated Quantiles"]
    assert titles(client, '?q="privacy differential"') == []
    assert titles(client, "?q=quant*") == ["Private Federated Quantiles"]


@pytestmark_db
def test_a_title_match_ranks_above_an_abstract_match(client, corpus):
    ranked = titles(client, "?q=privacy")
    assert ranked[0] == "Shuffling Amplifies Privacy"
    assert len(ranked) == 3


@pytestmark_db
def test_sqlite_ranks_by_the_columns_that_hold_each_word_then_newest(client, tmp_path):
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL ranks with ts_rank_cd")
    papers = [
        make_paper("Graph learning", ("Ada One",), year=2020, abstract=("Nothing more.",)),
        make_paper("Graph models", ("Ada Two",), year=2021, abstract=("On learning.",)),
        make_paper("Other things", ("Ada Three",), year=2022, abstract=("Graph learning.",)),
        make_paper("Learning", ("Ada Graph",), year=2023, abstract=("Nothing more.",)),
        make_paper("Also other", ("Ada Five",), year=2024, abstract=("Graph learning.",)),
    ]
    write_dump(tmp_path, papers)
    run_import(tmp_path)
    # both in the title 20; title and names 14; title and abstract 11; both in the
    # abstract 2, the newer first
    assert titles(client, "?q=graph+learning") == [
        "Graph learning",
        "Learning",
        "Graph models",
        "Also other",
        "Other things",
    ]


@pytestmark_db
def test_past_the_facet_limit_facets_count_the_newest_matches_and_say_so(
    client, corpus, monkeypatch
):
    monkeypatch.setattr(searching, "FACET_LIMIT", 2)
    response = client.get("/search/?q=privacy")
    data = response.context["data"]
    assert data["total"] == 3 and data["facets_among"] == 2
    assert sum(f["count"] for f in data["facets"]["venue"]) == 2
    matches = RawSQL(*search.matching(search.parse_query("privacy")))
    newest = Paper.objects.filter(pk__in=matches).order_by("-pk")[:2]
    assert {f["label"] for f in data["facets"]["venue"]} == {p.venue.name for p in newest}
    assert "Counted among the 2 newest matches." in response.content.decode()


@pytestmark_db
def test_filters_facets_and_sorting(client, corpus):
    data = client.get("/search/?q=privacy").context["data"]
    assert data["total"] == 3
    assert {f["label"]: f["count"] for f in data["facets"]["venue"]} == {
        "AISTATS": 1,
        "ICML": 1,
        "CoRL": 1,
    }
    assert {f["label"]: f["count"] for f in data["facets"]["type"]} == {
        "Conference Paper": 2,
        "Journal Article": 1,
    }
    year_2023 = next(f for f in data["facets"]["year"] if f["value"] == 2023)
    assert titles(client, year_2023["url"]) == ["Shuffling Amplifies Privacy"]
    assert titles(client, "?q=privacy&year_from=2023&sort=oldest") == [
        "Shuffling Amplifies Privacy",
        "Tactile Servoing for Cable Routing",
    ]
    filtered = client.get("/search/?q=privacy&venue=corl&page=2")
    assert [chip["label"] for chip in filtered.context["data"]["filters"]] == ["Venue"]
    assert filtered.context["data"]["filters"][0]["remove"] == "?q=privacy"
    assert "<title>“privacy” · venue CoRL Conference · Search · Arrow</title>" in filtered.text


@pytestmark_db
@pytest.mark.parametrize(
    "query, notice",
    [
        ("?q=", "Type a word"),
        ("?q=" + "a" * 5000, "searches take at most 500"),
        ('?q="unbalanced', None),
        ("?q=AND+OR+NOT+*", None),
        ("?q=privacy&page=zz", "is not a page number"),
        ("?q=privacy&year_to=soon", "To year: Enter a number."),
        ("?q=privacy&sort=random", "is not a way to sort results"),
    ],
)
def test_bad_queries_give_the_page_with_a_message(client, corpus, query, notice):
    response = client.get(f"/search/{query}")
    assert response.status_code == 200
    notices = " ".join(response.context["data"]["notices"])
    assert (notice in notices) if notice else notices == ""


@pytestmark_db
def test_the_index_follows_imports_and_can_be_rebuilt(client, corpus, tmp_path):
    assert titles(client, "?q=radiance") == []
    write_dump(tmp_path / "more", [make_paper("Neural Radiance Fields", ("Łukasz Nowak",))])
    run_import(tmp_path / "more")
    assert titles(client, "?q=radiance") == ["Neural Radiance Fields"]
    assert titles(client, "?q=lukasz") == ["Neural Radiance Fields"]
    assert search.rebuild() == Paper.objects.count() == 4
    assert titles(client, "?q=radiance") == ["Neural Radiance Fields"]
    assert len(titles(client, "?q=privacy")) == 3  # rebuilt, not doubled


@pytestmark_db
def test_search_costs_a_fixed_number_of_queries(client, corpus, django_assert_num_queries):
    # the version of the edits (the page cache's key); names; the newest matches' ids
    # (count and candidates), from the index; facets by venue, year and type together,
    # then the venues' names; rank; papers; bylines; the venue filter's choices
    with django_assert_num_queries(9):
        client.get("/search/?q=privacy")
    # the chosen venue is checked, then the newest filtered matches are sorted directly
    with django_assert_num_queries(10):
        client.get("/search/?q=privacy&venue=icml&sort=newest")


@pytestmark_db
def test_a_paper_gone_from_the_table_but_not_the_index_is_skipped(client, corpus):
    from django.db import connection

    gone = Paper.objects.filter(title__icontains="privacy").order_by("pk").first()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM clusters_authorship WHERE paper_id = %s", [gone.pk])
        cursor.execute("DELETE FROM clusters_paper WHERE id = %s", [gone.pk])
    response = client.get("/search/?q=privacy")
    assert response.status_code == 200
    assert gone.title not in [paper["title"] for paper in response.context["data"]["results"]]
