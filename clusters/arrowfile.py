"""The Arrow author-name-cluster text format: parse and render.

Plain functions on plain dataclasses, no Django: the importer, the exporter and the
property tests all go through this one module, so what is parsed is exactly what is
rendered. ../shared/FORMAT.md is the specification; the comments here say where the
format is ambiguous and which way this module reads it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

HEADER = "Author name cluster"
DISCLAIMER = (
    "Possible papers associated with this exact author name in Arrow. This page groups "
    "case-insensitive exact name matches and is not a full identity disambiguation profile."
)

# Greedy venue name: the year is the last 4-digit token that has a venue name and a
# kind before it, so a venue name may itself hold a year ("Euro-Par 2020 Conference 2020 …").
VENUE_LINE = re.compile(r"^(?P<venue>.+) (?P<kind>\S+) (?P<year>\d{4})(?: (?P<paper_type>.+))?$")
COUNT_LINE = re.compile(r"^(?P<count>\S+) (?P<noun>papers?|author rows?)$")
LINK_WORDS = ("PDF", "Details", "DOI")
LATIN_LETTERS = str.maketrans(
    {
        "ł": "l",
        "Ł": "L",
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ħ": "h",
        "Ħ": "H",
        "ı": "i",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "þ": "th",
        "Þ": "Th",
        "ð": "d",
    }
)
PUNCTUATION = re.compile(r"[.\-'’‘`´,]")
DBLP_NUMBER = re.compile(r"^(?P<base>.+) (?P<number>\d{4})$")


class ArrowFormatError(ValueError):
    """A file that cannot be imported; `line` is 1-based."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"{line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class FormatWarning:
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.line}: {self.reason}"


@dataclass(frozen=True)
class PaperBlock:
    venue: str
    venue_kind: str
    year: int
    paper_type: str
    title: str
    authors: tuple[str, ...]
    abstract: tuple[str, ...] = ()  # paragraphs, one line each
    has_pdf: bool = False
    has_doi: bool = False
    # Where the block starts in its file, for messages; not part of the paper.
    line: int = field(default=0, compare=False)

    @property
    def venue_line(self) -> str:
        return venue_line(self.venue, self.venue_kind, self.year, self.paper_type)

    @cached_property
    def fingerprint(self) -> str:
        """What makes two blocks one paper: venue, kind, year and the normalised title."""
        text = "\x1f".join(
            [name_key(self.venue), name_key(self.venue_kind), str(self.year), name_key(self.title)]
        )
        return hashlib.sha1(text.encode()).hexdigest()

    @property
    def links_line(self) -> str:
        return " ".join(
            word
            for word, present in zip(LINK_WORDS, (self.has_pdf, True, self.has_doi), strict=True)
            if present
        )


@dataclass(frozen=True)
class ClusterFile:
    name: str
    papers: tuple[PaperBlock, ...]
    author_rows: int
    # The counts as the file states them; render() states len(papers).
    stated_papers: int | None = field(default=None, compare=False)


@dataclass
class ParseResult:
    cluster: ClusterFile
    warnings: list[FormatWarning]


def name_key(name: str) -> str:
    """The cluster key: casefolded, NFKC-normalised, whitespace collapsed.

    Computed here, not in SQL: SQLite's lower() folds ASCII only. NFKC on both sides of
    casefold() makes the key idempotent over every code point.
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def fold(text: str) -> str:
    """Diacritics dropped ("Cédric" -> "Cedric"), and the letters that carry no
    separable accent spelled as Latin readers type them ("Łukasz" -> "Lukasz")."""
    if text.isascii():  # most titles and abstracts: nothing to fold, and fast to tell
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    if decomposed.isascii():
        return decomposed
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return plain.translate(LATIN_LETTERS)


def folded_key(name: str) -> str:
    """The name with its dblp number, diacritics and punctuation dropped: the key that
    relates "Cédric Renggli", "Cedric Renggli" and "Cedric Renggli 0001"."""
    base, _ = split_dblp_number(" ".join(name.split()))
    return " ".join(PUNCTUATION.sub(" ", fold(name_key(base))).split())


def initials_key(name: str) -> str:
    """The folded name with every name but the last cut to its initial: "h tang" for
    "Hanlin Tang" and for "H. Tang", so initial forms find their expansions."""
    *given, family = folded_key(name).split() or [""]
    return " ".join([part[0] for part in given] + [family])


def split_dblp_number(name: str) -> tuple[str, int | None]:
    """("Ji Liu 0002") -> ("Ji Liu", 2); a name without a number -> (name, None)."""
    match = DBLP_NUMBER.match(name)
    if not match:
        return name, None
    return match["base"], int(match["number"])


def decode(data: bytes) -> str:
    """UTF-8 with an optional BOM; bad bytes raise ArrowFormatError with their line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ArrowFormatError(
            line, f"bytes are not UTF-8 (0x{data[exc.start]:02x} at byte {exc.start})"
        ) from None
    if (nul := text.find("\x00")) >= 0:
        # Valid UTF-8, but no database column holds it (PostgreSQL refuses it in text).
        raise ArrowFormatError(text.count("\n", 0, nul) + 1, "a NUL character (0x00)")
    return text.removeprefix("\ufeff")


