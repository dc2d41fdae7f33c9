"""Time split suggestions, cache cold, for the largest names of the database named by
DATABASE_URL (issue 7's target: under a second for a 2,000-paper name).

    DATABASE_URL=... .venv/bin/python bench/suggest.py [--json]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arrow_site.settings")

import django  # noqa: E402

django.setup()

from clusters.models import NameCluster  # noqa: E402
from clusters.models.suggesting import compute  # noqa: E402


def main() -> None:
    figures = {}
    # The largest name, and the one closest to 2,000 papers.
    largest = NameCluster.objects.order_by("-paper_count", "key").first()
    near = NameCluster.objects.filter(paper_count__lte=2000).order_by("-paper_count", "key").first()
    for label, cluster in (("largest", largest), ("near_2000", near)):
        started = time.perf_counter()
        found = compute(cluster)
        seconds = time.perf_counter() - started
        figures[label] = {
            "name": cluster.name,
            "papers": cluster.paper_count,
            "seconds": round(seconds, 3),
            "people": found.people,
            "uncertain": found.uncertain,
        }
    if "--json" in sys.argv:
        print(json.dumps(figures))
    else:
        for label, row in figures.items():
            print(f"{label}: {row}")


if __name__ == "__main__":
    main()
