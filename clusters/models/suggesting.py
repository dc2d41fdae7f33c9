"""Split suggestions for one name, from the database: clusters.suggestions does the
thinking; this gathers its evidence in five queries and caches the answer.

The cache key holds what the answer depends on (the cluster's paper and identity
counts and the newest edit), so an import or any edit makes the next page view
compute afresh; nothing has to remember to invalidate it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection
from django.db.models import Max
from django.utils import timezone

from .. import arrowfile, suggestions
from ..suggestions import Constraints, Group, Item
from .bibliography import Authorship, NameCluster
from .curation import DistinctPair, Edit

CACHE_SECONDS = 24 * 3600
# Co-authors with more papers than this are left out of the community evidence: a name
# that common is many people, and reading its papers would cost more than it tells.
COMMUNITY_HUB = 500


@dataclass
class Suggestions:
    groups: list[Group]
    people: int  # groups with evidence, uncertain ones excluded
    uncertain: int  # papers left on their own
    ambiguity: float


def cluster_suggestions(cluster: NameCluster) -> Suggestions:
    newest_edit = Edit.objects.aggregate(newest=Max("pk"))["newest"] or 0
    key = f"suggestions:{cluster.pk}:{cluster.paper_count}:{cluster.identity_count}:{newest_edit}"
    found = cache.get(key)
    if found is None:
        found = compute(cluster)
        cache.set(key, found, CACHE_SECONDS)
        NameCluster.objects.filter(pk=cluster.pk).update(
            suggested_people=found.people,
            ambiguity=found.ambiguity,
            ambiguity_scored_at=timezone.now(),
        )
    return found


def compute(cluster: NameCluster) -> Suggestions:
    items = cluster_items(cluster)
    identities = {item.identity for item in items if item.identity}
    distinct = {
        frozenset((pair.first_id, pair.second_id))
        for pair in DistinctPair.objects.filter(first__in=identities, second__in=identities)
    }
    constraints = Constraints(distinct=distinct, community=community(cluster))
    groups = suggestions.suggest(items, constraints)
    people = sum(not group.uncertain for group in groups)
    uncertain = sum(group.uncertain for group in groups)
    return Suggestions(groups, people, uncertain, ambiguity(cluster, people, uncertain))


def ambiguity(cluster: NameCluster, people: int, uncertain: int) -> float:
    """How likely the name holds several people, as points an editor can read off the
    dashboard: one per extra suggested person, half for each other hint."""
    points = max(people - 1, 0) + 0.25 * uncertain
    points += 0.5 * ((cluster.source_author_rows or 1) > 1)
    points += 0.5 * (cluster.spelling_count > 1)
    points += 0.5 * (cluster.last_year - cluster.first_year > 25)
    return round(points, 2)


def cluster_items(cluster: NameCluster) -> list[Item]:
    """The name's authorships with their papers and co-authors (2 queries)."""
    rows = list(
        Authorship.objects.filter(cluster=cluster)
        .order_by("pk")
        .values_list(
            "pk", "paper_id", "name_as_printed", "paper__year", "paper__venue__name",
            "paper__title", "paper__abstract", "author_id", "placed_by_id",
        )
    )  # fmt: skip
    coauthors: dict[int, list[str]] = {}
    for paper_id, name in (
        Authorship.objects.filter(paper__authorships__cluster=cluster)
        .exclude(cluster=cluster)
        .order_by("paper_id", "position")
        .values_list("paper_id", "name_as_printed")
    ):
        coauthors.setdefault(paper_id, []).append(name)
    return [
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


def community(cluster: NameCluster) -> set[frozenset[str]]:
    """Pairs of the name's co-authors (as name keys) who wrote together on a paper
    without this name (1 query)."""
    authorship = Authorship._meta.db_table
    names = NameCluster._meta.db_table
    own = f"SELECT paper_id FROM {authorship} WHERE cluster_id = %s"
    coauthors = (
        f"SELECT c.id FROM {names} c WHERE c.paper_count <= %s AND c.id <> %s "
        f"AND c.id IN (SELECT cluster_id FROM {authorship} WHERE paper_id IN ({own}))"
    )
    sql = (
        f"SELECT DISTINCT k1.key, k2.key FROM {authorship} a1 "
        f"JOIN {authorship} a2 ON a2.paper_id = a1.paper_id AND a2.cluster_id > a1.cluster_id "
        f"JOIN {names} k1 ON k1.id = a1.cluster_id JOIN {names} k2 ON k2.id = a2.cluster_id "
        f"WHERE a1.cluster_id IN ({coauthors}) AND a2.cluster_id IN ({coauthors}) "
        f"AND a1.paper_id NOT IN ({own})"
    )
    params = [COMMUNITY_HUB, cluster.pk, cluster.pk] * 2 + [cluster.pk]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {frozenset(pair) for pair in cursor.fetchall()}