def venue_line(venue: str, kind: str, year: int, paper_type: str) -> str:
    """`<venue> <venue kind> <year> <paper type>`, as the first line of a paper block."""
    return " ".join(part for part in (venue, kind, f"{year:04d}", paper_type) if part)


def parse_venue_line(line: str) -> tuple[str, str, int, str] | None:
    match = VENUE_LINE.match(line)
    if not match:
        return None
    return match["venue"], match["kind"], int(match["year"]), match["paper_type"] or ""


def _blocks(text: str) -> tuple[list[tuple[int, list[str]]], list[FormatWarning]]:
    """Split into blocks of non-empty lines, each with the number of its first line."""
    if _tidy(text):  # the common case, and much faster: no line can be blank but
        blocks = []  # the single ones between blocks
        number = 1
        for chunk in text.split("\n\n"):
            lines = chunk.split("\n")
            blocks.append((number, lines))
            number += len(lines) + 1
        return blocks, []
    blocks: list[tuple[int, list[str]]] = []
    warnings: list[FormatWarning] = []
    blank_run = 0
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        line = raw.rstrip(" \t\r")
        if not line:
            blank_run += 1
            continue
        if blank_run > 1 and blocks:
            warnings.append(FormatWarning(number - 1, "more than one empty line between blocks"))
        if blank_run or not blocks:
            blocks.append((number, []))
        blocks[-1][1].append(line)
        blank_run = 0
    return blocks, warnings


def _tidy(text: str) -> bool:
    """No CR, no trailing blanks, no runs of empty lines, no empty line first or last."""
    return (
        bool(text)
        and not text.startswith("\n")
        and not text.endswith(("\n", " ", "\t"))
        and not any(mark in text for mark in ("\r", " \n", "\t\n", "\n\n\n"))
    )


def _links(line: str) -> tuple[bool, bool] | None:
    """(has_pdf, has_doi) for a links line, None for any other line."""
    words = line.split(" ")
    if not words or any(word not in LINK_WORDS for word in words):
        return None
    return "PDF" in words, "DOI" in words


def _one_line(block: tuple[int, list[str]], what: str) -> str:
    number, lines = block
    if len(lines) != 1:
        raise ArrowFormatError(number, f"{what} must be one line, found {len(lines)}")
    return lines[0]


def _count(block: tuple[int, list[str]], noun: str) -> int:
    """The number on a count line: "<N> <noun>s", or "<N> <noun>" for one."""
    line = _one_line(block, f"the {noun} count")
    match = COUNT_LINE.match(line)
    if not match or match["noun"] not in (noun, f"{noun}s"):
        raise ArrowFormatError(block[0], f'expected "<number> {noun}s", found "{line}"')
    if not match["count"].isascii() or not match["count"].isdigit():
        raise ArrowFormatError(block[0], f'{noun} count "{match["count"]}" is not a number')
    return int(match["count"])


def _paper(blocks: list[tuple[int, list[str]]], start: int) -> tuple[PaperBlock, int]:
    """Parse the paper whose venue line is blocks[start]; return it and the next index."""
    first_line = blocks[start][0]
    venue_line = _one_line(blocks[start], "the venue line")
    venue = parse_venue_line(venue_line)
    if venue is None:
        raise ArrowFormatError(first_line, f'venue line has no 4-digit year: "{venue_line}"')
    if start + 1 >= len(blocks):
        raise ArrowFormatError(first_line, "file ends in the middle of a paper (no title)")
    title = _one_line(blocks[start + 1], "the title")
    if start + 2 >= len(blocks):
        raise ArrowFormatError(first_line, "file ends in the middle of a paper (no authors)")
    authors_line, authors = blocks[start + 2]
    if len(authors) == 1 and _links(authors[0]):
        raise ArrowFormatError(authors_line, "paper has no authors")
    abstract: list[str] = []
    index = start + 3
    while index < len(blocks):
        number, lines = blocks[index]
        if len(lines) == 1 and (links := _links(lines[0])):
            _check_links(number, lines[0])
            paper = PaperBlock(*venue, title, tuple(authors), tuple(abstract), *links, first_line)
            return paper, index + 1
        if len(lines) > 1:
            # A multi-line block after the authors can only be the next paper's byline.
            # (Looked for only now: the venue pattern is costly on long paragraphs.)
            venue_like = next(
                (number for number, (line,) in blocks[start + 3 : index] if parse_venue_line(line)),
                None,
            )
            if venue_like is not None:
                raise ArrowFormatError(
                    first_line,
                    f"paper has no links line (line {venue_like} looks like the next paper)",
                )
            raise ArrowFormatError(
                number,
                f"expected a links line or a one-line abstract paragraph, found {len(lines)} lines",
            )
        abstract.append(lines[0])
        index += 1
    raise ArrowFormatError(first_line, "file ends in the middle of a paper (no links line)")


