"""Time the search page in process (Django's test client: the view, its queries and
its template), over query kinds from rare words to words in nearly every paper.

    DATABASE_URL=... .venv/bin/python bench/search.py [--json]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arrow_site.settings")
# Each query is timed 5 times: the queries, not the readers' page cache, are measured.
os.environ["PAGE_CACHE_SECONDS"] = "0"

import django  # noqa: E402

django.setup()

from django.db.models.expressions import RawSQL  # noqa: E402
from django.test import Client  # noqa: E402

from clusters import search  # noqa: E402
from clusters.models import Paper  # noqa: E402

REPEAT = 5


def hits(text: str) -> int:
    terms = search.parse_query(text)
    return Paper.objects.filter(pk__in=RawSQL(*search.matching(terms)))[:100_001].count()


def queries() -> dict[str, list[str]]:
    """Words of titles spread over the table, sorted into kinds by how many papers
    they match: rare (at most 1,000 papers), and pairs of words from one title."""
    largest = Paper.objects.order_by("-pk").values_list("pk", flat=True).first()
    step = max(1, largest // 200)
    titles = list(
        Paper.objects.filter(pk__in=range(1, largest + 1, step)).values_list("title", flat=True)
    )
    rare = []
    for title in titles:
        for word in title.split():
            if len(word) > 5 and word.isalpha() and len(rare) < 20 and 0 < hits(word) <= 1000:
                rare.append(word)
                break
    return {
        "rare word": rare,
        "two words": [" ".join(title.split()[-2:]) for title in titles[:20]],
        "common word": ["learning", "graph", "neural", "model"],
        "phrase": ['"neural graph"', '"learning robot"', '"graph learning"'],
        "prefix": ["lear*", "gra*"],
    }


def main() -> None:
    # As served: no setup_test_environment(), whose template instrumentation copies the
    # context at every include (a page of 25 papers renders 30 templates).
    client = Client(HTTP_HOST="127.0.0.1")
    timings: dict[str, list[float]] = {}
    found: dict[str, list[int]] = {}
    for kind, texts in queries().items():
        for text in texts:
            found.setdefault(kind, []).append(hits(text))
            for _ in range(REPEAT):
                started = time.perf_counter()
                response = client.get("/search/", {"q": text})
                timings.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, (text, response.status_code)
    every = [ms for values in timings.values() for ms in values]
    figures = {"p50_ms": round(statistics.median(every), 1), "p99_ms": round(p99(every), 1)}
    for kind, values in timings.items():
        figures[f"{kind.replace(' ', '_')}_p50_ms"] = round(statistics.median(values), 1)
        figures[f"{kind.replace(' ', '_')}_median_hits"] = int(statistics.median(found[kind]))
    if "--json" in sys.argv:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


if __name__ == "__main__":
    main()
