"""Pick the paths the load test requests, per kind of page, from the database named by
DATABASE_URL; writes them as JSON to the file named. Deterministic for one database.

Each kind mixes ordinary pages with the heaviest ones (the largest clusters, the
most prolific identities, the papers with the longest bylines), so p99 covers them.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arrow_site.settings")

import django  # noqa: E402

django.setup()

from django.db.models import Count, Max  # noqa: E402

from clusters.models import Author, Authorship, NameCluster, Paper, Venue  # noqa: E402

SAMPLE = 300
HEAVY = 10


def sample(model, rng: random.Random) -> list[int]:
    """Ids spread over the table, without reading it: random ids that exist."""
    largest = model.objects.aggregate(largest=Max("pk"))["largest"]
    wanted = {rng.randint(1, largest) for _ in range(SAMPLE * 2)}
    return sorted(model.objects.filter(pk__in=wanted).values_list("pk", flat=True))[:SAMPLE]


def main() -> None:
    rng = random.Random(3)
    clusters = sample(NameCluster, rng)
    biggest = list(NameCluster.objects.order_by("-paper_count", "key")[:HEAVY])
    slugs = list(NameCluster.objects.filter(pk__in=clusters).values_list("slug", flat=True))
    slugs += [cluster.slug for cluster in biggest]
    prolific = (
        Authorship.objects.filter(cluster__in=biggest, author__isnull=False)
        .values("author")
        .annotate(papers=Count("pk"))
        .order_by("-papers")[:HEAVY]
    )
    authors = sample(Author, rng) + [row["author"] for row in prolific]
    crowded = Authorship.objects.filter(position__gt=100).values_list("paper", flat=True).distinct()
    papers = sample(Paper, rng) + list(crowded[:HEAVY])
    venues = list(Venue.objects.values_list("slug", flat=True))
    years = sorted(set(Paper.objects.filter(pk__in=papers).values_list("year", flat=True)))
    venue_years = sorted(
        set(Paper.objects.filter(pk__in=papers).values_list("venue__slug", "year"))
    )[:60]
    names = [slug.replace("-", " ") for slug in slugs[:40]]
    lists = [
        "/clusters/",
        "/clusters/?sort=identities",
        "/clusters/?sort=recent",
        "/clusters/?sort=name",
        "/clusters/?ambiguous=on",
        "/clusters/?min_papers=20",
        *(f"/clusters/?starts={name[:3]}" for name in names[:10]),
        *(f"/clusters/?name={name.split()[-1]}" for name in names[:10]),
        *(f"/clusters/?venue={venue}&year_from={years[0]}" for venue in venues[:5]),
    ]
    words = Paper.objects.filter(pk__in=papers[:60]).values_list("title", flat=True)
    rare = [title.split()[-1] for title in words]
    searches = [
        *(f"/search/?q={word}" for word in rare[:30]),
        *(f"/search/?q={a}+{b}" for a, b in zip(rare[30:45], rare[45:60], strict=False)),
        "/search/?q=learning",
        "/search/?q=graph+neural",
        '/search/?q="neural+graph"',
        "/search/?q=lear*",
        *(f"/search/?q={name.replace(' ', '+')}" for name in names[:10]),
    ]
    targets = {
        "cluster": [f"/clusters/{slug}/" for slug in slugs],
        "identity": [f"/authors/{pk}/" for pk in authors],
        "paper": [f"/papers/{pk}/" for pk in papers],
        "list": lists,
        "venue": [f"/venues/{slug}/" for slug in venues]
        + [f"/venues/{slug}/{year}/" for slug, year in venue_years],
        "search": searches,
    }
    # wrk sends the path as given: percent-encode what is not ASCII ("/clusters/王伟/").
    targets = {
        kind: [quote(path, safe='/?=&+*"%') for path in paths] for kind, paths in targets.items()
    }
    Path(sys.argv[1]).write_text(json.dumps(targets, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
