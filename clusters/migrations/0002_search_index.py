"""The full-text index of papers: FTS5 on SQLite, tsvector + GIN on PostgreSQL.

Raw SQL, as neither is a Django model; clusters.search reads and writes them. The
PostgreSQL table has no foreign key to clusters_paper: Django's test flush truncates
the model tables, which PostgreSQL refuses while another table references them, and
papers are never deleted.
"""

from django.db import migrations

CREATE = {
    "sqlite": [
        "CREATE VIRTUAL TABLE clusters_paper_fts USING fts5(title, abstract, authors, "
        "content='', tokenize='porter unicode61 remove_diacritics 2')",
    ],
    "postgresql": [
        "CREATE TABLE clusters_paper_fts (paper_id bigint PRIMARY KEY, document tsvector NOT NULL)",
        "CREATE INDEX clusters_paper_fts_document ON clusters_paper_fts USING GIN (document)",
    ],
}


def create(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor not in CREATE:
        raise NotImplementedError(f"Arrow's full-text search has no index for {vendor}")
    for statement in CREATE[vendor]:
        schema_editor.execute(statement)


def drop(apps, schema_editor) -> None:
    schema_editor.execute("DROP TABLE IF EXISTS clusters_paper_fts")


class Migration(migrations.Migration):
    dependencies = [("clusters", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