def _check_links(number: int, line: str) -> None:
    words = line.split(" ")
    if "Details" not in words:
        raise ArrowFormatError(number, f'links line has no "Details": "{line}"')
    if words != [word for word in LINK_WORDS if word in words]:
        raise ArrowFormatError(
            number, f'links line must be "PDF Details DOI" in that order: "{line}"'
        )


def parse(text: str) -> ParseResult:
    """Parse one cluster file's text (BOM and CRLF allowed). Raises ArrowFormatError."""
    text = text.removeprefix("\ufeff")
    blocks, warnings = _blocks(text)
    if not blocks or blocks[0][1] != [HEADER]:
        found = blocks[0][1][0] if blocks else "an empty file"
        raise ArrowFormatError(
            blocks[0][0] if blocks else 1, f'expected header "{HEADER}", found "{found}"'
        )
    if len(blocks) < 5:
        raise ArrowFormatError(blocks[-1][0], "file ends inside the header")
    name = _one_line(blocks[1], "the cluster name")
    if _one_line(blocks[2], "the disclaimer") != DISCLAIMER:
        warnings.append(FormatWarning(blocks[2][0], "disclaimer differs from the standard text"))
    stated_papers = _count(blocks[3], "paper")
    author_rows = _count(blocks[4], "author row")
    papers: list[PaperBlock] = []
    index = 5
    while index < len(blocks):
        paper, index = _paper(blocks, index)
        papers.append(paper)
    if stated_papers != len(papers):
        warnings.append(
            FormatWarning(
                blocks[3][0], f"file states {stated_papers} papers but holds {len(papers)}"
            )
        )
    key = name_key(name)
    first_seen: dict[str, int] = {}
    for paper in papers:
        if (earlier := first_seen.setdefault(paper.fingerprint, paper.line)) != paper.line:
            warnings.append(FormatWarning(paper.line, f"same paper as line {earlier}"))
        if name not in paper.authors and not any(
            name_key(author) == key for author in paper.authors
        ):
            warnings.append(FormatWarning(paper.line, f'no author of this paper is named "{name}"'))
    cluster = ClusterFile(name, tuple(papers), author_rows, stated_papers)
    return ParseResult(cluster, warnings)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def render(cluster: ClusterFile) -> str:
    """The file text: no BOM, LF line endings, no newline after the last line."""
    blocks = [
        HEADER,
        cluster.name,
        DISCLAIMER,
        _plural(len(cluster.papers), "paper"),
        _plural(cluster.author_rows, "author row"),
    ]
    for paper in cluster.papers:
        blocks += [paper.venue_line, paper.title, "\n".join(paper.authors)]
        blocks += paper.abstract
        blocks.append(paper.links_line)
    return "\n\n".join(blocks)


def sort_key(paper: PaperBlock) -> tuple[int, str]:
    """The order of papers in a file: year descending, then title ascending."""
    return -paper.year, paper.title


def complete_dump(papers: list[PaperBlock]) -> list[ClusterFile]:
    """Every name cluster of these papers, as a complete dump files them: each name's
    file lists every paper carrying it, and counts its distinct exact spellings."""
    papers_by_key: dict[str, list[PaperBlock]] = {}
    spellings: dict[str, list[str]] = {}
    for paper in papers:
        for author in paper.authors:
            key = name_key(author)
            if paper not in papers_by_key.setdefault(key, []):
                papers_by_key[key].append(paper)
            if author not in spellings.setdefault(key, []):
                spellings[key].append(author)
    return [
        ClusterFile(spellings[key][0], tuple(sorted(group, key=sort_key)), len(spellings[key]))
        for key, group in papers_by_key.items()
    ]
