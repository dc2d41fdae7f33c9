"""BENCHMARKS.md from one run's figures (bench/run.py writes them as JSON too)."""

from __future__ import annotations

from pathlib import Path

TARGETS = {"cluster": 100, "identity": 100, "paper": 100}


def write(figures: dict, papers: int, out: Path) -> None:
    f = figures
    machine = f["machine"]
    lines = [
        "# Benchmarks",
        "",
        f"One run of `make bench SIZE={papers}` (`bench/run.py`): every figure below comes",
        "from the same run on the same machine, and each ratio compares two of them.",
        "",
        "## Machine",
        "",
        *(f"- {key}: {value}" for key, value in machine.items()),
        "",
        "## The dump",
        "",
        f"- {f.get('generate', 'generated earlier by bench/generate.py, same seed')}",
        "",
        "## Import",
        "",
        "The floor (`bench/floor.py`) is the least work that stores the same rows: split",
        "the text with str.split, no checks, ids from in-memory dictionaries, sqlite3",
        "`executemany` into the same tables, with the same unique constraints and indexes,",
        "including the full-text index; no cluster statistics.",
        "",
        "| | wall time | peak RSS |",
        "|---|---|---|",
        f"| floor, SQLite | {f['floor_s']} s | {f['floor_rss_mb']} MB |",
        f"| import_arrow, SQLite | {f['import_sqlite_s']} s | {f['import_sqlite_rss_mb']} MB |",
        f"| import_arrow, PostgreSQL (COPY) | {f['import_postgresql_s']} s "
        f"| {f['import_postgresql_rss_mb']} MB |",
        "",
        f"**import / floor on SQLite: {f['import_ratio']}×** (target: within 3×).",
        "",
        f"SQLite: `{f['import_sqlite_summary']}`",
        "",
        "## Pages under load",
        "",
        "gunicorn, 4 workers, DEBUG off, whitenoise; wrk over loopback with 2 threads and",
        "8 connections on the same 2 cores, after a 3-second warm-up, requesting paths",
        "picked by `bench/targets.py` (ordinary pages plus the heaviest: the largest",
        "clusters, the most prolific identities, the longest bylines). Each kind is",
        "loaded twice, from an empty cache each time: with the readers' page cache off,",
        "so that every request makes its page, then as Arrow is served, with it on",
        "(`clusters/pagecache.py`: a page seen before costs one query).",
        "",
        "| database | page cache | page | p50 | p99 | requests/s | requests | errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for vendor in ("sqlite", "postgresql"):
        for suffix, cache in (("_uncached", "off"), ("", "on")):
            lines += [
                page_row(vendor, cache, page, f.get(f"pages_{vendor}_{page}{suffix}"))
                for page in ("cluster", "identity", "paper", "list", "venue", "search")
                if f.get(f"pages_{vendor}_{page}{suffix}")
            ]
    lines += [
        "",
        "✓/✗: p99 against the 100 ms target for cluster, identity and paper pages.",
        "",
        "## Search",
        "",
        "The search page in process (`bench/search.py`: view, queries and template),",
        "5 times each over rare words, two-word queries, words in nearly every paper,",
        "phrases and prefixes.",
        "",
        "| database | p50 | p99 | rare word | two words | common word | phrase | prefix |",
        "|---|---|---|---|---|---|---|---|",
    ]
    kinds = ("rare_word", "two_words", "common_word", "phrase", "prefix")
    for vendor in ("sqlite", "postgresql"):
        prefix = f"search_{vendor}_"
        if f"{prefix}p50_ms" not in f:
            continue
        cells = " | ".join(
            f"{f[prefix + kind + '_p50_ms']} ms ({f[prefix + kind + '_median_hits']:,} hits)"
            for kind in kinds
        )
        lines.append(
            f"| {vendor} | {f[prefix + 'p50_ms']} ms | {f[prefix + 'p99_ms']} ms | {cells} |"
        )
    lines += [
        "",
        "Target: p50 under 50 ms on both databases.",
        "",
        "## Curation",
        "",
        "`bench/curation.py`: a 12,000-paper cluster is added to the million-paper database,",
        "5,000 papers of one identity are split off, then merged into another identity",
        "(plan and apply, through `Edit`, as the pages do).",
        "",
        "| database | split of 5,000 | merge of 5,000 |",
        "|---|---|---|",
    ]
    for vendor in ("sqlite", "postgresql"):
        split, merge = f.get(f"curation_{vendor}_split_s"), f.get(f"curation_{vendor}_merge_s")
        if split is not None:
            lines.append(f"| {vendor} | {split} s | {merge} s |")
    lines += ["", "Target: each under one second.", ""]
    lines += extra_sections(f)
    lines += evaluation_section(f)
    lines += [
        "## Rerun",
        "",
        "```",
        f"make bench SIZE={papers}     # SIZE=20000 (the default) takes a few minutes",
        "```",
        "",
        "It installs wrk if missing, generates the dump into $ARROW_BENCH_DIR",
        "(/tmp/arrow-bench) once per size, and rewrites this file.",
        "",
    ]
    out.write_text("\n".join(lines))


def page_row(vendor: str, cache: str, page: str, row: dict) -> str:
    if "failed" in row:
        return f"| {vendor} | {cache} | {page} | failed: {row['failed']} | | | | |"
    errors = row["errors"] + (0 if row["socket_errors"] == "none" else 1)
    target = TARGETS.get(page)
    mark = "" if target is None else (" ✓" if row["p99_ms"] < target else " ✗")
    return (
        f"| {vendor} | {cache} | {page} | {row['p50_ms']} ms | {row['p99_ms']} ms{mark} "
        f"| {row['requests_per_s']} | {row['requests']} | {errors} |"
    )


def extra_sections(f: dict) -> list[str]:
    """Split suggestions: cache cold, as an editor first opening the page."""
    lines = [
        "## Split suggestions",
        "",
        "`bench/suggest.py`: suggestions for the name nearest 2,000 papers and for the",
        "largest name, cache cold (evidence queries and the model; no page rendering).",
        "",
        "| database | name | papers | seconds | people | uncertain papers |",
        "|---|---|---|---|---|---|",
    ]
    found = False
    for vendor in ("sqlite", "postgresql"):
        for label in ("near_2000", "largest"):
            row = f.get(f"suggest_{vendor}_{label}")
            if row:
                found = True
                lines.append(
                    f"| {vendor} | {row['name']} | {row['papers']:,} | {row['seconds']} s "
                    f"| {row['people']} | {row['uncertain']} |"
                )
    lines += [
        "",
        "Target: under one second for a 2,000-paper name. Names over 5,000 papers are",
        "computed offline only (`manage.py score_ambiguity`).",
        "",
    ]
    return lines if found else []


def evaluation_section(f: dict) -> list[str]:
    if "evaluation" not in f:
        return []
    return [
        "## How right the split suggestions are",
        "",
        "`manage.py evaluate_suggestions ../shared/corpus`: the 21,007 names of the real",
        "corpus, each suggested as the cluster page would, scored against the true identity",
        "of every authorship (B³ averaged over authorships; unknown identities left out),",
        "next to two baselines on the same authorships.",
        "",
        *f["evaluation"].splitlines(),
        "",
        "With the corpus's `suspected_same_person` pairs (two profiles of one person, by its",
        "README) counted as one person (`--merge-suspected`):",
        "",
        *f["evaluation_merged"].splitlines(),
        "",
    ]


def main() -> None:
    """Rewrite the report from a run's figures: report.py FIGURES.json PAPERS OUT."""
    import json
    import sys

    figures, papers, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    write(json.loads(Path(figures).read_text()), papers, out)


if __name__ == "__main__":
    main()
