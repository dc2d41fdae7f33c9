"""The curation core: split, move, merge, annotate, record different people, revert.
Every change goes through Edit.plan_*() and Edit.apply(); these tests read the
database afterwards."""

from __future__ import annotations

import pytest

from clusters.models import Author, Authorship, Edit, EditConflict

from .conftest import (
    NER,
    OPTIMISATION,
    SHOUTED,
    make_paper,
    picks,
    run_import,
    snapshot,
    write_dump,
)

pytestmark = pytest.mark.django_db


def papers_of(author: Author) -> list[str]:
    return sorted(Authorship.objects.filter(author=author).values_list("paper__title", flat=True))


def split(editor, cluster, prefix, reason="Different co-authors and topic") -> Edit:
    return Edit.plan_split(
        editor=editor, reason=reason, cluster=cluster, picks=picks(cluster, prefix)
    ).apply()


# -- split ------------------------------------------------------------------------------


def test_split_moves_only_the_chosen_papers_to_a_new_numbered_identity(editor, tang):
    original = Author.objects.get(name="Hanlin Tang")
    edit = split(editor, tang, "Entities")
    new = edit.target
    assert (new.name, new.dblp_number, new.created_by) == ("Hanlin Tang 0001", 1, edit)
    assert papers_of(new) == ["Entities 0", "Entities 1"]
    assert papers_of(original) == ["Optimisation 0", "Optimisation 1", "Optimisation 2"]
    moved = Authorship.objects.filter(author=new)
    assert {a.placed_by_id for a in moved} == {edit.pk}
    assert set(Authorship.objects.filter(author=original).values_list("placed_by", flat=True)) == {
        None
    }
    tang.refresh_from_db()
    assert (tang.identity_count, tang.paper_count, tang.is_curated) == (3, 6, True)


def test_split_numbers_are_never_reused(editor, tang):
    first = split(editor, tang, "Entities 0")
    first.plan_revert(editor=editor, reason="too hasty").apply()
    second = split(editor, tang, "Entities 1")
    assert (first.target.name, second.target.name) == ("Hanlin Tang 0001", "Hanlin Tang 0002")


@pytest.mark.parametrize(
    "make_picks, message",
    [
        (lambda cluster: [], "Choose at least one paper."),
        (
            lambda cluster: picks(cluster, "Optimisation") + picks(cluster, "Entities"),
            "Every paper of this identity is chosen",
        ),
        (
            lambda cluster: [(pk, None) for pk, _ in picks(cluster, "Entities")],
            "moved since the page was shown",
        ),
        (
            lambda cluster: [
                (
                    Authorship.objects.get(
                        name_as_printed="Ji Liu", paper__title="Optimisation 0"
                    ).pk,
                    None,
                )
            ],
            "is not listed under Hanlin Tang",
        ),
        (lambda cluster: [(999999, 1)], "No authorship 999999 exists."),
    ],
)
def test_bad_selections_change_nothing_and_say_why(editor, tang, make_picks, message):
    before = snapshot()
    with pytest.raises(EditConflict, match=message):
        Edit.plan_split(editor=editor, reason="r", cluster=tang, picks=make_picks(tang)).apply()
    assert snapshot() == before and not Edit.objects.exists()


def test_a_stale_plan_is_refused_at_apply_time(editor, other_editor, tang):
    mine = Edit.plan_split(
        editor=editor, reason="mine", cluster=tang, picks=picks(tang, "Entities")
    )
    split(other_editor, tang, "Entities 1")
    before = snapshot()
    with pytest.raises(
        EditConflict,
        match=r"1 paper moved since the page was shown: “Entities 1” \(by change #\d+\)",
    ):
        mine.apply()
    assert snapshot() == before


# -- move -------------------------------------------------------------------------------


def test_move_sends_papers_to_an_identity_of_the_same_name(editor, tang):
    shouted = Author.objects.get(name="HANLIN TANG")
    edit = Edit.plan_move(
        editor=editor,
        reason="Same LLM-inference person",
        cluster=tang,
        picks=picks(tang, "Optimisation 2"),
        target=shouted,
    ).apply()
    assert papers_of(shouted) == ["Inference at scale", "Optimisation 2"]
    assert edit.moves.get().from_author.name == "Hanlin Tang"


