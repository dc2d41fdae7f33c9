"""import_arrow: what lands in the database, what is refused, and what is reported."""

from __future__ import annotations

import io
import re
import tracemalloc

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clusters.management.commands import import_arrow
from clusters.models import Author, Authorship, NameCluster, Paper, Venue

from .conftest import make_cluster, make_paper, run_import, write_dump, write_files

pytestmark = pytest.mark.django_db

SPAN = make_paper(
    "Span Graph Transformer", ("Hongli Mao", "Xian-Ling Mao", "Hanlin Tang"), venue="AAAI"
)
ADAM = make_paper("1-bit Adam", ("Hanlin Tang", "Ji Liu 0002"), year=2021, has_pdf=False)
LEMON = make_paper("LEMON: Lossless model expansion", ("Yite Wang", "hanlin lu", "Hanlin Lu"))


def table_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Venue, Paper, Author, Authorship, NameCluster)
    }


def test_seeds_import_and_a_second_import_reports_nothing_new(shared):
    status, out, err = run_import(shared / "seeds")
    assert (status, err) == (0, "")
    assert "2 files: 18 papers new, 0 already known" in out
    assert Paper.objects.count() == 18
    tang = NameCluster.objects.get(key="hanlin tang")
    assert (tang.name, tang.slug, tang.source_papers, tang.source_author_rows) == (
        "Hanlin Tang",
        "hanlin-tang",
        15,
        2,
    )
    before = table_counts()

    status, out, _ = run_import(shared / "seeds")
    assert status == 0
    assert "2 files: 0 papers new, 18 already known, 0 authors new, 0 clusters new" in out
    assert table_counts() == before


def test_a_paper_in_many_files_is_stored_once(tmp_path):
    paths = write_dump(tmp_path, [SPAN, ADAM])  # four names, so four files
    assert len(paths) == 4
    status, out, _ = run_import(tmp_path)
    assert status == 0
    assert "4 files: 2 papers new, 3 already known" in out
    assert Paper.objects.count() == 2
    assert Authorship.objects.count() == 5
    span = Paper.objects.get(title="Span Graph Transformer")
    assert list(span.authorships.values_list("position", "name_as_printed", "cluster__key")) == [
        (1, "Hongli Mao", "hongli mao"),
        (2, "Xian-Ling Mao", "xian-ling mao"),
        (3, "Hanlin Tang", "hanlin tang"),
    ]
    assert (span.venue.name, span.venue.kind, span.year, span.paper_type) == (
        "AAAI",
        "Conference",
        2024,
        "Conference Paper",
    )
    assert span.abstract == "We study things." and span.has_pdf and not span.has_doi


def test_spelling_variants_are_separate_identities_in_one_cluster(tmp_path):
    write_dump(tmp_path, [LEMON])
    run_import(tmp_path)
    lu = NameCluster.objects.get(key="hanlin lu")
    assert lu.authorships.count() == 2
    assert sorted(Author.objects.filter(name_key="hanlin lu").values_list("name", flat=True)) == [
        "Hanlin Lu",
        "hanlin lu",
    ]


def test_dblp_number_is_part_of_the_name_and_recorded(tmp_path):
    write_dump(tmp_path, [ADAM, make_paper("Other", ("Ji Liu",))])
    run_import(tmp_path)
    numbered = Author.objects.get(name="Ji Liu 0002")
    assert (numbered.name_key, numbered.dblp_number) == ("ji liu 0002", 2)
    assert Author.objects.get(name="Ji Liu").dblp_number is None
    assert NameCluster.objects.filter(key__startswith="ji liu").count() == 2


def test_names_fold_case_beyond_ascii_into_one_cluster(tmp_path):
    write_dump(tmp_path, [make_paper("A", ("Thomas Müller",)), make_paper("B", ("THOMAS MÜLLER",))])
    run_import(tmp_path)
    cluster = NameCluster.objects.get()
    assert cluster.key == "thomas müller"
    assert cluster.authorships.count() == 2
    assert Author.objects.count() == 2


def test_non_latin_names_get_readable_unique_slugs(tmp_path):
    write_dump(
        tmp_path,
        [make_paper("A", ("王伟", "J. Liu", "J Liu", "Cédric Renggli", "Cedric Renggli", "..."))],
    )
    run_import(tmp_path)
    slugs = dict(NameCluster.objects.values_list("name", "slug"))
    assert slugs["王伟"] == "王伟"
    assert {slugs["J. Liu"], slugs["J Liu"]} == {"j-liu", "j-liu-2"}
    assert (slugs["Cédric Renggli"], slugs["Cedric Renggli"]) == (
        "cédric-renggli",
        "cedric-renggli",
    )
    assert slugs["..."] == "name"


