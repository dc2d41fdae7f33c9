"""Write a realistic, complete Arrow dump of any size, the same bytes for the same seed.

    .venv/bin/python bench/generate.py --papers 1000000 --out /tmp/arrow-dump-1000000

What makes it realistic, and what each part is there to exercise:
- people belong to co-author communities (a lab, a field); most of a paper's authors
  come from the lead author's community, a few from the rest of the world;
- names are drawn with Zipf-like frequencies from given and family names of several
  cultures, so common names ("Wei Wang") hold dozens of different people, as in dblp;
- a quarter of the people whose name is shared print a dblp number ("Wei Wang 0003");
- some people print a spelling variant now and then: accents dropped ("Jurgen Muller"),
  capitals ("WEI WANG"), a middle initial;
- 1 to a few hundred authors per paper (a long tail), 80 to 220 words of abstract;
- each community writes on one topic, at a few venues, over a span of years.

The dump is complete: every printed name has its file, and a paper appears in the file
of each of its authors, in the format's order (year descending, then title). `M author
rows` is the number of people in the file, as the source system would have counted them.
Files go into folders of 1,000 (`0000/000000_<hash>.txt`).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
import unicodedata
from bisect import bisect
from collections import defaultdict
from itertools import accumulate
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clusters.arrowfile import DISCLAIMER, HEADER, name_key, venue_line  # noqa: E402

FAMILY = (
    "Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Gao Luo "
    "Kim Lee Park Choi Jung Kang Cho Yoon Jang Lim Tanaka Suzuki Sato Takahashi Watanabe "
    "Nguyen Tran Pham Le Singh Kumar Sharma Gupta Patel Reddy Rao Iyer Das Mishra Smith "
    "Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore Martin "
    "Jackson White Harris Clark Lewis Walker Hall Young Allen Wright King Scott Green Baker "
    "Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schäfer Koch Richter Klein "
    "Rossi Russo Ferrari Esposito Bianchi Romano Colombo García Fernández González Rodríguez "
    "López Martínez Sánchez Pérez Dubois Durand Lefèvre Moreau Rousseau Nowak Kowalski "
    "Wiśniewski Dąbrowski Łukasik Jensen Nielsen Hansen Sørensen Andersson Johansson "
    "Ivanov Smirnov Kuznetsov Popov Yılmaz Kaya Demir Şahin Cohen Levi Mizrahi O'Brien "
    "Murphy Kelly Dvořák Novák Svoboda Kovačević Horváth Nagy Papadopoulos Silva Santos "
    "Oliveira Souza Pereira Costa Almeida Okafor Mensah Abubakar"
).split()
GIVEN = (
    "Wei Jing Li Yang Xin Hao Jun Lei Yu Tao Ming Hui Yan Jie Lin Bo Chao Yi Qiang Ying "
    "Min-jun Seo-yeon Ji-ho Hiroshi Yuki Kenji Akira Minh Anh Rahul Priya Amit Ananya Arjun "
    "Deepak Sanjay Neha John Michael David James Robert Mary Sarah Emily Daniel Thomas "
    "Andrew Laura Anna Maria Peter Paul Mark Jennifer Lisa Kevin Brian Jürgen Stefan Andreas "
    "Katrin Matthias Giulia Marco Luca Francesca José Carlos Ana Lucía Javier Cédric Hélène "
    "François Zoë Łukasz Małgorzata Søren Åsa Björn Ólafur Jiří Dávid Ayşe Mehmet Ngozi "
    "Kwame Olga Sergey Dmitri Noa Yosef Siobhán Seán Ioannis Eleni João Luís Chinedu Fatima"
).split()
CJK_NAMES = "王伟 李娜 张伟 刘洋 陈静 杨帆 山田太郎 佐藤健 김민준 이서연".split()
VENUES = (
    ("NeurIPS", "Conference", "Conference Paper"),
    ("ICML", "Conference", "Conference Paper"),
    ("ICLR", "Conference", "Conference Paper"),
    ("ACL", "Conference", "Long Paper"),
    ("EMNLP", "Conference", "Conference Paper"),
    ("CVPR", "Conference", "Conference Paper"),
    ("SIGMOD", "Conference", "Research Paper"),
    ("VLDB", "Journal", "Journal Article"),
    ("TACL", "Journal", "Journal Article"),
    ("JMLR", "Journal", "Journal Article"),
    ("RLDM", "Conference", "Conference Abstract"),
    ("CoRL", "Conference", "Conference Paper"),
    ("AISTATS", "Conference", "Conference Paper"),
    ("KDD", "Conference", "Research Track Paper"),
    ("WWW", "Conference", "Conference Paper"),
    ("SOSP", "Conference", "Conference Paper"),
    ("Euro-Par 2020", "Conference", "Conference Paper"),
    ("ML4H Workshop", "Workshop", "Workshop Paper"),
    ("Physical Review Letters", "Journal", "Letter"),
    ("Nature Machine Intelligence", "Journal", "Article"),
)
TOPICS = 40
COMMON = (
    "we the of a and to in for is that this our on with by an are as from which show "
    "propose results method approach can be data model models using these it its"
).split()
SYLLABLES = "ka lo mi ne ru ta vo zi qua pre tri sta gen ber lin mor tex vid sor fal".split()


def zipf_weights(count: int, exponent: float = 1.0) -> list[float]:
    return list(accumulate(1 / (rank + 1) ** exponent for rank in range(count)))


def pick(rng: random.Random, cumulative: list[float]) -> int:
    return bisect(cumulative, rng.random() * cumulative[-1])


def topic_words(rng: random.Random) -> list[list[str]]:
    """Each topic: a few words every field uses, then 600 made-up technical words of its
    own; drawn with Zipf-like weights, so some words are in half the papers of a topic
    and many in a handful."""
    words = []
    for _ in range(TOPICS):
        words.append(
            ["graph", "learning", "neural", "query", "robot", "language", "quantum"]
            + ["".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))) for _ in range(600)]
        )
    return words


def without_accents(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


class World:
    def __init__(self, papers: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.topics = topic_words(self.rng)
        self.word_weights = zipf_weights(len(self.topics[0]), 1.0)
        people = max(8, int(papers * 0.55))
        self.communities = max(1, people // 40)
        self.family = zipf_weights(len(FAMILY), 1.0)
        self.given = zipf_weights(len(GIVEN), 0.6)
        self.names = [self.person_name() for _ in range(people)]
        self.community = [self.rng.randrange(self.communities) for _ in range(people)]
        self.members: dict[int, list[int]] = defaultdict(list)
        for person, community in enumerate(self.community):
            self.members[community].append(person)
        # How prolific: a few people write a great deal.
        self.activity = {c: zipf_weights(len(m), 0.8) for c, m in self.members.items()}
        self.numbered = self.dblp_numbers()
        self.variants = {
            person: self.variant(name)
            for person, name in enumerate(self.names)
            if self.rng.random() < 0.04
        }
        self.titles: set[tuple[str, int, str]] = set()
        self.start = {c: self.rng.randint(1985, 2018) for c in range(self.communities)}
        self.venues = {c: self.rng.sample(range(len(VENUES)), 3) for c in range(self.communities)}

    def person_name(self) -> str:
        roll = self.rng.random()
        if roll < 0.003:
            return self.rng.choice(CJK_NAMES)
        if roll < 0.008:
            return FAMILY[pick(self.rng, self.family)]  # a single-word name
        given, family = GIVEN[pick(self.rng, self.given)], FAMILY[pick(self.rng, self.family)]
        if self.rng.random() < 0.8:  # the long tail of rarer family names
            family = "".join(self.rng.choices(SYLLABLES, k=self.rng.randint(2, 3))).capitalize()
        if self.rng.random() < 0.4:  # and of given names
            given = "".join(self.rng.choices(SYLLABLES, k=2)).capitalize()
        if roll < 0.10:
            return f"{given} {chr(65 + self.rng.randrange(26))}. {family}"
        return f"{given} {family}"

    def dblp_numbers(self) -> dict[int, str]:
        holders: dict[str, list[int]] = defaultdict(list)
        for person, name in enumerate(self.names):
            holders[name].append(person)
        numbered = {}
        for name, people in holders.items():
            if len(people) < 2:
                continue
            for number, person in enumerate(people, start=1):
                if self.rng.random() < 0.25:
                    numbered[person] = f"{name} {number:04d}"
        return numbered

    def variant(self, name: str) -> str:
        plain = without_accents(name)
        if plain != name:
            return plain
        if self.rng.random() < 0.5:
            return name.upper()
        given, _, family = name.rpartition(" ")
        return f"{given} {chr(65 + self.rng.randrange(26))}. {family}" if given else name

    def printed(self, person: int) -> str:
        if person in self.variants and self.rng.random() < 0.3:
            return self.variants[person]
        return self.numbered.get(person, self.names[person])

    def byline(self, community: int) -> list[int]:
        roll = self.rng.random()
        if roll < 0.06:
            size = 1
        elif roll < 0.995:
            size = min(2 + int(self.rng.expovariate(1 / 2.2)), 30)
        else:
            size = self.rng.randint(31, 300)  # a consortium paper
        members = self.members[community]
        authors: list[int] = []
        seen = set()
        for _ in range(size * 3):
            if len(authors) == size:
                break
            if self.rng.random() < 0.85 or len(authors) == 0:
                person = members[pick(self.rng, self.activity[community])]
            else:
                person = self.rng.randrange(len(self.names))
            if person not in seen:
                seen.add(person)
                authors.append(person)
        return authors

    def text(self, topic: int, words: int) -> str:
        vocabulary = self.topics[topic]
        chosen = self.rng.choices(vocabulary, cum_weights=self.word_weights, k=words)
        for index in range(0, words, 3):
            chosen[index] = self.rng.choice(COMMON)
        sentences = [" ".join(chosen[i : i + 18]) for i in range(0, words, 18)]
        return ". ".join(sentence.capitalize() for sentence in sentences) + "."

    def paper(self, number: int) -> tuple[int, str, list[int], str]:
        """(year, title, author ids, the block's text) of paper `number`."""
        community = self.rng.randrange(self.communities)
        topic = community % TOPICS
        venue, kind, paper_type = VENUES[self.rng.choice(self.venues[community])]
        year = min(2025, self.start[community] + int(self.rng.expovariate(1 / 6)))
        title = self.text(topic, self.rng.randint(5, 12)).rstrip(".")
        while (venue, year, title) in self.titles:  # two papers, never one fingerprint
            title = self.text(topic, self.rng.randint(5, 12)).rstrip(".")
        self.titles.add((venue, year, title))
        authors = self.byline(community)
        paragraphs = [self.text(topic, self.rng.randint(80, 220))]
        if self.rng.random() < 0.1:
            paragraphs.append(self.text(topic, self.rng.randint(20, 60)))
        if self.rng.random() < 0.05:
            paragraphs = []  # no abstract
        links = ["PDF"] if self.rng.random() < 0.7 else []
        links.append("Details")
        if self.rng.random() < 0.3:
            links.append("DOI")
        lines = [venue_line(venue, kind, year, paper_type), title]
        lines.append("\n".join(self.printed(person) for person in authors))
        lines += paragraphs
        lines.append(" ".join(links))
        return year, title, authors, "\n\n".join(lines)


def generate(papers: int, out: Path, seed: int = 1) -> dict[str, int]:
    world = World(papers, seed)
    blocks: list[str] = []
    order: list[tuple[int, str]] = []
    files: dict[str, list[int]] = defaultdict(list)  # cluster key -> paper numbers
    display: dict[str, str] = {}
    people: dict[str, set[int]] = defaultdict(set)
    for number in range(papers):
        year, title, authors, block = world.paper(number)
        blocks.append(block)
        order.append((-year, title))
        for line in block.split("\n\n")[2].split("\n"):
            key = name_key(line)
            display.setdefault(key, line)
            if not files[key] or files[key][-1] != number:
                files[key].append(number)
    # The source system's author rows: the people who printed a name of this key.
    for person, name in enumerate(world.names):
        for printed in {name, world.numbered.get(person, name), world.variants.get(person, name)}:
            people[name_key(printed)].add(person)
    out.mkdir(parents=True, exist_ok=True)
    authorships = 0
    for index, key in enumerate(sorted(files)):
        numbers = sorted(files[key], key=order.__getitem__)
        authorships += len(numbers)
        rows = max(1, len(people.get(key, ())))
        head = [
            HEADER,
            display[key],
            DISCLAIMER,
            f"{len(numbers)} paper" + ("s" if len(numbers) != 1 else ""),
            f"{rows} author row" + ("s" if rows != 1 else ""),
        ]
        digest = hashlib.sha1(key.encode()).hexdigest()[:16]
        folder = out / f"{index // 1000:04d}"
        if index % 1000 == 0:
            folder.mkdir(exist_ok=True)
        text = "\n\n".join(head + [blocks[number] for number in numbers])
        (folder / f"{index:06d}_{digest}.txt").write_text(text, encoding="utf-8")
    return {"papers": papers, "files": len(files), "blocks": authorships}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.monotonic()
    figures = generate(args.papers, args.out, args.seed)
    print(
        f"{figures['papers']:,} papers, {figures['files']:,} files, "
        f"{figures['blocks']:,} paper blocks in {time.monotonic() - started:.1f} s -> {args.out}"
    )


if __name__ == "__main__":
    main()
