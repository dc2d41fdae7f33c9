"""python manage.py score_ambiguity: compute split suggestions for every name with at
least --min-papers papers and store the ambiguity dashboard's ranking.

A name is scored again whenever an editor opens its suggestions; run this after an
import to rank names nobody has opened yet. Names are scored in id order, each on its
own, so an interrupted run keeps what it scored.
"""

from __future__ import annotations

import sys
import time

from django.core.management.base import BaseCommand
from tqdm import tqdm

from clusters.models import NameCluster
from clusters.models.suggesting import cluster_suggestions


class Command(BaseCommand):
    help = "Score how likely each name holds several people, for the ambiguity dashboard."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--min-papers", type=int, default=2, help="skip names with fewer papers (2)"
        )

    def handle(self, *args, min_papers: int, **options) -> None:
        started = time.monotonic()
        names = NameCluster.objects.filter(paper_count__gte=max(min_papers, 1)).order_by("pk")
        stream = options.get("stdout") or sys.stdout
        scored = several = 0
        for cluster in tqdm(
            names.iterator(chunk_size=2000),
            total=names.count() if stream.isatty() else None,
            unit="name",
            disable=not stream.isatty(),
            file=stream,
        ):
            found = cluster_suggestions(cluster, offline=True)
            scored += 1
            several += found.people > 1
        self.stdout.write(
            f"{scored} names scored, {several} with more than one suggested person, "
            f"{time.monotonic() - started:.1f} s"
        )