def test_move_to_an_unrelated_identity_is_refused(editor, tang):
    stranger = Author.objects.get(name="Yiwu Yao")
    with pytest.raises(EditConflict, match="holds no paper under Hanlin Tang or a related name"):
        Edit.plan_move(
            editor=editor, reason="r", cluster=tang, picks=picks(tang, "Entities"), target=stranger
        )


# -- merge ------------------------------------------------------------------------------


def test_merge_keeps_the_others_pointing_at_the_survivor(editor, tang, client):
    survivor, variant = (
        Author.objects.get(name="Hanlin Tang"),
        Author.objects.get(name="HANLIN TANG"),
    )
    Edit.plan_merge(
        editor=editor, reason="One person", identities=[survivor, variant], into=survivor
    ).apply()
    variant.refresh_from_db()
    assert variant.merged_into == survivor and papers_of(variant) == []
    assert "Inference at scale" in papers_of(survivor)
    response = client.get(variant.get_absolute_url())
    assert (response.status_code, response["Location"]) == (301, survivor.get_absolute_url())


def test_identity_pages_show_a_merge_and_a_split_at_once(editor, tang, client):
    # Each identity page keeps a summary (order, figures, history) in the cache: made
    # before the changes, it must not outlive them.
    survivor = Author.objects.get(name="Hanlin Tang")
    variant = Author.objects.get(name="HANLIN TANG")

    def data() -> dict:
        return client.get(survivor.get_absolute_url()).context["data"]

    before = data()
    assert (before["merged_from"], before["page"]["total"]) == ([], 5)
    Edit.plan_merge(
        editor=editor, reason="One person", identities=[survivor, variant], into=survivor
    ).apply()
    merged = data()
    assert [(n["printed"], n["papers"]) for n in merged["names"]] == [
        ("Hanlin Tang", 5),
        ("HANLIN TANG", 1),
    ]
    assert [a["id"] for a in merged["merged_from"]] == [variant.pk]
    assert "Yiwu Yao" in {c["name"] for c in merged["coauthors"]}
    assert merged["papers"][0]["title"] == "Inference at scale"  # 2025, the newest
    assert merged["page"]["total"] == 6
    edit = split(editor, tang, "Entities")
    after = data()
    assert [(s["id"], s["change"]) for s in after["split_into"]] == [(edit.target_id, edit.pk)]
    assert after["page"]["total"] == 4
    assert {v["name"]: v["papers"] for v in after["venues"]}.get("ACL") is None


@pytest.mark.parametrize("into_itself", [True, False])
def test_merge_needs_two_live_identities(editor, tang, into_itself):
    survivor, variant = (
        Author.objects.get(name="Hanlin Tang"),
        Author.objects.get(name="HANLIN TANG"),
    )
    if into_itself:
        with pytest.raises(EditConflict, match="cannot merge into itself"):
            Edit.plan_merge(editor=editor, reason="r", identities=[survivor], into=survivor)
        return
    Edit.plan_merge(
        editor=editor, reason="r", identities=[survivor, variant], into=survivor
    ).apply()
    variant.refresh_from_db()
    with pytest.raises(EditConflict, match="was already merged"):
        Edit.plan_merge(editor=editor, reason="r", identities=[survivor, variant], into=variant)


def test_different_people_are_not_merged_without_an_override(editor, tang):
    survivor, variant = (
        Author.objects.get(name="Hanlin Tang"),
        Author.objects.get(name="HANLIN TANG"),
    )
    record = Edit.plan_distinct(
        editor=editor, reason="Intel vs. Rochester", identities=[variant, survivor], cluster=tang
    ).apply()
    with pytest.raises(
        EditConflict,
        match=rf"recorded as different people \(change #{record.pk}: “Intel vs. Rochester”\)",
    ):
        Edit.plan_merge(editor=editor, reason="r", identities=[survivor, variant], into=survivor)
    edit = Edit.plan_merge(
        editor=editor,
        reason="The record was wrong",
        identities=[survivor, variant],
        into=survivor,
        override_distinct=True,
    ).apply()
    assert edit.override_distinct and papers_of(variant) == []


# -- annotate ---------------------------------------------------------------------------