def test_a_rejected_file_leaves_nothing_and_the_others_import(tmp_path):
    good, bad = write_files(
        tmp_path,
        [make_cluster("Hanlin Tang", [ADAM]), make_cluster("Yite Wang", [LEMON, SPAN])],
    )
    # The second paper of the bad file is broken: its first paper must not be kept either.
    bad.write_text(bad.read_text().replace("AAAI Conference 2024", "AAAI Conference"))
    status, out, err = run_import(tmp_path)
    assert status == 1
    assert f"{bad}:23: venue line has no 4-digit year" in err
    assert "1 of 2 files rejected" in err
    assert "2 files: 1 paper new" in out and "1 file rejected" in out
    assert list(Paper.objects.values_list("title", flat=True)) == ["1-bit Adam"]
    assert not NameCluster.objects.filter(key="yite wang").exists()


REFUSE_POISON = {
    "sqlite": [
        "CREATE TEMP TRIGGER poison BEFORE INSERT ON clusters_paper "
        "WHEN NEW.title = 'Poison' BEGIN SELECT RAISE(ABORT, 'poisoned title'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF NEW.title = 'Poison' THEN RAISE EXCEPTION 'poisoned title'; END IF; "
        "RETURN NEW; END $$",
        "CREATE TRIGGER poison BEFORE INSERT ON clusters_paper "
        "FOR EACH ROW EXECUTE FUNCTION poison()",
    ],
}


def test_a_file_the_database_refuses_is_rejected_alone_from_its_batch(tmp_path):
    """A refusal only the database can make (here a trigger) rolls back the batch, whose
    files are then written one by one: only the file at fault is rejected."""
    files = write_files(
        tmp_path,
        [
            make_cluster("Ann", [make_paper("Fine", ("Ann", "Bo"))]),
            make_cluster("Cy", [make_paper("Poison", ("Cy", "Bo"))]),
            make_cluster("Di", [make_paper("Also fine", ("Di",))]),
        ],
    )
    with connection.cursor() as cursor:
        for statement in REFUSE_POISON[connection.vendor]:
            cursor.execute(statement)
    status, out, err = run_import(tmp_path)
    assert status == 1
    assert f"{files[1]}: the database refused the file" in err and "poisoned title" in err
    assert "3 files: 2 papers new" in out and "1 file rejected" in out
    assert set(Paper.objects.values_list("title", flat=True)) == {"Fine", "Also fine"}
    assert not NameCluster.objects.filter(key="cy").exists()
    assert NameCluster.objects.get(key="bo").paper_count == 1


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda b: b.replace(b"Author name cluster", b"Author cluster"), ":1: expected header"),
        (lambda b: b.replace(b"1 paper", b"one paper"), ':7: paper count "one" is not a number'),
        (lambda b: b.replace(b"Details", b""), ":11: file ends in the middle of a paper"),
        (lambda b: b.replace(b"1-bit", b"1-\xffbit"), ":13: bytes are not UTF-8"),
        (lambda b: b.replace(b"1-bit", b"1-\x00bit"), ":13: a NUL character (0x00)"),
        (lambda b: b.replace(b"Ji Liu 0002", b"J" * 501), ":11: author name is 501 characters"),
    ],
)
def test_invalid_files_change_nothing_and_say_where(tmp_path, damage, reason):
    (path,) = write_files(tmp_path, [make_cluster("Hanlin Tang", [ADAM])])
    path.write_bytes(damage(path.read_bytes()))
    status, _, err = run_import(path)
    assert status == 1
    assert f"{path}{reason}" in err
    assert sum(table_counts().values()) == 0


def test_warnings_are_reported_and_strict_turns_them_into_rejections(tmp_path):
    (path,) = write_files(tmp_path, [make_cluster("Hanlin Tang", [ADAM])])
    path.write_text(path.read_text().replace("1 paper", "4 papers"))
    status, out, err = run_import("--strict", path)
    assert status == 1
    assert f"{path}:7: warning: file states 4 papers but holds 1" in err
    assert f"{path}: rejected: 1 warning under --strict" in err
    assert Paper.objects.count() == 0

    status, out, err = run_import(path)
    assert status == 0
    assert "1 warning, 0 files rejected" in out
    assert NameCluster.objects.get(key="hanlin tang").source_papers == 4


