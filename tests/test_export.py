"""export_arrow: the database written back as cluster files, through the same renderer."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from clusters import arrowfile
from clusters.models import Author, Authorship

from .conftest import make_paper, run_import, write_dump

pytestmark = pytest.mark.django_db

PAPERS = [
    make_paper("LEMON: Lossless model expansion", ("Yite Wang", "Hanlin Lu", "Ruoyu Sun 0001")),
    make_paper("DUO", ("Jinda Jia", "hanlin lu", "王伟"), year=2025, abstract=()),
    make_paper(
        "<script>alert(1)</script> & friends",
        ("Cédric Renggli", "Seán O'Brien", "Plato"),
        abstract=(r"$\textbf{L}$ossless {\em x} < y", "Second paragraph.", "Third."),
        has_doi=True,
    ),
    make_paper("One author", ("Cedric Renggli",), year=2019, has_pdf=False),
]


def export(outdir: Path, *names: str) -> dict[str, str]:
    """Run export_arrow; return the files it wrote by cluster key."""
    args = [str(outdir)] + [f"--cluster={name}" for name in names]
    call_command("export_arrow", *args, stdout=io.StringIO())
    return {
        arrowfile.name_key(text.split("\n")[2]): text
        for text in (path.read_text(encoding="utf-8") for path in outdir.glob("*.txt"))
    }


def without_line_9(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:8] + lines[9:]


def test_import_then_export_gives_a_complete_dump_back(tmp_path):
    originals = {
        arrowfile.name_key(path.read_text().split("\n")[2]): path.read_text()
        for path in write_dump(tmp_path / "in", PAPERS)
    }
    run_import(tmp_path / "in")
    assert export(tmp_path / "out") == originals


def test_seeds_export_byte_identical_apart_from_line_9(shared, tmp_path):
    run_import(shared / "seeds")
    exported = export(tmp_path, "Hanlin Lu", "HANLIN TANG")
    assert set(exported) == {"hanlin lu", "hanlin tang"}
    for seed in (shared / "seeds").glob("*.txt"):
        original = seed.read_text(encoding="utf-8")
        mine = exported[arrowfile.name_key(original.split("\n")[2])]
        assert without_line_9(mine) == without_line_9(original)
        # Each seed's source held two author rows; Arrow holds one identity per spelling.
        assert mine.split("\n")[8] == "1 author row"


def test_line_9_states_the_live_identities_of_the_cluster(tmp_path):
    write_dump(tmp_path / "in", PAPERS)
    run_import(tmp_path / "in")
    assert export(tmp_path / "before", "hanlin lu")["hanlin lu"].split("\n")[8] == "2 author rows"
    # Two spellings found to be one person: the cluster now holds one identity.
    keep, other = Author.objects.filter(name_key="hanlin lu").order_by("pk")
    Authorship.objects.filter(author=other).update(author=keep)
    Author.objects.filter(pk=other.pk).update(merged_into=keep)
    assert export(tmp_path / "after", "hanlin lu")["hanlin lu"].split("\n")[8] == "1 author row"


def test_clusters_are_named_by_any_case_or_by_slug(tmp_path):
    write_dump(tmp_path / "in", PAPERS)
    run_import(tmp_path / "in")
    assert set(export(tmp_path / "out", "CÉDRIC RENGGLI", "王伟", "yite-wang")) == {
        "cédric renggli",
        "王伟",
        "yite wang",
    }


def test_unknown_cluster_is_an_error_that_names_it(tmp_path):
    write_dump(tmp_path / "in", PAPERS)
    run_import(tmp_path / "in")
    with pytest.raises(CommandError, match="no cluster named 'Nobody Atall'"):
        export(tmp_path / "out", "Yite Wang", "Nobody Atall")
    assert not (tmp_path / "out").exists()


def test_outdir_that_is_a_file_is_an_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(CommandError, match="is not a directory"):
        export(tmp_path / "file")


def test_export_queries_do_not_grow_with_cluster_size(tmp_path, django_assert_num_queries):
    big = [make_paper(f"Paper {n}", ("Hanlin Tang", f"Co {n}", f"Co {n + 1}")) for n in range(60)]
    write_dump(tmp_path / "in", big + PAPERS)
    run_import(tmp_path / "in")
    # 1 the named clusters, to check that all exist; 2 the same, streamed; then per
    # cluster: 3 its papers with their venues, 4 their authorships.
    with django_assert_num_queries(4):
        export(tmp_path / "small", "Plato")
    with django_assert_num_queries(4):
        export(tmp_path / "big", "Hanlin Tang")


@pytest.mark.corpus
def test_the_whole_corpus_round_trips(shared, tmp_path):
    """21,007 real files in, every cluster out, identical line 9 aside."""
    dump = shared / "corpus" / "dump"
    status, out, err = run_import(dump)
    assert (status, err) == (0, "")
    assert "21007 files: 6448 papers new" in out
    exported = export(tmp_path)
    assert len(exported) == 21007
    for path in sorted(dump.glob("*.txt")):
        original = path.read_text(encoding="utf-8")
        mine = exported[arrowfile.name_key(original.split("\n")[2])]
        assert without_line_9(mine) == without_line_9(original), path.name
