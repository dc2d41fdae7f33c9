"""Time a split and a merge of 5,000 papers (issue 4's target: each under a second).

    DATABASE_URL=sqlite:////tmp/bench.sqlite3 .venv/bin/python bench/curation.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arrow_bench .venv/bin/python bench/curation.py

Writes a 12,000-paper cluster (8,000 papers printed "Big Name", 4,000 "BIG NAME"),
imports it into the database named (migrated here; use an empty one), splits 5,000 of
the first identity's papers off, then merges the new identity into the second.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arrow_site.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from clusters import arrowfile  # noqa: E402
from clusters.models import Author, Authorship, Edit, NameCluster  # noqa: E402


def cluster_file() -> str:
    papers = [
        arrowfile.PaperBlock(
            venue="ICML",
            venue_kind="Conference",
            year=1990 + n % 35,
            paper_type="Conference Paper",
            title=f"Paper {n}",
            authors=("Big Name" if n % 3 else "BIG NAME", f"Co {n % 300}"),
            abstract=("An abstract.",),
            has_pdf=True,
        )
        for n in range(12_000)
    ]
    papers.sort(key=arrowfile.sort_key)
    return arrowfile.render(arrowfile.ClusterFile("Big Name", tuple(papers), 2))


FIGURES: dict[str, float] = {}


def timed(label: str, plan) -> Edit:
    started = time.perf_counter()
    edit = plan()
    planned = time.perf_counter()
    edit.apply()
    done = time.perf_counter()
    print(
        f"{label}: plan {planned - started:.3f} s, apply {done - planned:.3f} s, "
        f"total {done - started:.3f} s"
    )
    FIGURES[label.split()[0] + "_s"] = round(done - started, 3)
    return edit


def main() -> None:
    call_command("migrate", verbosity=0)
    if not NameCluster.objects.filter(key="big name").exists():
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "big-name.txt").write_text(cluster_file(), encoding="utf-8")
            call_command("import_arrow", folder, stdout=io.StringIO())
    user = get_user_model().objects.create_user(f"bench-{time.time_ns()}")
    cluster = NameCluster.objects.get(key="big name")
    first = Author.objects.filter(name="Big Name").first().live_identity()
    second = Author.objects.filter(name="BIG NAME").first().live_identity()
    picks = list(
        Authorship.objects.filter(author=first).order_by("pk").values_list("pk", "author_id")
    )[:5000]
    split = timed(
        f"split of {len(picks):,} papers",
        lambda: Edit.plan_split(editor=user, reason="bench", cluster=cluster, picks=picks),
    )
    timed(
        "merge of 5,000 papers",
        lambda: Edit.plan_merge(
            editor=user, reason="bench", identities=[second, split.target], into=second
        ),
    )
    if "--json" in sys.argv:
        print(json.dumps(FIGURES))


if __name__ == "__main__":
    main()