def test_dry_run_reports_what_would_happen_and_writes_nothing(tmp_path):
    write_dump(tmp_path, [SPAN, ADAM])
    status, out, _ = run_import("--dry-run", tmp_path)
    assert status == 0
    assert out.startswith("Dry run, nothing written. 4 files: 2 papers new, 3 already known")
    assert sum(table_counts().values()) == 0


def test_missing_path_is_an_error_before_anything_runs(tmp_path):
    status, _, err = run_import(tmp_path / "nope")
    assert status == 1 and "no such file or directory" in err


def test_output_is_one_summary_line_when_not_on_a_terminal(tmp_path):
    write_dump(tmp_path, [SPAN])
    _, out, err = run_import(tmp_path)
    assert err == ""
    assert out.count("\n") == 1 and "elapsed" not in out and out.rstrip().endswith(" s")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar_and_messages_above_it(tmp_path):
    write_dump(tmp_path / "dump", [SPAN, ADAM])
    (bad,) = write_files(tmp_path / "bad", [make_cluster("X", [])])
    bad.write_text("Author cluster")
    out, err = Terminal(), io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_arrow", tmp_path, stdout=out, stderr=err)
    assert "100%|" in out.getvalue() and "5/5" in out.getvalue()
    assert re.search(r"1 file rejected, [0-9.]+ s\n$", out.getvalue())
    assert f"{bad}:1: expected header" in err.getvalue()


def test_statements_per_batch_do_not_grow_with_files_papers_or_names(tmp_path):
    """The cheap proxy for import speed: a batch of files costs a fixed number of
    statements, however many files, papers and names it holds (rows go by executemany)."""

    def statements_for(files: int, papers: int, coauthors: int) -> int:
        tag = f"{files} {papers} {coauthors}"
        clusters = [
            make_cluster(
                f"Name {tag} {f}",
                [
                    make_paper(
                        f"P{tag} {f} {n}",
                        (f"Name {tag} {f}", *(f"Co {tag} {n} {m}" for m in range(coauthors))),
                    )
                    for n in range(papers)
                ],
            )
            for f in range(files)
        ]
        folder = tmp_path / tag
        write_files(folder, clusters)
        with CaptureQueriesContext(connection) as queries:
            run_import(folder)
        return len(queries)

    statements_for(1, 1, 0)  # creates the venue
    small = statements_for(1, 1, 1)
    # The import: authorships so far, and planner statistics at the end (ANALYZE, which
    # SQLite takes in two statements). The batch: savepoint; known fingerprints; clusters
    # of the names; taken slugs; ids, then rows, of new clusters, identities, papers
    # and authorships (authorships take their own ids); identities of the names; the
    # venue; the search index; release. At the end, the touched clusters' id range, then
    # their statistics in a savepoint. PostgreSQL's four COPYs go past Django's log.
    assert small == {"sqlite": 22, "postgresql": 17}[connection.vendor]
    assert statements_for(8, 40, 20) == small


def test_memory_does_not_grow_with_the_number_of_files(tmp_path, monkeypatch):
    """Constant memory, by a deterministic proxy: the peak of Python allocations while
    importing 4 batches' worth of files is about that of 1 batch's worth."""
    monkeypatch.setattr(import_arrow, "BATCH_PAPERS", 40)

    def peak_for(papers: int) -> int:
        tag = f"m{papers}"
        folder = tmp_path / tag
        write_dump(
            folder,
            [
                make_paper(f"{tag} {n}", (f"{tag} A{n % 7}", f"{tag} B{n}", f"{tag} C{n % 13}"))
                for n in range(papers)
            ],
        )
        tracemalloc.start()
        run_import(folder)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak

    one_batch, four_batches = peak_for(40), peak_for(160)
    assert Paper.objects.count() == 200
    assert four_batches < 1.5 * one_batch


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's visibility map (CI runs it)"
)
def test_an_import_on_postgresql_leaves_its_rows_all_visible(tmp_path):
    """After a load, PostgreSQL reads authorships from an index alone only where its
    pages are marked all-visible, which VACUUM does and ANALYZE does not."""
    write_dump(tmp_path, [make_paper(f"Paper {n}", ("Ada Lovelace", f"Co {n}")) for n in range(50)])
    assert run_import(tmp_path)[0] == 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relpages, relallvisible FROM pg_class WHERE relname = %s",
            [Authorship._meta.db_table],
        )
        pages, visible = cursor.fetchone()
    assert pages > 0 and visible == pages