def test_annotations_are_validated_and_recorded_before_and_after(editor, tang):
    author = Author.objects.get(name="Hanlin Tang")
    with pytest.raises(Exception, match="wrong check digit"):
        Edit.plan_annotate(
            editor=editor, reason="r", identity=author, values={"orcid": "0000-0002-1825-0098"}
        )
    edit = Edit.plan_annotate(
        editor=editor,
        reason="From the homepage",
        identity=author,
        values={
            "label": "optimisation",
            "orcid": "0000-0002-1825-0097",
            "homepage": "https://example.org/~ht",
        },
    ).apply()
    author.refresh_from_db()
    assert (author.label, author.orcid) == ("optimisation", "0000-0002-1825-0097")
    assert edit.changes["fields"]["label"] == ["", "optimisation"]
    with pytest.raises(EditConflict, match="Nothing would change"):
        Edit.plan_annotate(
            editor=editor, reason="r", identity=author, values={"label": "optimisation"}
        )


# -- revert -----------------------------------------------------------------------------


def test_revert_restores_the_earlier_state_exactly(editor, tang):
    survivor, variant = (
        Author.objects.get(name="Hanlin Tang"),
        Author.objects.get(name="HANLIN TANG"),
    )
    identities = list(Author.objects.values_list("pk", flat=True))
    before = snapshot(identities)
    edits = [
        split(editor, tang, "Entities"),
        Edit.plan_merge(
            editor=editor, reason="one", identities=[survivor, variant], into=survivor
        ).apply(),
        Edit.plan_annotate(
            editor=editor, reason="n", identity=survivor, values={"affiliation": "Rochester"}
        ).apply(),
        Edit.plan_distinct(
            editor=editor,
            reason="d",
            identities=[survivor, Author.objects.get(name="Hanlin Tang 0001")],
        ).apply(),
    ]
    for edit in reversed(edits):
        edit.refresh_from_db()
        edit.plan_revert(editor=editor, reason="undo").apply()
    assert snapshot(identities) == before
    assert papers_of(edits[0].target) == []
    assert set(Edit.objects.filter(kind="revert").values_list("status", flat=True)) == {"applied"}
    assert set(Edit.objects.exclude(kind="revert").values_list("status", flat=True)) == {"reverted"}


def test_revert_is_refused_when_papers_moved_again_later(editor, tang):
    first = split(editor, tang, "Entities")
    later = Edit.plan_move(
        editor=editor,
        reason="back",
        cluster=tang,
        picks=picks(tang, "Entities 1"),
        target=Author.objects.get(name="HANLIN TANG"),
    ).apply()
    before = snapshot()
    with pytest.raises(
        EditConflict,
        match=rf"Change #{first.pk} cannot be reverted: “Entities 1” was moved again "
        rf"by change #{later.pk}",
    ):
        first.plan_revert(editor=editor, reason="undo").apply()
    assert snapshot() == before


def test_reverting_a_revert_puts_the_change_back(editor, tang):
    edit = split(editor, tang, "Entities")
    after_split = snapshot()
    undo = edit.plan_revert(editor=editor, reason="undo").apply()
    undo.plan_revert(editor=editor, reason="redo").apply()
    assert snapshot() == after_split
    edit.refresh_from_db()
    assert edit.status == "applied"
    with pytest.raises(EditConflict, match="not in effect"):
        undo.refresh_from_db() or undo.plan_revert(editor=editor, reason="again")


# -- curation survives re-import --------------------------------------------------------


def test_reimport_keeps_assignments_and_holds_new_papers_of_a_split_name(editor, tang, tmp_path):
    edit = split(editor, tang, "Entities")
    before = snapshot()
    write_dump(tmp_path / "again", OPTIMISATION + NER + SHOUTED)
    assert "0 papers new" in run_import(tmp_path / "again")[1]
    assert snapshot() == before
    write_dump(tmp_path / "newer", [make_paper("Entities 9", ("Hongli Mao", "Hanlin Tang"))])
    run_import(tmp_path / "newer")
    waiting = Authorship.objects.get(paper__title="Entities 9", name_as_printed="Hanlin Tang")
    assert waiting.author is None
    assert (
        Authorship.objects.get(paper__title="Entities 9", name_as_printed="Hongli Mao").author
        is not None
    )
    Edit.plan_move(
        editor=editor,
        reason="Same NER person",
        cluster=tang,
        picks=[(waiting.pk, None)],
        target=edit.target,
    ).apply()
    assert "Entities 9" in papers_of(edit.target)
