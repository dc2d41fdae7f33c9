"""The benchmark: generate a dump, import it next to the floor, serve it under load,
search it, curate it, and write BENCHMARKS.md.

    make bench SIZE=1000000          # or: .venv/bin/python bench/run.py --papers N

Everything is measured in this one run on this one machine, so the ratios compare like
with like. Work files go to $ARROW_BENCH_DIR (default /tmp/arrow-bench); a dump of the
same size is generated once and reused. PostgreSQL is the server at $ARROW_BENCH_PG
(default postgres://postgres@127.0.0.1:5432); the database `arrow_bench` there is
dropped and made again. wrk must be on the PATH (`make bench` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CACHES = Path(os.environ.get("ARROW_BENCH_DIR", "/tmp/arrow-bench")) / "cache"
PAGES = ("cluster", "identity", "paper", "list", "venue", "search")


@dataclass
class Step:
    seconds: float
    peak_rss_mb: float
    output: str


@dataclass
class Report:
    papers: int
    figures: dict = field(default_factory=dict)
    keep: Path | None = None

    def add(self, key: str, value) -> None:
        self.figures[key] = value
        print(f"  {key}: {value}", flush=True)
        if self.keep:  # a run that stops half-way keeps what it measured
            self.keep.write_text(json.dumps(self.figures, indent=1))


def run(args: list[str], env: dict[str, str] | None = None) -> Step:
    """Run a command to its end; its wall time and its own peak resident memory."""
    started = time.monotonic()
    process = subprocess.Popen(
        args, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, text=True
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{output}")
    return Step(seconds, usage.ru_maxrss / 1024, output)


# As in production: DEBUG off (with it on, Django keeps every statement it ran).
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "bench-only-" + "x" * 50,
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECURE_SSL_REDIRECT": "false",  # plain HTTP over loopback
}


def serving(database: str) -> dict[str, str]:
    """The environment of everything that reads `database`. Each database has a cache of
    its own, emptied when the run begins: a page cached from one must never be served
    from the other, nor from a database of an earlier run."""
    vendor = database.split(":", 1)[0]
    return {"DATABASE_URL": database, "CACHE_DIR": str(CACHES / vendor), **PRODUCTION}


def manage(database: str, *args: str) -> Step:
    return run([PYTHON, "manage.py", *args], serving(database))


def fresh_postgres(url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(f"{url}/postgres", autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {name}")
    return f"{url}/{name}"


def fresh_sqlite(path: Path) -> str:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


def machine() -> dict[str, str]:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if "model name" in line),
        platform.processor(),
    )
    memory = next(int(line.split()[1]) for line in open("/proc/meminfo") if "MemTotal" in line)
    postgres = subprocess.run(
        ["psql", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "cpu": f"{os.cpu_count()} × {cpu}",
        "memory": f"{memory / 1024**2:.0f} GiB",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "postgresql": postgres or "unknown",
        "system": platform.platform(),
    }


def import_figures(report: Report, work: Path, dump: Path, pg_url: str) -> dict[str, str]:
    floor_db = fresh_sqlite(work / "floor.sqlite3")
    manage(floor_db, "migrate", "--verbosity", "0")
    floor = run([PYTHON, "bench/floor.py", str(dump), str(work / "floor.sqlite3")])
    report.add("floor_s", round(floor.seconds, 1))
    report.add("floor_rss_mb", round(floor.peak_rss_mb))
    databases = {
        "sqlite": fresh_sqlite(work / f"arrow-{report.papers}.sqlite3"),
        "postgresql": fresh_postgres(pg_url, "arrow_bench"),
    }
    for vendor, url in databases.items():
        manage(url, "migrate", "--verbosity", "0")
        step = manage(url, "import_arrow", str(dump))
        report.add(f"import_{vendor}_s", round(step.seconds, 1))
        report.add(f"import_{vendor}_rss_mb", round(step.peak_rss_mb))
        report.add(f"import_{vendor}_summary", step.output.strip())
    report.add("import_ratio", round(report.figures["import_sqlite_s"] / floor.seconds, 2))
    return databases


def targets(database: str, work: Path) -> dict[str, list[str]]:
    """Paths to load, per kind of page, picked from the database (bench/targets.py)."""
    out = work / "targets.json"
    run([PYTHON, "bench/targets.py", str(out)], serving(database))
    return json.loads(out.read_text())


WRK_SCRIPT = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
math.randomseed(7)
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
"""


# Pages are loaded twice: with the readers' page cache off, so that every request makes
# its page (the cost of a first view), then as served, with it on.
PAGE_CACHE = {"_uncached": "0", "": "600"}


