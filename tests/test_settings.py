"""Settings come from the environment; bad values stop the start-up, loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_django(code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DEBUG"}}
    return subprocess.run(
        [sys.executable, "-c", "import django\ndjango.setup()\n" + code],
        cwd=ROOT,
        env={**environ, "DJANGO_SETTINGS_MODULE": "arrow_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "env, message",
    [
        ({"DEBUG": "maybe"}, "DEBUG must be true or false, not 'maybe'"),
        ({"DEBUG": "false", "SECRET_KEY": ""}, "SECRET_KEY must be set when DEBUG is off"),
        ({"DATABASE_URL": "nonsense://"}, "DATABASE_URL is not a database URL"),
    ],
)
def test_bad_settings_fail_at_start_up_with_a_clear_message(env, message):
    result = run_django("print('started')", **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and message in result.stderr
    assert "started" not in result.stdout


def test_sqlite_runs_in_wal_mode_with_immediate_transactions(tmp_path):
    code = (
        "from django.db import connection, transaction\n"
        "with transaction.atomic():\n"
        "    cursor = connection.cursor()\n"
        "    print(cursor.execute('PRAGMA journal_mode').fetchone()[0])\n"
        "    print(connection.connection.in_transaction)\n"
    )
    result = run_django(code, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert result.returncode == 0, result.stderr
    # in_transaction is true before any write only when BEGIN IMMEDIATE opened it.
    assert result.stdout.split() == ["wal", "True"]


def test_the_configured_cache_is_shared_by_every_process(tmp_path):
    """What one process caches or turns (the importer turning the pages' generation),
    another reads: web workers and commands are separate processes."""
    env = {"CACHE_DIR": str(tmp_path / "cache")}
    turned = run_django(
        "from clusters.pagecache import pages_changed, generation\n"
        "pages_changed()\n"
        "print(generation())",
        **env,
    )
    assert turned.returncode == 0, turned.stderr
    read = run_django("from clusters.pagecache import generation\nprint(generation())", **env)
    assert read.returncode == 0, read.stderr
    assert read.stdout == turned.stdout and len(turned.stdout.strip()) == 32
