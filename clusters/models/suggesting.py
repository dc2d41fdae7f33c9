"""Split suggestions for one name, from the database: clusters.suggestions does the
thinking; this gathers its evidence in four queries and caches the answer.

The cache key holds what the answer depends on (the cluster's paper and identity
counts and Edit.objects.version()), so an import, any edit or an approval makes the
next view compute afresh; nothing has to remember to invalidate it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from .. import arrowfile, suggestions
from ..suggestions import Constraints, Group, Item
from .bibliography import Authorship, NameCluster
from .curation import DistinctPair, Edit

CACHE_SECONDS = 24 * 3600
# Co-authors with more papers than this are left out of the community evidence: a name
# that common is many people, and reading its papers would cost more than it tells.
COMMUNITY_HUB = 500
# Larger names take seconds to tens of seconds (43,547 papers: 40 s in the benchmark).
ONLINE_PAPERS = 5000


@dataclass
class Suggestions:
    groups: list[Group]
    people: int  # groups with evidence (at least 1), uncertain papers excluded
    uncertain: int  # papers left on their own
    ambiguity: float


def cluster_suggestions(cluster: NameCluster, offline: bool = False) -> Suggestions | None:
    """The name's suggestions, from the cache or computed now. A name of more than
    ONLINE_PAPERS papers is computed only offline (score_ambiguity): a web worker
    would time out on it. None: not computed yet."""
    edits = Edit.objects.version()
    key = f"suggestions:{cluster.pk}:{cluster.paper_count}:{cluster.identity_count}:{edits}"
    found = cache.get(key)
    if found is None and (offline or cluster.paper_count <= ONLINE_PAPERS):
        found = compute(cluster)
        cache.set(key, found, CACHE_SECONDS)
        NameCluster.objects.filter(pk=cluster.pk).update(
            suggested_people=found.people,
            uncertain_papers=found.uncertain,
            ambiguity=found.ambiguity,
            ambiguity_scored_at=timezone.now(),
        )
    return found


def compute(cluster: NameCluster) -> Suggestions:
    items, coauthor_clusters = cluster_items(cluster)
    identities = {item.identity for item in items if item.identity}
    distinct = {
        frozenset((pair.first_id, pair.second_id))
        for pair in DistinctPair.objects.filter(first__in=identities, second__in=identities)
    }

    def community_of(keys: set[str]) -> set[frozenset[str]]:
        return community(
            cluster, [coauthor_clusters[key] for key in keys if key in coauthor_clusters]
        )

    constraints = Constraints(distinct=distinct, community_of=community_of)
    groups = suggestions.suggest(items, constraints)
    uncertain = sum(group.uncertain for group in groups)
    # Papers that nothing links are not counted as people of their own: with no
    # evidence either way, the name is taken as one person until shown otherwise.
    people = max(sum(not group.uncertain for group in groups), 1)
    return Suggestions(groups, people, uncertain, ambiguity(cluster, people, uncertain))


def ambiguity(cluster: NameCluster, people: int, uncertain: int) -> float:
    """How likely the name holds several people, as points an editor can read off the
    dashboard: one per extra suggested person, half for each other hint."""
    points = max(people - 1, 0) + 0.25 * uncertain
    points += 0.5 * ((cluster.source_author_rows or 1) > 1)
    points += 0.5 * (cluster.spelling_count > 1)
    points += 0.5 * (cluster.last_year - cluster.first_year > 25)
    return round(points, 2)


def cluster_items(cluster: NameCluster) -> tuple[list[Item], dict[str, int]]:
    """The name's authorships with their papers and co-authors, and the cluster id of
    each co-author name that is not a hub (2 queries)."""
    rows = list(
        Authorship.objects.filter(cluster=cluster)
        .order_by("pk")
        .values_list(
            "pk", "paper_id", "name_as_printed", "paper__year", "paper__venue__name",
            "paper__title", "paper__abstract", "author_id", "placed_by_id",
        )
    )  # fmt: skip
    coauthors: dict[int, list[str]] = {}
    clusters: dict[str, int] = {}
    for paper_id, name, cluster_id, key, papers in (
        Authorship.objects.filter(paper__authorships__cluster=cluster)
        .exclude(cluster=cluster)
        .order_by("paper_id", "position")
        .values_list(
            "paper_id", "name_as_printed", "cluster_id", "cluster__key", "cluster__paper_count"
        )
    ):
        coauthors.setdefault(paper_id, []).append(name)
        if papers <= COMMUNITY_HUB:
            clusters[key] = cluster_id
    items = [
        Item(
            key=pk,
            paper=paper,
            printed=printed,
            year=year,
            venue=venue,
            text=f"{title} {abstract}",
            title=title,
            coauthors=tuple(coauthors.get(paper, ())),
            identity=author,
            confirmed=placed_by is not None and author is not None,
            dblp_number=arrowfile.split_dblp_number(printed)[1],
        )
        for pk, paper, printed, year, venue, title, abstract, author, placed_by in rows
    ]
    return items, clusters


def community(cluster: NameCluster, coauthors: list[int]) -> set[frozenset[str]]:
    """Pairs of these co-authors of the name (as name keys) who wrote together on a
    paper without this name (1 query)."""
    if len(coauthors) < 2:
        return set()
    authorship = Authorship._meta.db_table
    names = NameCluster._meta.db_table
    among = ", ".join(["%s"] * len(coauthors))
    sql = (
        f"SELECT DISTINCT k1.key, k2.key FROM {authorship} a1 "
        f"JOIN {authorship} a2 ON a2.paper_id = a1.paper_id AND a2.cluster_id > a1.cluster_id "
        f"JOIN {names} k1 ON k1.id = a1.cluster_id JOIN {names} k2 ON k2.id = a2.cluster_id "
        f"WHERE a1.cluster_id IN ({among}) AND a2.cluster_id IN ({among}) "
        f"AND a1.paper_id NOT IN (SELECT paper_id FROM {authorship} WHERE cluster_id = %s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*coauthors, *coauthors, cluster.pk])
        return {frozenset(pair) for pair in cursor.fetchall()}
