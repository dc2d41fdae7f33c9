"""A paper as BibTeX and as CSL-JSON, for the paper page's "Cite" section."""

from __future__ import annotations

import json
import re
import unicodedata

from . import arrowfile
from .models import Paper

BIBTEX_SPECIAL = re.compile(r"(?<!\\)([&%#])")


def person(printed: str) -> dict[str, str]:
    """CSL name parts: the last word is the family name; a one-word name is literal."""
    name, _ = arrowfile.split_dblp_number(printed)
    *given, family = name.split() or [name]
    if not given:
        return {"literal": family}
    return {"family": family, "given": " ".join(given)}


def ascii_word(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]", "", decomposed.encode("ascii", "ignore").decode().lower())


def cite_key(paper: Paper, authors: list[str]) -> str:
    family = (
        person(authors[0]).get("family") or person(authors[0]).get("literal", "") if authors else ""
    )
    words = [ascii_word(word) for word in paper.title.split()]
    first_word = next((word for word in words if len(word) > 3), "") or next(
        (word for word in words if word), "paper"
    )
    return f"{ascii_word(family) or 'anon'}{paper.year}{first_word}"


def is_journal(paper: Paper) -> bool:
    return "journal" in f"{paper.venue.kind} {paper.paper_type}".lower()


def bibtex_value(text: str) -> str:
    return BIBTEX_SPECIAL.sub(r"\\\1", text)


def bibtex(paper: Paper) -> str:
    """Needs `venue` and `authorships` loaded."""
    authors = [a.name_as_printed for a in paper.authorships.all()]
    names = []
    for printed in authors:
        parts = person(printed)
        names.append(parts.get("literal") or f"{parts['family']}, {parts['given']}")
    entry = "article" if is_journal(paper) else "inproceedings"
    fields = [
        ("title", "{" + bibtex_value(paper.title) + "}"),
        ("author", " and ".join(bibtex_value(name) for name in names)),
        ("journal" if entry == "article" else "booktitle", bibtex_value(paper.venue.name)),
        ("year", str(paper.year)),
    ]
    body = ",\n".join(f"  {field} = {{{value}}}" for field, value in fields)
    return f"@{entry}{{{cite_key(paper, authors)},\n{body}\n}}\n"


def csl_json(paper: Paper, url: str) -> str:
    """Needs `venue` and `authorships` loaded."""
    item = {
        "id": f"arrow-paper-{paper.pk}",
        "type": "article-journal" if is_journal(paper) else "paper-conference",
        "title": paper.title,
        "author": [person(a.name_as_printed) for a in paper.authorships.all()],
        "issued": {"date-parts": [[paper.year]]},
        "container-title": paper.venue.name,
        "genre": paper.paper_type,
        "URL": url,
    }
    if paper.abstract:
        item["abstract"] = "\n\n".join(paper.abstract_paragraphs)
    return json.dumps([item], ensure_ascii=False, indent=2)
