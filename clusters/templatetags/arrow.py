"""Arrow's template helpers. Everything from the files is text: these build HTML only
through format_html and escaping, never mark_safe on data that was not escaped."""

from __future__ import annotations

import functools
import html
import re

from django import template
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

LONG_ABSTRACT = 300  # characters; longer abstracts start collapsed


@register.filter
def highlight(text: str, words: list[str]) -> SafeString:
    """The text with each searched word (and words starting with it) in <mark>. Every
    part is escaped; a search page calls this for some 800 titles, paragraphs and
    names, so it joins escaped strings instead of calling format_html for each part."""
    if not words:
        return escape(text)
    # split() puts the matches at the odd positions.
    parts = word_pattern(tuple(words)).split(text)
    return SafeString(
        "".join(
            f"<mark>{html.escape(part)}</mark>" if index % 2 else html.escape(part)
            for index, part in enumerate(parts)
        )
    )


@functools.lru_cache(maxsize=64)
def word_pattern(words: tuple[str, ...]) -> re.Pattern:
    longest_first = sorted(words, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, longest_first)) + ")", re.IGNORECASE)


@register.simple_tag
def byline(paper: dict, words: list[str]) -> SafeString:
    """A paper's printed names, each linking to its identity, the page's own name
    marked. Built here rather than in the template: a page of papers prints hundreds
    of names, and a template loop costs several times more per name. For the same
    reason it joins escaped strings, as highlight() does, rather than calling
    format_html for each name."""
    names = []
    for author in paper["authors"]:
        ours = author["in_cluster"] or author.get("this_identity")
        if ours:
            name = f"<mark>{html.escape(author['name'])}</mark>"
        else:
            name = highlight(author["name"], words)
        if author["identity"]:
            mark = ' class="this-name"' if ours else ""
            names.append(f'<a href="{html.escape(author["identity"])}"{mark}>{name}</a>')
        else:
            names.append(f'{name}<span class="meta"> (unassigned)</span>')
    more = ""
    if paper["authors_total"] > len(paper["authors"]):
        more = f' <span class="more">… {int(paper["authors_total"])} authors in all</span>'
    return SafeString(", ".join(names) + more)


@register.filter
def is_long(paragraphs: list[str]) -> bool:
    return sum(len(paragraph) for paragraph in paragraphs) > LONG_ABSTRACT


@register.simple_tag
def year_chart(rows: list[dict[str, int]], label: str = "Papers per year") -> SafeString:
    """A server-rendered bar chart of papers per year, every year of the span shown."""
    if not rows:
        return SafeString("")
    counts = {row["year"]: row["papers"] for row in rows}
    years = list(range(min(counts), max(counts) + 1))
    peak = max(counts.values())
    bar, gap, height, top, bottom = 22, 6, 120, 18, 22
    width = len(years) * (bar + gap) + gap
    bars = format_html_join(
        "",
        "<g><title>{}: {} papers</title>"
        '<rect x="{}" y="{}" width="{}" height="{}" rx="2"></rect>'
        '<text x="{}" y="{}" class="n">{}</text>'
        '<text x="{}" y="{}" class="y">{}</text></g>',
        (
            (
                year,
                counts.get(year, 0),
                gap + i * (bar + gap),
                top + height - h,
                bar,
                h,
                gap + i * (bar + gap) + bar / 2,
                top + height - h - 4,
                counts.get(year) or "",
                gap + i * (bar + gap) + bar / 2,
                top + height + 16,
                f"’{year % 100:02d}",
            )
            for i, year in enumerate(years)
            for h in [round(height * counts.get(year, 0) / peak)]
        ),
    )
    return format_html(
        '<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" '
        'height="{}" xmlns="http://www.w3.org/2000/svg">{}</svg>',
        f"{label}: " + ", ".join(f"{row['year']}: {row['papers']}" for row in rows),
        width,
        top + height + bottom,
        width,
        top + height + bottom,
        bars,
    )


@register.filter
def plural(count: int, noun: str) -> str:
    """`3|plural:"paper"` -> "3 papers"; a noun like "identity" takes "identities"."""
    if count == 1:
        return f"{count:,} {noun}"
    plural_noun = (
        noun[:-1] + "ies" if noun.endswith("y") and noun[-2] not in "aeiou" else noun + "s"
    )
    return f"{count:,} {plural_noun}"
