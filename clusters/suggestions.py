"""Split suggestions: which papers under one name are probably by the same person.

A small model an editor can follow, in two steps:

1. **Evidence that joins.** Two papers of the name belong together when they share a
   co-author (the strongest signal), when their co-authors have written together on
   other papers (a co-author community), when both print the same dblp number, or when
   an editor has already placed both on one identity (a confirmed assignment).
2. **Evidence that leans.** Groups that nothing joins are compared by topic (TF-IDF
   cosine of titles and abstracts, computed here, no model), venue series and years.
   A group joins another only when all of them agree; otherwise it stays on its own,
   and a one-paper group with no evidence is reported as uncertain, not forced.

Hard constraints are never broken: papers an editor confirmed as one person stay
together, identities recorded as different people (DistinctPair) and different dblp
numbers are never joined.

Plain functions on plain dataclasses, no Django: `suggest()` is what the cluster page,
the ambiguity dashboard and `manage.py evaluate_suggestions` all call.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .arrowfile import name_key

# Tuned on ../shared/corpus (manage.py evaluate_suggestions); see BENCHMARKS.md.
TOPIC_THRESHOLD = 0.30  # cosine similarity of two groups' TF-IDF vectors
LEAN_THRESHOLD = 0.55  # combined topic, venue and year score needed to join
YEAR_GAP = 3  # years between groups still "continuous"
COMMUNITY_LINKS = 2  # co-author pairs that must have written together elsewhere
CORE = 12  # a group's most frequent co-authors, whose communities are looked up
CORES = 2000  # and at most this many in all (a name of 40,000 papers has 100,000s)
SAMPLE = 60  # a group's papers read for its topic (its newest)
LEAN_TARGETS = 50  # groups that leftovers may lean towards (the largest)

WORD = re.compile(r"[^\W\d_]{3,}")
STOPWORDS = frozenset(
    """about above across after again against also although among analysis approach
    approaches are based because been before being below between both but can cannot could
    data different does doing during each either enable enables existing experiments few
    first from further given has have having here however into its itself large learning
    less many method methods model models more most much must new novel numerous often only
    other our over paper performance present problem problems propose proposed provide
    provides recent results several show shows significant significantly some such task tasks
    than that the their them then there these they this those three through thus towards two
    under use used uses using various very via was well were what when where whether which
    while who whose will with within without work would yet""".split()
)


@dataclass(frozen=True)
class Item:
    """One authorship of the name: a paper and what is known around it."""

    key: int  # the authorship's id (or any unique number)
    paper: int
    printed: str
    year: int
    venue: str
    text: str  # title and abstract
    coauthors: tuple[str, ...]  # the other names on the paper, as printed
    title: str = ""
    identity: int | None = None
    confirmed: bool = False  # an editor placed it on its identity
    dblp_number: int | None = None


@dataclass
class Constraints:
    distinct: set[frozenset[int]] = field(default_factory=set)  # pairs of identities
    # Pairs of co-author name keys that wrote together on papers outside this name;
    # or, for large names, a function that finds them among the name keys it is given.
    community: set[frozenset[str]] = field(default_factory=set)
    community_of: Callable[[set[str]], set[frozenset[str]]] | None = None


@dataclass
class Group:
    items: list[Item]
    confidence: float
    reasons: list[str]
    # Per authorship key: (confidence, why this paper is here).
    members: dict[int, tuple[float, str]]
    uncertain: bool = False

    @property
    def papers(self) -> int:
        return len({item.paper for item in self.items})


class Partition:
    """Union-find over items that refuses unions breaking a hard constraint."""

    def __init__(self, items: list[Item], constraints: Constraints) -> None:
        self.parent = {item.key: item.key for item in items}
        # Identities the items are on now: two recorded as different people never meet.
        self.identities: dict[int, set[int]] = {
            item.key: {item.identity} if item.identity else set() for item in items
        }
        self.numbers: dict[int, set[int]] = {
            item.key: {item.dblp_number} if item.dblp_number else set() for item in items
        }
        # Two authorships of one paper are two people ("Wei Wang" and "Wei Wang").
        self.papers: dict[int, set[int]] = {item.key: {item.paper} for item in items}
        self.distinct = constraints.distinct

    def find(self, key: int) -> int:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def allowed(self, a: int, b: int) -> bool:
        a, b = self.find(a), self.find(b)
        if a == b:
            return True
        if len(self.numbers[a] | self.numbers[b]) > 1:
            return False  # two dblp numbers are two people
        if not self.papers[a].isdisjoint(self.papers[b]):
            return False
        return not any(
            frozenset((x, y)) in self.distinct
            for x in self.identities[a]
            for y in self.identities[b]
        )

    def union(self, a: int, b: int, force: bool = False) -> bool:
        if not force and not self.allowed(a, b):
            return False
        a, b = self.find(a), self.find(b)
        if a == b:
            return False
        self.parent[b] = a
        self.identities[a] |= self.identities.pop(b)
        self.numbers[a] |= self.numbers.pop(b)
        self.papers[a] |= self.papers.pop(b)
        return True

    def groups(self) -> dict[int, list[int]]:
        result: dict[int, list[int]] = defaultdict(list)
        for key in self.parent:
            result[self.find(key)].append(key)
        return result


def words(text: str) -> list[str]:
    return [word for word in WORD.findall(text.lower()) if word not in STOPWORDS]


def tfidf(documents: dict[int, list[str]]) -> dict[int, dict[str, float]]:
    """Unit TF-IDF vectors; idf smoothed, so that two papers of a small name still
    weigh the words they share."""
    frequency = Counter(word for tokens in documents.values() for word in set(tokens))
    count = len(documents)
    vectors = {}
    for key, tokens in documents.items():
        weights = {
            word: n * (math.log((1 + count) / (1 + frequency[word])) + 1)
            for word, n in Counter(tokens).items()
        }
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        vectors[key] = {word: w / norm for word, w in weights.items()}
    return vectors


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    if a.keys().isdisjoint(b):
        return 0.0  # most groups share no topic word: skip the sum
    return sum(weight * b[word] for word, weight in a.items() if word in b)


def centroid(vectors: Iterable[dict[str, float]]) -> dict[str, float]:
    total: Counter = Counter()
    for vector in vectors:
        total.update(vector)
    norm = math.sqrt(sum(w * w for w in total.values())) or 1.0
    return {word: w / norm for word, w in total.items()}


class Suggester:
    """One name's items in; groups with confidences and reasons out (see suggest())."""

    def __init__(self, items: list[Item], constraints: Constraints) -> None:
        self.items = {item.key: item for item in items}
        self.constraints = constraints
        self.partition = Partition(items, constraints)
        self.why: dict[int, tuple[float, str]] = {}
        self.community_links: dict[int, set[frozenset[str]]] = {}
        self.leaned: dict[int, tuple[float, int]] = {}
        self.holders: dict[str, list[Item]] = defaultdict(list)
        self.display: dict[str, str] = {}
        # Each item's co-authors as name keys, in print order without repeats, each
        # printed name folded once: a name of 2,000 papers prints the same co-authors
        # tens of thousands of times. An order, not a set: counts made from them break
        # ties by the name first met, so the reasons never depend on string hashing.
        self.coauthor_keys: dict[int, tuple[str, ...]] = {}
        folded: dict[str, str] = {}
        for item in items:
            for name in item.coauthors:
                key = folded.get(name)
                if key is None:
                    key = folded[name] = name_key(name)
                self.display.setdefault(key, name)
                self.holders[key].append(item)
            self.coauthor_keys[item.key] = tuple(dict.fromkeys(map(folded.get, item.coauthors)))

    def run(self) -> list[Group]:
        self.join_confirmed()
        self.join_by_coauthors()
        self.join_by_community()
        vectors = tfidf({key: words(self.items[key].text) for key in self.sample()})
        self.lean(vectors)
        return self.describe(vectors)

    def sample(self) -> list[int]:
        """The items whose topic is read: all of small groups, the newest SAMPLE of
        large ones (a topic is clear long before a thousand abstracts)."""
        keys = []
        for group in self.partition.groups().values():
            newest = sorted(group, key=lambda key: (-self.items[key].year, key))
            keys += newest[:SAMPLE]
        return keys

    # -- step 1: evidence that joins ---------------------------------------------

    def join_confirmed(self) -> None:
        by_identity: dict[int, list[Item]] = defaultdict(list)
        by_number: dict[int, list[Item]] = defaultdict(list)
        for item in self.items.values():
            if item.confirmed and item.identity:
                by_identity[item.identity].append(item)
            if item.dblp_number:
                by_number[item.dblp_number].append(item)
        for group in by_identity.values():
            for item in group:
                self.partition.union(group[0].key, item.key, force=True)
                self.why[item.key] = (1.0, "placed on this person by an editor")
        for number, group in by_number.items():
            for item in group:
                self.partition.union(group[0].key, item.key)
                self.why.setdefault(item.key, (0.99, f"printed with dblp number {number:04d}"))

    def join_by_coauthors(self) -> None:
        for _, group in sorted(self.holders.items(), key=lambda entry: -len(entry[1])):
            for item in group[1:]:
                self.partition.union(group[0].key, item.key)

    def join_by_community(self) -> None:
        """Groups whose co-authors wrote together elsewhere, by at least COMMUNITY_LINKS
        distinct pairs of them: one pair alone joins different people too often
        (measured on the corpus). Only each group's CORE most frequent co-authors are
        looked at, which bounds the work on names with thousands of papers."""
        if len(self.partition.groups()) < 2:
            return
        cores = self.cores()
        if self.constraints.community_of is not None:
            pairs = self.constraints.community_of(set(cores))
        else:
            pairs = {pair for pair in self.constraints.community if pair <= cores.keys()}
        links = group_links(cores, pairs)
        strongest = sorted(links.items(), key=lambda entry: (-len(entry[1]), sorted(entry[0])))
        for roots, pairs_between in strongest:
            first, second = sorted(roots)
            if len(pairs_between) >= COMMUNITY_LINKS and self.partition.union(first, second):
                for key in (first, second):
                    self.community_links.setdefault(key, set()).update(pairs_between)

    def cores(self) -> dict[str, set[int]]:
        """Each group's CORE most frequent co-authors, larger groups first, CORES names at
        most: co-author -> the groups (roots) it is core to."""
        cores: dict[str, set[int]] = defaultdict(set)
        groups = sorted(self.partition.groups().items(), key=lambda entry: -len(entry[1]))
        for root, keys in groups:
            if len(cores) >= CORES:
                break
            counts = Counter(name for key in keys for name in sorted(self.coauthor_keys[key]))
            # Ties go to the name first met, so the answer never depends on hashing.
            for name, _ in counts.most_common(CORE):
                cores[name].add(root)
        return cores

    # -- step 2: evidence that leans ---------------------------------------------

    def lean(self, vectors: dict[int, dict[str, float]]) -> None:
        """Each group, smallest first, joins the larger group it is closest to when
        topic, venue and years agree; scores come from the groups as step 1 left them."""
        groups = sorted(self.partition.groups().values(), key=len)
        # Leftovers lean towards the people already made: the LEAN_TARGETS largest groups.
        targets = groups[-LEAN_TARGETS:]
        summaries = {keys[0]: self.summary(keys, vectors) for keys in groups}
        for keys in groups:
            small = summaries[keys[0]]
            best: tuple[float, int] | None = None
            for other in targets:
                if len(other) < len(keys) or other is keys:
                    continue
                score = leaning(small, summaries[other[0]])
                if score >= LEAN_THRESHOLD and (best is None or score > best[0]):
                    best = (score, other[0])
            if best and self.partition.union(best[1], keys[0]):
                for key in keys:
                    self.leaned[key] = (best[0], best[1])

    def summary(self, keys: list[int], vectors: dict[int, dict[str, float]]) -> dict:
        group = [self.items[key] for key in keys]
        vector = centroid(vectors[key] for key in keys if key in vectors)
        top = dict(sorted(vector.items(), key=lambda entry: -entry[1])[:40])
        return {
            "vector": top,
            "venues": {item.venue for item in group},
            "years": (min(item.year for item in group), max(item.year for item in group)),
        }

    # -- the answer ----------------------------------------------------------------

    def describe(self, vectors: dict[int, dict[str, float]]) -> list[Group]:
        groups = []
        for keys in self.partition.groups().values():
            items = sorted((self.items[key] for key in keys), key=lambda i: (-i.year, i.key))
            # How many of the group's papers print each co-author: read once per group.
            counts = Counter(name for item in items for name in self.coauthor_keys[item.key])
            community = set().union(*(self.community_links.get(key, set()) for key in keys))
            members = {item.key: self.member(item, len(items), counts, community) for item in items}
            confidence = sum(c for c, _ in members.values()) / len(members)
            alone = len({item.paper for item in items}) == 1 and not any(
                item.confirmed or item.dblp_number for item in items
            )
            groups.append(
                Group(
                    items=items,
                    confidence=round(0.5 if alone else confidence, 2),
                    reasons=self.reasons(items, counts, vectors),
                    members=members,
                    uncertain=alone,
                )
            )
        groups.sort(key=lambda g: (g.uncertain, -g.papers, -g.confidence, g.items[0].key))
        return groups

    def member(
        self, item: Item, size: int, counts: Counter, community: set[frozenset[str]]
    ) -> tuple[float, str]:
        if item.key in self.why:
            return self.why[item.key]
        if size == 1:
            return 0.5, "no co-author, community or topic in common with another group"
        mine = set(self.coauthor_keys[item.key])
        shared = sorted((key for key in mine if counts[key] > 1), key=self.display.get)
        if shared:
            names = ", ".join(self.display[key] for key in shared[:3])
            more = f" and {len(shared) - 3} more" if len(shared) > 3 else ""
            confidence = 0.99 if len(shared) > 1 else 0.95
            noun = "co-author" if len(shared) == 1 else "co-authors"
            return confidence, f"shares {len(shared)} {noun} with the group: {names}{more}"
        for a, b in sorted(tuple(sorted(pair)) for pair in community):
            if a in mine or b in mine:
                x, y = (a, b) if a in mine else (b, a)
                return 0.8, (
                    f"its co-author {self.display[x]} has written with "
                    f"{self.display[y]}, a co-author of the group"
                )
        if item.key in self.leaned:
            score, _ = self.leaned[item.key]
            return round(0.4 + 0.4 * score, 2), (
                f"close in topic, venue and years to the group (score {score:.2f})"
            )
        return 0.6, "linked to the group through other papers' co-authors"

    def reasons(
        self, items: list[Item], counts: Counter, vectors: dict[int, dict[str, float]]
    ) -> list[str]:
        reasons = []
        shared = [(key, n) for key, n in counts.most_common(5) if n > 1]
        if shared:
            listed = ", ".join(f"{self.display[key]} ({n} papers)" for key, n in shared)
            reasons.append(f"co-authors on several of its papers: {listed}")
        confirmed = sum(item.confirmed for item in items)
        if confirmed:
            reasons.append(f"{confirmed} of its papers placed on one person by editors")
        numbers = sorted({item.dblp_number for item in items if item.dblp_number})
        if numbers:
            reasons.append("dblp number " + ", ".join(f"{n:04d}" for n in numbers))
        venues = Counter(item.venue for item in items)
        years = sorted(item.year for item in items)
        span = f"{years[0]}" if years[0] == years[-1] else f"{years[0]}–{years[-1]}"
        top = ", ".join(venue for venue, _ in venues.most_common(3))
        reasons.append(f"{top}, {span}")
        topic = centroid(vectors[item.key] for item in items if item.key in vectors)
        terms = [word for word, _ in sorted(topic.items(), key=lambda e: -e[1])[:5]]
        if terms:
            reasons.append("topic: " + ", ".join(terms))
        return reasons


