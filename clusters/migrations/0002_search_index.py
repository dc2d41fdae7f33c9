"""The full-text index of papers: FTS5 on SQLite, tsvector + GIN on PostgreSQL.

Raw SQL because neither is a Django model; clusters.search owns the statements.
"""

from django.db import migrations


def create(apps, schema_editor) -> None:
    from clusters import search

    for statement in search.backend(schema_editor.connection.vendor).create:
        schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    from clusters import search

    for statement in search.backend(schema_editor.connection.vendor).drop:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("clusters", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