def load_pages(report: Report, vendor: str, database: str, work: Path, seconds: int) -> None:
    """A production server (gunicorn, whitenoise) loaded by wrk over loopback."""
    paths = targets(database, work)
    for suffix, page_cache in PAGE_CACHE.items():
        shutil.rmtree(CACHES / vendor, ignore_errors=True)  # each load starts cold
        env = {**os.environ, **serving(database), "PAGE_CACHE_SECONDS": page_cache}
        server = subprocess.Popen(
            [PYTHON, "-m", "gunicorn", "arrow_site.wsgi", "--workers", "4", "--bind",
             "127.0.0.1:8765", "--log-level", "warning"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            wait_for("http://127.0.0.1:8765/")
            for page in PAGES:
                result = load(work, page, paths[page], seconds)
                report.add(f"pages_{vendor}_{page}{suffix}", parse_wrk(result))
        finally:
            server.terminate()
            server.wait()


def load(work: Path, page: str, paths: list[str], seconds: int) -> str:
    listing = work / f"paths-{page}.txt"
    listing.write_text("\n".join(paths) + "\n")
    script = work / f"paths-{page}.lua"
    script.write_text(WRK_SCRIPT % listing)
    # Warm each worker's connection and caches before measuring.
    subprocess.run(
        ["wrk", "-t2", "-c4", "-d3s", "-s", str(script), "http://127.0.0.1:8765"],
        capture_output=True, check=True,
    )  # fmt: skip
    return subprocess.run(
        ["wrk", "-t2", "-c8", f"-d{seconds}s", "--latency", "-s", str(script),
         "http://127.0.0.1:8765"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def wait_for(url: str) -> None:
    import urllib.request

    for _ in range(100):
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"the server at {url} did not answer")


def milliseconds(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000}[unit]


def parse_wrk(output: str) -> dict:
    # wrk pads units to two characters: "1.32s " has a trailing space.
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", output, re.MULTILINE))
    if "50" not in latency or "99" not in latency:
        return {"failed": " ".join(output.split())[:300]}
    requests = re.search(r"^\s*(\d+) requests in", output, re.MULTILINE)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    sockets = re.search(r"Socket errors: (.*)$", output, re.MULTILINE)
    return {
        "p50_ms": round(milliseconds(latency["50"]), 1),
        "p99_ms": round(milliseconds(latency["99"]), 1),
        "requests_per_s": round(float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])),
        "requests": int(requests[1]),
        "errors": int(errors[1]) if errors else 0,
        "socket_errors": sockets[1].strip() if sockets else "none",
    }


def in_process(report: Report, vendor: str, database: str) -> None:
    """Search latency, curation and suggestions, timed inside one process each."""
    scripts = (
        ("bench/search.py", "search"),
        ("bench/suggest.py", "suggest"),
        ("bench/curation.py", "curation"),
    )
    for script, prefix in scripts:
        step = run([PYTHON, script, "--json"], serving(database))
        figures = json.loads(step.output.strip().splitlines()[-1])
        for key, value in figures.items():
            report.add(f"{prefix}_{vendor}_{key}", value)


def evaluate(report: Report, corpus: Path) -> None:
    """Split suggestions against the corpus's true identities, as given and with its
    suspected two-profile people merged."""
    for key, extra in (("evaluation", []), ("evaluation_merged", ["--merge-suspected"])):
        step = run([PYTHON, "manage.py", "evaluate_suggestions", str(corpus), *extra])
        report.figures[key] = step.output.strip()
        print(f"  {key}: done in {step.seconds:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--seconds", type=int, default=15, help="wrk time per page kind")
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=ROOT.parent / "shared" / "corpus",
        help="a corpus with true identities, to score the split suggestions on",
    )
    options = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed: `apt-get install wrk` (make bench does)")
    work = Path(os.environ.get("ARROW_BENCH_DIR", "/tmp/arrow-bench"))
    work.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(CACHES, ignore_errors=True)
    pg_url = os.environ.get("ARROW_BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    report = Report(options.papers, keep=work / f"figures-{options.papers}.json")
    report.add("machine", machine())
    dump = work / f"dump-{options.papers}"
    made = work / f"dump-{options.papers}.log"  # what the generator said, for the report
    if not dump.exists():
        step = run(
            [PYTHON, "bench/generate.py", "--papers", str(options.papers), "--out", str(dump)]
        )
        made.write_text(step.output)
    if made.exists():
        report.add("generate", made.read_text().strip())
    databases = import_figures(report, work, dump, pg_url)
    manage(databases["sqlite"], "collectstatic", "--noinput", "--verbosity", "0")
    for vendor, database in databases.items():
        in_process(report, vendor, database)
        load_pages(report, vendor, database, work, options.seconds)
    if options.corpus.is_dir():
        evaluate(report, options.corpus)
    (work / f"figures-{options.papers}.json").write_text(json.dumps(report.figures, indent=1))
    from bench.report import write

    write(report.figures, options.papers, options.out)
    print(f"wrote {options.out}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