def group_links(
    cores: dict[str, set[int]], pairs: set[frozenset[str]]
) -> dict[frozenset[int], set[frozenset[str]]]:
    """For each two groups, the co-author pairs (one core to each) that wrote together."""
    links: dict[frozenset[int], set[frozenset[str]]] = defaultdict(set)
    for pair in pairs:
        a, b = sorted(pair)
        for x in cores[a]:
            for y in cores[b]:
                if x != y:
                    links[frozenset((x, y))].add(pair)
    return links


def suggest(items: list[Item], constraints: Constraints | None = None) -> list[Group]:
    """Groups of the name's items that are likely one person each, most certain first;
    one-paper groups with no evidence come last, marked uncertain."""
    if not items:
        return []
    return Suggester(items, constraints or Constraints()).run()


def leaning(a: dict, b: dict) -> float:
    """How strongly topic, venue and years bring two groups together (0 to 1); 0 when
    the topics are too far apart for the rest to matter."""
    topic = cosine(a["vector"], b["vector"])
    if topic < TOPIC_THRESHOLD:
        return 0.0
    venue = 1.0 if a["venues"] & b["venues"] else 0.0
    gap = max(a["years"][0] - b["years"][1], b["years"][0] - a["years"][1], 0)
    years = 1.0 if gap <= YEAR_GAP else 0.0
    return 0.6 * topic + 0.25 * venue + 0.15 * years
