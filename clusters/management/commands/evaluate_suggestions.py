"""python manage.py evaluate_suggestions PATH_TO_CORPUS [--out FILE]: score the split
suggestions against the true identities of a corpus (its dump/ and truth.json).

Works on the files, not the database: every cluster of the dump is built as the cluster
page builds it (its authorships, their co-authors, and which co-authors wrote together
on papers outside the name), suggested, and compared with truth.json. Two baselines run
on the same items: "each name is one person" and "connected components of the co-author
graph". Scores: B-cubed precision, recall and F1 (averaged over authorships) and
pairwise F1, over all clusters and over those with more than one true identity, by
cluster size. Authorships whose true identity is unknown are left out of the scores.

truth.json names an author by OpenReview profile or, lacking one, by a hash of an email
address; a hash may be a person who also holds a profile under the name. So the scores
are given twice for names of several people: counting every id, and counting profiles
only (the email ids unknown), which are the corpus's "663 names of several people".
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from clusters import arrowfile, suggestions
from clusters.suggestions import Constraints, Item

BANDS = ((1, 2), (3, 5), (6, 10), (11, 20), (21, 10**9))
PROFILES = "more than one profile, email ids unknown"


@dataclass
class Case:
    """One name: its items and the true identity of each (None: unknown)."""

    name: str
    items: list[Item]
    truth: dict[int, str | None]
    constraints: Constraints
    email_ids: frozenset[str] = frozenset()  # ids that hash an address, not a profile

    @property
    def papers(self) -> int:
        return len({item.paper for item in self.items})

    @property
    def identities(self) -> int:
        return len({value for value in self.truth.values() if value is not None})

    @property
    def profiles(self) -> dict[int, str | None]:
        """The truth with email ids unknown."""
        return {key: None if v in self.email_ids else v for key, v in self.truth.items()}


class Corpus:
    """The dump's papers, who wrote them, and the cases of truth.json."""

    def __init__(self, root: Path, merge_suspected: bool = False) -> None:
        self.root = root
        self.merge_suspected = merge_suspected
        self.files: dict[str, arrowfile.ClusterFile] = {}
        self.papers: dict[str, int] = {}  # fingerprint -> paper number
        self.bylines: list[tuple[str, ...]] = []
        self.written: dict[str, set[int]] = defaultdict(set)  # name key -> paper numbers
        for path in sorted((root / "dump").glob("*.txt")):
            cluster = arrowfile.parse(arrowfile.decode(path.read_bytes())).cluster
            self.files[path.name] = cluster
            for block in cluster.papers:
                if block.fingerprint not in self.papers:
                    number = self.papers[block.fingerprint] = len(self.bylines)
                    self.bylines.append(block.authors)
                    for name in block.authors:
                        self.written[arrowfile.name_key(name)].add(number)
        self.truth = json.loads((root / "truth.json").read_text())["files"]

    def cases(self) -> Iterator[Case]:
        for file_name, truth in sorted(self.truth.items()):
            yield self.case(self.files[file_name], truth)

    def case(self, cluster: arrowfile.ClusterFile, truth: dict) -> Case:
        key = arrowfile.name_key(cluster.name)
        by_title = {(paper["title"], paper["year"]): paper for paper in truth["papers"]}
        # The corpus lists ids under one name that share a co-author as suspected to be
        # one person with two profiles; with --merge-suspected they count as one.
        alias = {}
        if self.merge_suspected:
            for pair in truth.get("suspected_same_person", []):
                first, *others = sorted(pair["ids"])
                alias.update((other, first) for other in others)
        items, identities, email_ids = [], {}, set()
        for block in cluster.papers:
            paper = self.papers[block.fingerprint]
            matches = by_title[block.title, block.year]["matches"]
            for match in matches:
                position = match["position"]
                others = tuple(
                    name
                    for index, name in enumerate(block.authors)
                    if arrowfile.name_key(name) != key
                )
                _, number = arrowfile.split_dblp_number(block.authors[position])
                item = Item(
                    key=len(items),
                    paper=paper,
                    printed=block.authors[position],
                    year=block.year,
                    venue=block.venue,
                    text=f"{block.title} {' '.join(block.abstract)}",
                    title=block.title,
                    coauthors=others,
                    dblp_number=number,
                )
                items.append(item)
                identities[item.key] = alias.get(match["identity"], match["identity"])
                if match.get("id_type") == "email_hash":
                    email_ids.add(identities[item.key])
        constraints = Constraints(community=self.community(items))
        return Case(cluster.name, items, identities, constraints, frozenset(email_ids))

    def community(self, items: list[Item]) -> set[frozenset[str]]:
        """Pairs of this name's co-authors who wrote together on a paper outside it."""
        own = {item.paper for item in items}
        coauthors = {arrowfile.name_key(name) for item in items for name in item.coauthors}
        pairs = set()
        for coauthor in coauthors:
            for paper in self.written[coauthor] - own:
                for name in self.bylines[paper]:
                    other = arrowfile.name_key(name)
                    if other != coauthor and other in coauthors:
                        pairs.add(frozenset((coauthor, other)))
        return pairs


# -- the methods compared ------------------------------------------------------------


def one_person(case: Case) -> dict[int, int]:
    return {item.key: 0 for item in case.items}


