"""The text format on its own: no database. Seeds, every variation and error that
FORMAT.md lists, and render -> parse -> render as a property."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusters import arrowfile
from clusters.arrowfile import ArrowFormatError, ClusterFile, PaperBlock

from .conftest import make_cluster, make_paper


def two_paper_text() -> str:
    return arrowfile.render(
        make_cluster(
            "Hanlin Tang",
            [
                make_paper("Span Graph Transformer", ("Hongli Mao", "Hanlin Tang"), year=2024),
                make_paper("1-bit Adam", ("Hanlin Tang", "Ji Liu 0002"), year=2021, has_pdf=False),
            ],
            author_rows=2,
        )
    )


def error_of(text: str) -> ArrowFormatError:
    with pytest.raises(ArrowFormatError) as caught:
        arrowfile.parse(text)
    return caught.value


# -- the seeds ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seed, name, papers", [("000_", "Hanlin Lu", 3), ("003_", "Hanlin Tang", 15)]
)
def test_seeds_parse_and_render_back_byte_for_byte(shared, seed, name, papers):
    (path,) = (shared / "seeds").glob(f"{seed}*.txt")
    text = arrowfile.decode(path.read_bytes())
    result = arrowfile.parse(text)
    assert result.cluster.name == name
    assert len(result.cluster.papers) == papers
    assert result.cluster.author_rows == 2
    assert result.warnings == []
    assert arrowfile.render(result.cluster) == text


def test_hanlin_tang_seed_reads_every_part_of_a_paper(shared):
    (path,) = (shared / "seeds").glob("003_*.txt")
    first, second = arrowfile.parse(arrowfile.decode(path.read_bytes())).cluster.papers[:2]
    assert (first.venue, first.venue_kind, first.year, first.paper_type) == (
        "ICLR",
        "Conference",
        2025,
        "Conference Paper",
    )
    assert first.title.startswith("RazorAttention")
    assert first.authors[0] == "Hanlin Tang" and len(first.authors) == 8
    assert len(first.abstract) == 1 and "“compensation token”" in first.abstract[0]
    assert (first.has_pdf, first.has_doi) == (False, False)
    assert (second.venue, second.has_pdf, second.has_doi) == ("AAAI", True, True)


# -- valid variations -----------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="crlf"),
        pytest.param(lambda t: "\ufeff" + t, id="bom"),
        pytest.param(lambda t: t.replace("\n", "  \n") + " \t", id="trailing-spaces"),
        pytest.param(lambda t: t + "\n", id="final-newline"),
        pytest.param(lambda t: t + "\r\n\r\n", id="final-blank-lines"),
    ],
)
def test_variations_read_as_the_plain_file(variant):
    text = two_paper_text()
    assert arrowfile.parse(variant(text)).cluster == arrowfile.parse(text).cluster


def test_bom_is_dropped_when_decoding_bytes():
    text = two_paper_text()
    assert arrowfile.decode(b"\xef\xbb\xbf" + text.encode()) == text


@pytest.mark.parametrize(
    "paper",
    [
        pytest.param(make_paper(abstract=()), id="no-abstract"),
        pytest.param(make_paper(abstract=("One.", "Two.", "Three.")), id="three-paragraphs"),
        pytest.param(make_paper(authors=("Plato",)), id="one-single-word-author"),
        pytest.param(
            make_paper(authors=tuple(f"Author {n}" for n in range(1000))), id="thousand-authors"
        ),
        pytest.param(
            make_paper(
                title="<script>alert(1)</script> & <b>bold</b>",
                abstract=(r"$\textbf{L}$ossless {\em fast} &amp; “quoted” — 王伟 says <hi>",),
            ),
            id="markup-like-text",
        ),
        pytest.param(
            make_paper(
                authors=("王伟", "Cédric Renggli", "Seán O'Brien-Smith", "J. R. R. Tolkien")
            ),
            id="unicode-names",
        ),
        pytest.param(
            make_paper(venue="Euro-Par 2020", paper_type="Journal Article"), id="year-in-venue"
        ),
        pytest.param(make_paper(has_pdf=False, has_doi=True), id="details-doi"),
    ],
)
def test_valid_papers_round_trip(paper: PaperBlock):
    cluster = make_cluster(paper.authors[0], [paper])
    text = arrowfile.render(cluster)
    result = arrowfile.parse(text)
    assert result.cluster == cluster
    assert arrowfile.render(result.cluster) == text


def test_singular_counts_are_written_and_read_both_ways():
    text = arrowfile.render(make_cluster("Ada Lovelace", [make_paper()]))
    assert "\n\n1 paper\n\n1 author row\n\n" in text
    plural = text.replace("1 paper\n", "1 papers\n").replace("1 author row\n", "1 author rows\n")
    assert arrowfile.parse(plural).cluster.author_rows == 1


def test_count_that_disagrees_is_a_warning_with_its_line():
    text = two_paper_text().replace("2 papers", "5 papers")
    result = arrowfile.parse(text)
    assert len(result.cluster.papers) == 2
    assert [str(w) for w in result.warnings] == ["7: file states 5 papers but holds 2"]


def test_paper_without_the_cluster_name_is_a_warning():
    text = arrowfile.render(make_cluster("Ada Lovelace", [make_paper(authors=("Alan Turing",))]))
    assert [str(w) for w in arrowfile.parse(text).warnings] == [
        '11: no author of this paper is named "Ada Lovelace"'
    ]


# -- invalid files: each names its line -----------------------------------------------


def replace_line(text: str, number: int, new: str | None) -> str:
    lines = text.split("\n")
    if new is None:
        del lines[number - 1]
    else:
        lines[number - 1] = new
    return "\n".join(lines)


@pytest.mark.parametrize(
    "change, line, reason",
    [
        (
            lambda t: replace_line(t, 1, "Author cluster"),
            1,
            'expected header "Author name cluster"',
        ),
        (lambda t: "\n".join(t.split("\n")[2:]), 1, 'expected header "Author name cluster"'),
        (lambda t: "", 1, 'expected header "Author name cluster", found "an empty file"'),
        (lambda t: replace_line(t, 7, "two papers"), 7, 'paper count "two" is not a number'),
        (lambda t: replace_line(t, 9, "2 authors"), 9, 'expected "<number> author rows"'),
        (lambda t: replace_line(t, 11, "ICLR Conference Paper"), 11, "venue line has no 4-digit"),
        (lambda t: t.split("\n\nWe study")[0], 11, "file ends in the middle of a paper"),
        (lambda t: t.rsplit("\n\n", 1)[0], 22, "file ends in the middle of a paper (no links"),
        (lambda t: replace_line(t, 20, "PDF DOI"), 20, 'links line has no "Details"'),
        (lambda t: replace_line(t, 20, "Details PDF"), 20, "in that order"),
    ],
)
def test_invalid_files_are_rejected_with_line_and_reason(change, line, reason):
    error = error_of(change(two_paper_text()))
    assert error.line == line
    assert reason in error.reason


def test_paper_with_no_authors_is_rejected():
    text = two_paper_text()
    no_authors = text.replace("Hongli Mao\nHanlin Tang\n\nWe study things.\n\n", "")
    error = error_of(no_authors)
    assert (error.line, error.reason) == (15, "paper has no authors")


def test_paper_missing_its_links_line_is_rejected_where_it_starts():
    text = two_paper_text()
    first_links = text.index("\n\nPDF Details\n\n")
    cut = text[:first_links] + text[first_links + len("\n\nPDF Details") :]
    error = error_of(cut)
    assert error.line == 11
    assert "paper has no links line (line 20 looks like the next paper)" in error.reason


def test_bytes_that_are_not_utf8_name_their_line():
    data = two_paper_text().encode()
    position = data.index(b"Span Graph")
    with pytest.raises(ArrowFormatError) as caught:
        arrowfile.decode(data[:position] + b"\xff\xfe" + data[position:])
    assert caught.value.line == 13
    assert "not UTF-8" in caught.value.reason


# -- names ----------------------------------------------------------------------------


def test_name_key_folds_case_beyond_ascii_and_collapses_spaces():
    assert arrowfile.name_key("THOMAS  MÜLLER ") == arrowfile.name_key("Thomas Müller")
    assert arrowfile.name_key("Straße") == "strasse"
    assert arrowfile.name_key("Ji Liu 0002") == "ji liu 0002"
    assert arrowfile.name_key("Cédric") != arrowfile.name_key("Cedric")


@given(st.text())
def test_name_key_is_idempotent(name):
    assert arrowfile.name_key(arrowfile.name_key(name)) == arrowfile.name_key(name)


def test_dblp_number_is_split_off_only_as_a_trailing_four_digit_token():
    assert arrowfile.split_dblp_number("Ji Liu 0002") == ("Ji Liu", 2)
    assert arrowfile.split_dblp_number("Ji Liu") == ("Ji Liu", None)
    assert arrowfile.split_dblp_number("Agent 007") == ("Agent 007", None)


# -- render -> parse -> render --------------------------------------------------------

# Lines of text as the format can carry them: no control characters (line breaks among
# them), no surrogates, nothing blank, no trailing spaces.
line_text = (
    st.text(st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40)
    .map(lambda s: s.rstrip(" \t"))
    .filter(lambda s: s.strip() and arrowfile._links(s) is None)
)
word = st.text(st.characters(exclude_categories=("Cc", "Cs", "Z")), min_size=1, max_size=12)
names = st.one_of(
    line_text,
    st.sampled_from(["Hanlin Tang", "HANLIN TANG", "Ji Liu 0002", "王伟", "Cédric Renggli"]),
)


@st.composite
def papers(draw) -> PaperBlock:
    paper_type = draw(
        st.one_of(st.just(""), st.sampled_from(["Conference Paper", "Journal Article"]), word)
    )
    return PaperBlock(
        venue=draw(line_text.filter(lambda s: not s.startswith(" "))),
        venue_kind=draw(word),
        year=draw(st.integers(1000, 9999)),
        paper_type="" if paper_type.isdigit() and len(paper_type) == 4 else paper_type,
        title=draw(st.one_of(line_text, st.just("<script>alert('x')</script> &amp;"))),
        authors=tuple(draw(st.lists(names, min_size=1, max_size=8))),
        abstract=tuple(draw(st.lists(line_text, max_size=3))),
        has_pdf=draw(st.booleans()),
        has_doi=draw(st.booleans()),
    )


@st.composite
def cluster_files(draw) -> ClusterFile:
    return ClusterFile(
        name=draw(names),
        papers=tuple(draw(st.lists(papers(), max_size=4))),
        author_rows=draw(st.integers(0, 10_000)),
    )


@given(cluster_files())
def test_render_parse_render_is_the_identity(cluster):
    text = arrowfile.render(cluster)
    parsed = arrowfile.parse(text).cluster
    assert parsed == cluster
    assert arrowfile.render(parsed) == text
