"""A trigram index on NameCluster.key, on PostgreSQL: the name list's "contains" and
"starts with" filters are LIKE '%…%' and LIKE '…%', which no B-tree of a UTF-8
collation serves, so each scanned every name (33 ms a query at 428,000 names, twice
a page: the page and its count). With it, a filter of three letters or more reads
the matching names alone (about 1 ms). SQLite has no such index and keeps scanning.

pg_trgm ships with PostgreSQL and is a trusted extension: a database's owner may
create it without being a superuser.
"""

from django.db import migrations

INDEX = "namecluster_key_trgm_idx"


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    table = apps.get_model("clusters", "NameCluster")._meta.db_table
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    schema_editor.execute(f"CREATE INDEX {INDEX} ON {table} USING gin (key gin_trgm_ops)")


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("clusters", "0008_editmove_indexes"),
    ]

    operations = [migrations.RunPython(create, drop)]
