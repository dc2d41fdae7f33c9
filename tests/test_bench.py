"""The benchmark's generator writes dumps the importer takes whole, the same for a seed."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pytest

from clusters.models import NameCluster, Paper

from .conftest import run_import

ROOT = Path(__file__).resolve().parent.parent


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def digest(folder: Path) -> str:
    files = sorted(folder.rglob("*.txt"))
    return hashlib.sha1(b"".join(path.read_bytes() for path in files)).hexdigest()


def test_the_generator_is_deterministic(tmp_path):
    generate = load("generate")
    generate.generate(300, tmp_path / "a", seed=5)
    generate.generate(300, tmp_path / "b", seed=5)
    generate.generate(300, tmp_path / "c", seed=6)
    assert digest(tmp_path / "a") == digest(tmp_path / "b") != digest(tmp_path / "c")


@pytest.mark.django_db
def test_a_generated_dump_imports_whole_and_complete(tmp_path):
    figures = load("generate").generate(1500, tmp_path / "dump", seed=2)
    status, out, err = run_import(tmp_path / "dump")
    assert status == 0 and err == ""
    assert f"{figures['files']} files: 1500 papers new" in out and ", 0 warnings," in out
    assert Paper.objects.count() == 1500
    # Complete: every printed name has its file, so every cluster states its own counts.
    assert not NameCluster.objects.filter(source_papers=None).exists()
    assert NameCluster.objects.filter(source_author_rows__gt=1).exists()  # homonyms