def coauthor_components(case: Case) -> dict[int, int]:
    partition = suggestions.Partition(case.items, Constraints())
    holders = defaultdict(list)
    for item in case.items:
        for name in item.coauthors:
            holders[arrowfile.name_key(name)].append(item.key)
    for keys in holders.values():
        for key in keys[1:]:
            partition.union(keys[0], key)
    return {key: partition.find(key) for key in partition.parent}


def arrow(case: Case) -> dict[int, int]:
    groups = suggestions.suggest(case.items, case.constraints)
    return {item.key: number for number, group in enumerate(groups) for item in group.items}


METHODS: dict[str, Callable[[Case], dict[int, int]]] = {
    "Arrow suggestions": arrow,
    "co-author components": coauthor_components,
    "each name one person": one_person,
}


# -- scores -------------------------------------------------------------------------


@dataclass
class Score:
    precision_sum: float = 0.0
    recall_sum: float = 0.0
    authorships: int = 0
    pairs_both: int = 0
    pairs_predicted: int = 0
    pairs_true: int = 0
    clusters: int = 0

    def add(self, predicted: dict[int, int], truth: dict[int, str | None]) -> None:
        known = [key for key, identity in truth.items() if identity is not None]
        if not known:
            return
        self.clusters += 1
        by_group, by_person = defaultdict(set), defaultdict(set)
        for key in known:
            by_group[predicted[key]].add(key)
            by_person[truth[key]].add(key)
        for key in known:
            group, person = by_group[predicted[key]], by_person[truth[key]]
            both = len(group & person)
            self.precision_sum += both / len(group)
            self.recall_sum += both / len(person)
            self.authorships += 1
            self.pairs_both += both - 1
            self.pairs_predicted += len(group) - 1
            self.pairs_true += len(person) - 1

    def figures(self) -> dict[str, float]:
        precision = self.precision_sum / self.authorships if self.authorships else 0.0
        recall = self.recall_sum / self.authorships if self.authorships else 0.0
        pair_p = self.pairs_both / self.pairs_predicted if self.pairs_predicted else 1.0
        pair_r = self.pairs_both / self.pairs_true if self.pairs_true else 1.0
        return {
            "clusters": self.clusters,
            "authorships": self.authorships,
            "precision": precision,
            "recall": recall,
            "f1": harmonic(precision, recall),
            "pairwise_f1": harmonic(pair_p, pair_r),
        }


def harmonic(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b else 0.0


def band_of(papers: int) -> str:
    for low, high in BANDS:
        if low <= papers <= high:
            return f"{low}+ papers" if high > 10**6 else f"{low}–{high} papers"
    raise ValueError(papers)


def evaluate(corpus: Corpus) -> tuple[dict, float]:
    """Scores[method][subset] and the seconds the suggestions took."""
    scores: dict[str, dict[str, Score]] = {method: defaultdict(Score) for method in METHODS}
    seconds = 0.0
    for case in corpus.cases():
        subsets = ["all clusters"]
        if case.identities > 1:
            subsets += ["more than one identity", f"  more than one, {band_of(case.papers)}"]
        profiles = case.profiles
        several_profiles = len({value for value in profiles.values() if value}) > 1
        for method, run in METHODS.items():
            started = time.perf_counter()
            predicted = run(case)
            if method == "Arrow suggestions":
                seconds += time.perf_counter() - started
            for subset in subsets:
                scores[method][subset].add(predicted, case.truth)
            if several_profiles:
                scores[method][PROFILES].add(predicted, profiles)
    return scores, seconds


def table(scores: dict) -> str:
    subsets = ["more than one identity", PROFILES, "all clusters"] + sorted(
        {name for method in scores.values() for name in method if name.startswith("  ")},
        key=lambda name: int(name.split(", ")[1].split("–")[0].split("+")[0]),
    )
    lines = [
        "| clusters | method | clusters | authorships | B³ precision | B³ recall | B³ F1 "
        "| pairwise F1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for subset in subsets:
        for method in METHODS:
            f = scores[method][subset].figures()
            if not f["clusters"]:
                continue
            lines.append(
                f"| {subset.strip()} | {method} | {f['clusters']:,} | {f['authorships']:,} "
                f"| {f['precision']:.3f} | {f['recall']:.3f} | **{f['f1']:.3f}** "
                f"| {f['pairwise_f1']:.3f} |"
            )
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Score split suggestions against a corpus's true identities (dump/ + truth.json)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("corpus", type=Path, help="folder holding dump/ and truth.json")
        parser.add_argument("--out", type=Path, help="also write the table to this file")
        parser.add_argument(
            "--merge-suspected",
            action="store_true",
            help="count the corpus's suspected_same_person ids as one person",
        )

    def handle(
        self, *args, corpus: Path, out: Path | None, merge_suspected: bool, **options
    ) -> None:
        if not (corpus / "truth.json").is_file() or not (corpus / "dump").is_dir():
            raise CommandError(f"{corpus} holds no dump/ folder and truth.json")
        started = time.monotonic()
        scores, seconds = evaluate(Corpus(corpus, merge_suspected))
        result = table(scores)
        self.stdout.write(result)
        self.stdout.write(
            f"\n{time.monotonic() - started:.1f} s in all, {seconds:.1f} s in suggestions"
        )
        if out:
            out.write_text(result + "\n", encoding="utf-8")
