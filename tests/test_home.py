"""The front page."""

import re

import pytest

from .conftest import make_paper, run_import, write_dump

pytestmark = pytest.mark.django_db


def test_home_shows_the_corpus_figures(client, tmp_path, django_assert_num_queries):
    write_dump(tmp_path, [make_paper("A", ("Ada Lovelace", "Alan Turing")), make_paper("B")])
    run_import(tmp_path)
    # papers, live identities, clusters, venues
    with django_assert_num_queries(4):
        response = client.get("/")
    assert response.status_code == 200
    figures = response.context["data"]["figures"]
    assert figures == {"papers": 2, "identities": 2, "clusters": 2, "venues": 1}
    assert b"<h1>Who wrote what</h1>" in response.content


def test_static_files_have_hashed_names_and_are_served_compressed(client):
    page = client.get("/").content.decode()
    (css,) = re.findall(r'href="(/static/css/arrow\.[0-9a-f]{12}\.css)"', page)
    response = client.get(css, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]
