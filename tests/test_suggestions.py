"""Split suggestions: the model on hand-built names where the answer is obvious, its
hard constraints as properties, and the pages that show it and turn it into a split."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from clusters.models import Edit, NameCluster
from clusters.suggestions import Constraints, Item, suggest

from .conftest import SHARED, make_paper, picks, write_dump

TOPICS = {
    "optimisation": "stochastic gradient descent convergence rates for nonconvex objectives",
    "language": "named entity recognition for low resource languages with transformers",
    "vision": "segmentation masks from satellite imagery under cloud cover",
}


def item(key, coauthors=(), paper=None, year=2020, venue="ICML", topic="optimisation", **kw):
    return Item(
        key=key,
        paper=key if paper is None else paper,
        printed=kw.pop("printed", "Wei Wang"),
        year=year,
        venue=venue,
        text=TOPICS[topic],
        coauthors=tuple(coauthors),
        **kw,
    )


def grouping(groups) -> set[frozenset[int]]:
    return {frozenset(item.key for item in group.items) for group in groups}


def test_two_communities_that_never_meet_are_two_people_with_their_reasons():
    items = [
        item(1, ["Ji Liu", "Ce Zhang"], year=2018),
        item(2, ["Ji Liu", "Xiangru Lian"], year=2019),
        item(3, ["Ce Zhang"], year=2021),
        item(4, ["Hongli Mao"], venue="ACL", topic="language", year=2022),
        item(5, ["Hongli Mao", "Xian-Ling Mao"], venue="ACL", topic="language", year=2023),
    ]
    groups = suggest(items)
    assert grouping(groups) == {frozenset({1, 2, 3}), frozenset({4, 5})}
    first = groups[0]
    assert first.papers == 3 and not first.uncertain
    assert "co-authors on several of its papers: Ce Zhang (2 papers), Ji Liu (2 papers)" in (
        first.reasons
    )
    assert "ICML, 2018–2021" in first.reasons
    confidence, reason = first.members[2]
    assert reason == "shares 1 co-author with the group: Ji Liu" and confidence == 0.95


def test_one_person_across_years_with_a_stable_coauthor_is_one_group():
    items = [item(n, ["Ada Advisor", f"Student {n}"], year=2000 + 3 * n) for n in range(6)]
    (group,) = suggest(items)
    assert group.papers == 6 and group.confidence == 0.95
    assert group.reasons[0] == "co-authors on several of its papers: Ada Advisor (6 papers)"


def test_a_paper_with_no_evidence_is_uncertain_not_forced():
    items = [item(1, ["Ji Liu"]), item(2, ["Ji Liu"]), item(3, ["Someone Else"], topic="language")]
    groups = suggest(items)
    assert grouping(groups) == {frozenset({1, 2}), frozenset({3})}
    alone = groups[-1]
    assert alone.uncertain and alone.confidence == 0.5
    assert alone.members[3][1] == "no co-author, community or topic in common with another group"


def test_coauthors_who_wrote_together_elsewhere_join_groups_by_two_pairs_not_one():
    items = [item(1, ["A One", "A Two"]), item(2, ["B One", "B Two"], topic="language")]
    one_pair = Constraints(community={frozenset({"a one", "b one"})})
    assert grouping(suggest(items, one_pair)) == {frozenset({1}), frozenset({2})}
    two_pairs = Constraints(
        community={frozenset({"a one", "b one"}), frozenset({"a two", "b two"})}
    )
    groups = suggest(items, two_pairs)
    assert grouping(groups) == {frozenset({1, 2})}
    assert "has written with" in groups[0].members[1][1]


def test_two_authorships_of_one_paper_are_two_people():
    items = [item(1, ["Ji Liu"], paper=7), item(2, ["Ji Liu"], paper=7)]
    assert grouping(suggest(items)) == {frozenset({1}), frozenset({2})}


def test_dblp_numbers_keep_people_apart_and_together():
    items = [
        item(1, ["Ji Liu"], dblp_number=1, printed="Wei Wang 0001"),
        item(2, ["Ji Liu"], dblp_number=2, printed="Wei Wang 0002"),
        item(3, [], dblp_number=2, printed="Wei Wang 0002"),
    ]
    groups = suggest(items)
    assert grouping(groups) == {frozenset({1}), frozenset({2, 3})}
    assert groups[0].members[3] == (0.99, "printed with dblp number 0002")


def test_editors_decisions_are_hard_constraints():
    confirmed = [item(n, [f"Other {n}"], identity=10, confirmed=True) for n in (1, 2)]
    apart = [
        item(3, ["Ji Liu"], identity=20, topic="language"),
        item(4, ["Ji Liu"], identity=30, topic="vision"),
    ]
    groups = suggest(confirmed + apart, Constraints(distinct={frozenset({20, 30})}))
    assert grouping(groups) == {frozenset({1, 2}), frozenset({3}), frozenset({4})}
    assert groups[0].members[1] == (1.0, "placed on this person by an editor")


names = st.sampled_from(["Ji Liu", "Ce Zhang", "Ann Lee", "Bo Li", "Cy Wu", "Di Xu"])


@st.composite
def names_with_decisions(draw):
    count = draw(st.integers(1, 14))
    items = []
    for key in range(count):
        identity = draw(st.sampled_from([None, 1, 2, 3]))
        confirmed = identity is not None and draw(st.booleans())
        items.append(
            item(
                key,
                draw(st.lists(names, max_size=3, unique=True)),
                # What editors placed on one person is consistent: its own papers, and
                # no dblp number that would say otherwise.
                paper=100 + key if confirmed else draw(st.integers(0, count)),
                year=draw(st.integers(2000, 2025)),
                identity=identity,
                confirmed=confirmed,
                dblp_number=None if confirmed else draw(st.sampled_from([None, None, 1, 2])),
            )
        )
    distinct = draw(st.sets(st.sampled_from([frozenset({1, 2}), frozenset({2, 3})])))
    community = draw(st.sets(st.builds(lambda a, b: frozenset({a, b}), names, names)))
    keys = {frozenset(n.lower() for n in pair) for pair in community if len(pair) == 2}
    return items, Constraints(distinct=set(distinct), community=keys)


@settings(max_examples=300, deadline=None)
@given(names_with_decisions())
def test_suggestions_never_break_what_editors_decided(case):
    items, constraints = case
    groups = suggest(items, constraints)
    group_of = {item.key: n for n, group in enumerate(groups) for item in group.items}
    assert sorted(group_of) == [item.key for item in items]  # each exactly once
    for a in items:
        for b in items:
            if a.confirmed and b.confirmed and a.identity == b.identity:
                assert group_of[a.key] == group_of[b.key]
    for group in groups:
        identities = {item.identity for item in group.items if item.identity}
        assert not any(pair <= identities for pair in constraints.distinct)
        assert len({item.dblp_number for item in group.items if item.dblp_number}) <= 1
        assert len({item.paper for item in group.items}) == len(group.items)
        assert 0 < group.confidence <= 1


# -- from the database, on the pages --------------------------------------------------


@pytest.mark.django_db
def test_the_page_groups_the_name_and_a_group_becomes_a_split_proposal(client, editor, tang):
    client.force_login(editor)
    data = client.get(f"/clusters/{tang.slug}/suggestions/?format=json").json()
    papers = [sorted(member["title"] for member in group["members"]) for group in data["groups"]]
    assert papers[:2] == [
        ["Optimisation 0", "Optimisation 1", "Optimisation 2"],
        ["Entities 0", "Entities 1"],
    ]
    assert data["people"] == 2 and data["uncertain"] == 1 and len(data["groups"]) == 2
    (alone,) = data["uncertain_papers"]["members"]
    assert alone["printed"] == "HANLIN TANG" and alone["title"] == "Inference at scale"
    ner = data["groups"][1]
    assert "co-authors on several of its papers: Hongli Mao (2 papers)" in ner["reasons"]
    assert [(on["name"], on["papers"]) for on in ner["now_on"]] == [("Hanlin Tang", 2)]

    # Accepting the group: its picks go to the split page, which previews, then proposes.
    query = "&".join(f"a={member['pick']}" for member in ner["members"])
    preview = client.get(f"/clusters/{tang.slug}/split/?{query}")
    assert preview.status_code == 200 and b"Entities 0" in preview.content
    client.post(
        f"/clusters/{tang.slug}/split/",
        {"a": [m["pick"] for m in ner["members"]], "reason": "two NER papers, one person"},
    )
    proposal = Edit.objects.get()
    assert proposal.status == Edit.Status.PROPOSED and proposal.kind == Edit.Kind.SPLIT
    assert sorted(move.authorship_id for move in proposal.moves.all()) == sorted(
        member["authorship"] for member in ner["members"]
    )


@pytest.mark.django_db
def test_suggestions_are_cached_until_the_name_changes(client, moderator, tang):
    from clusters.models.suggesting import cluster_suggestions

    first = cluster_suggestions(tang)
    assert cluster_suggestions(tang) is not first or first.groups  # served from the cache
    Edit.plan_split(
        editor=moderator, reason="r", cluster=tang, picks=picks(tang, "Entities")
    ).apply()
    tang.refresh_from_db()
    after = cluster_suggestions(tang)
    ner = next(g for g in after.groups if "Entities 0" in {i.title for i in g.items})
    assert all(reason == "placed on this person by an editor" for _, reason in ner.members.values())
    assert NameCluster.objects.get(pk=tang.pk).suggested_people == after.people


@pytest.mark.django_db
def test_approving_a_proposal_makes_cached_answers_afresh(editor, moderator, tang):
    # The proposal is the newest change before and after its approval: its id alone
    # would keep the caches keyed by it, and their stale answers.
    proposal = Edit.plan_split(
        editor=editor, reason="r", cluster=tang, picks=picks(tang, "Entities")
    ).submit()
    assert proposal.status == Edit.Status.PROPOSED
    proposed = Edit.objects.version()
    assert Edit.objects.version() == proposed
    proposal.approve(moderator)
    assert Edit.objects.version() != proposed


@pytest.mark.django_db
def test_the_page_costs_a_fixed_number_of_queries(
    client, editor, tang, django_assert_num_queries, fresh_cache
):
    client.force_login(editor)
    # session, user and the user's and groups' permissions; the cluster; the newest
    # edit; authorships; co-authors; distinct pairs; co-author communities; the score;
    # the names of the identities the papers are on
    with django_assert_num_queries(12):
        client.get(f"/clusters/{tang.slug}/suggestions/")
    # cached: session, user and permissions; the cluster; the newest edit; the names
    with django_assert_num_queries(7):
        client.get(f"/clusters/{tang.slug}/suggestions/")


@pytest.mark.django_db
def test_the_dashboard_ranks_names_worst_first_with_filters(
    client, editor, tang, django_assert_num_queries
):
    call_command("score_ambiguity", stdout=io.StringIO())
    client.force_login(editor)
    data = client.get("/ambiguous/?format=json").json()
    assert data["clusters"][0]["name"] == "Hanlin Tang"
    assert data["clusters"][0]["suggested_people"] == 2
    assert "2 groups of papers share no co-authors" in data["clusters"][0]["hints"]
    scores = [row["ambiguity"] for row in data["clusters"]]
    assert scores == sorted(scores, reverse=True)
    assert [
        row["name"] for row in client.get("/ambiguous/?format=json&min_people=2").json()["clusters"]
    ] == ["Hanlin Tang"]
    assert client.get("/ambiguous/?format=json&curated=yes").json()["clusters"] == []
    bad = client.get("/ambiguous/?min_papers=zero").context["data"]["notices"]
    assert bad and "number" in bad[0].lower()
    with django_assert_num_queries(6):  # session, user, permissions; one page; the count
        client.get("/ambiguous/")


@pytest.mark.django_db
def test_readers_see_neither_page(client, reader, tang):
    assert client.get("/ambiguous/").status_code == 302  # to the login page
    client.force_login(reader)
    assert client.get("/ambiguous/").status_code == 403
    assert client.get(f"/clusters/{tang.slug}/suggestions/").status_code == 403


# -- evaluate_suggestions -------------------------------------------------------------


def small_corpus(root):
    """Two "Wei Wang"s who never share a co-author, and the truth that says so."""
    papers = [
        make_paper("Gradients 1", ("Wei Wang", "Ji Liu")),
        make_paper("Gradients 2", ("Wei Wang", "Ji Liu", "Ce Zhang")),
        make_paper("Entities 1", ("Wei Wang", "Hongli Mao"), venue="ACL"),
    ]
    files = write_dump(root / "dump", papers)
    truth = {"files": {}}
    for path in files:
        text = path.read_text()
        name = text.split("\n\n")[1]
        entries = []
        for paper in papers:
            if name in paper.authors:
                identity = "~A" if paper.title.startswith("Gradients") else "~B"
                if name != "Wei Wang":
                    identity = f"~{name}"
                entries.append(
                    {
                        "title": paper.title,
                        "year": paper.year,
                        "matches": [{"position": paper.authors.index(name), "identity": identity}],
                    }
                )
        truth["files"][path.name] = {"name": name, "papers": entries}
    (root / "truth.json").write_text(json.dumps(truth))


def test_evaluation_scores_each_method_against_the_truth(tmp_path):
    small_corpus(tmp_path)
    out = io.StringIO()
    call_command("evaluate_suggestions", tmp_path, "--out", tmp_path / "table.md", stdout=out)
    rows = {
        tuple(cell.strip() for cell in line.split("|")[1:3]): line
        for line in out.getvalue().splitlines()
        if line.startswith("| more than one identity")
    }
    assert (
        "| 1 | 3 | 1.000 | 1.000 | **1.000** |"
        in rows["more than one identity", "Arrow suggestions"]
    )
    # One person for the name: each "Wei Wang" authorship is with 2 of 3 wrongly or not.
    assert "| 0.556 | 1.000 | **0.714** |" in rows["more than one identity", "each name one person"]
    assert (tmp_path / "table.md").read_text().startswith("| clusters | method |")


def test_evaluation_can_count_suspected_profiles_of_one_person_as_one(tmp_path):
    small_corpus(tmp_path)
    truth = json.loads((tmp_path / "truth.json").read_text())
    for entry in truth["files"].values():
        if entry["name"] == "Wei Wang":
            entry["suspected_same_person"] = [{"ids": ["~B", "~A"], "shared_coauthors": []}]
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    out = io.StringIO()
    call_command("evaluate_suggestions", tmp_path, "--merge-suspected", stdout=out)
    # One person now: no name holds two, and "each name one person" is right everywhere.
    assert "more than one identity" not in out.getvalue()
    rows = [line for line in out.getvalue().splitlines() if "each name one person" in line]
    assert "| 1.000 | 1.000 | **1.000** |" in rows[0]


def test_evaluation_scores_names_of_several_profiles_with_email_ids_unknown(tmp_path):
    small_corpus(tmp_path)
    out = io.StringIO()
    call_command("evaluate_suggestions", tmp_path, stdout=out)
    assert "| more than one profile, email ids unknown | Arrow suggestions | 1 | 3 |" in (
        out.getvalue()
    )
    truth = json.loads((tmp_path / "truth.json").read_text())
    for entry in truth["files"].values():
        for paper in entry["papers"]:
            for match in paper["matches"]:
                if match["identity"] == "~B":
                    match["id_type"] = "email_hash"
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    out = io.StringIO()
    call_command("evaluate_suggestions", tmp_path, stdout=out)
    # "~B" may be "~A" without a profile: Wei Wang is one known profile, two ids.
    assert "more than one profile" not in out.getvalue()
    assert "| more than one identity | Arrow suggestions | 1 | 3 |" in out.getvalue()


def test_evaluation_says_what_is_missing(tmp_path):
    with pytest.raises(CommandError, match="holds no dump/ folder and truth.json"):
        call_command("evaluate_suggestions", tmp_path)


@pytest.mark.corpus
@pytest.mark.skipif(not (SHARED / "corpus" / "truth.json").exists(), reason="needs ../shared")
def test_on_the_real_corpus_suggestions_beat_both_baselines_on_homonyms():
    from pathlib import Path

    from clusters.management.commands.evaluate_suggestions import Corpus, evaluate

    scores, _ = evaluate(Corpus(Path(SHARED / "corpus")))
    f1 = {method: s["more than one identity"].figures()["f1"] for method, s in scores.items()}
    assert f1["Arrow suggestions"] > f1["co-author components"] > f1["each name one person"]
    pairwise = {
        method: s["more than one identity"].figures()["pairwise_f1"] for method, s in scores.items()
    }
    assert pairwise["Arrow suggestions"] > pairwise["co-author components"]


@pytest.mark.django_db
def test_score_ambiguity_reports_what_it_scored(tang):
    out = io.StringIO()
    call_command("score_ambiguity", stdout=out)
    # Hanlin Tang, and the co-authors with two papers or more: Ji Liu, Ce Zhang, Hongli Mao
    assert out.getvalue().startswith("4 names scored, 1 with more than one suggested person")
    scored = NameCluster.objects.exclude(suggested_people=None)
    assert sorted(scored.values_list("key", "suggested_people")) == [
        ("ce zhang", 1),
        ("hanlin tang", 2),
        ("hongli mao", 1),
        ("ji liu", 1),
    ]


@pytest.mark.django_db
def test_names_too_large_to_compute_while_waiting_are_computed_offline(
    client, editor, tang, monkeypatch
):
    from clusters.models import suggesting

    monkeypatch.setattr(suggesting, "ONLINE_PAPERS", 5)  # "Hanlin Tang" has 6
    client.force_login(editor)
    page = client.get(f"/clusters/{tang.slug}/suggestions/")
    assert not page.context["data"]["computed"]
    assert "computed by <code>manage.py score_ambiguity</code>" in page.content.decode()
    call_command("score_ambiguity", stdout=io.StringIO())
    assert client.get(f"/clusters/{tang.slug}/suggestions/?format=json").json()["people"] == 2


def test_the_same_name_gets_the_same_reasons_whatever_the_hash_seed():
    """Six co-authors on every paper tie for "co-authors on several of its papers", of
    which five are named: which five must not depend on how this process hashes
    strings (it did, by counting from sets)."""
    script = (
        "from clusters.suggestions import Item, suggest\n"
        "names = ('Zoe Zhu', 'Al Ames', 'Mo Ma', 'Bo Bu', 'Cy Co', 'Di Do')\n"
        "items = [Item(key=n, paper=n, printed='Wei Wang', year=2020, venue='ICML', "
        "text='graph', coauthors=names) for n in range(3)]\n"
        "print([group.reasons for group in suggest(items)])\n"
    )
    answers = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=Path(__file__).resolve().parent.parent,  # where `clusters` imports from
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(4)
    }
    assert len(answers) == 1
    assert "Zoe Zhu (3 papers), Al Ames (3 papers)" in answers.pop()
