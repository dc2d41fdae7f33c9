"""python manage.py export_arrow OUTDIR [--cluster NAME ...]: write cluster files.

Rendered by the same module that parses them, so an import followed by an export gives
the files back (line 9 states the live number of identities).
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from clusters import arrowfile
from clusters.models import NameCluster


class Command(BaseCommand):
    help = "Write one Arrow cluster file per name cluster (all, or those named) into OUTDIR."

    def add_arguments(self, parser) -> None:
        parser.add_argument("outdir", type=Path)
        parser.add_argument(
            "--cluster",
            action="append",
            default=[],
            metavar="NAME",
            help="a cluster's name (any case) or slug; repeat for several",
        )

    def handle(self, *args, outdir: Path, cluster: list[str], **options) -> None:
        clusters = NameCluster.objects.order_by("key")
        if cluster:
            clusters = clusters.for_names(cluster)
            found = {c.key for c in clusters} | {c.slug for c in clusters}
            unknown = [n for n in cluster if arrowfile.name_key(n) not in found and n not in found]
            if unknown:
                raise CommandError(f"no cluster named {', '.join(map(repr, unknown))}")
        if outdir.exists() and not outdir.is_dir():
            raise CommandError(f"{outdir} exists and is not a directory")
        outdir.mkdir(parents=True, exist_ok=True)
        written = 0
        for row in clusters.iterator(chunk_size=500):
            text = arrowfile.render(row.to_arrowfile())
            (outdir / f"{row.slug}.txt").write_text(text, encoding="utf-8", newline="")
            written += 1
        self.stdout.write(f"{written} cluster files written to {outdir}")
