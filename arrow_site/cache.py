"""The cache backend every process shares: diskcache's, kept open between requests."""

from __future__ import annotations

from diskcache import DjangoCache


class SharedDiskCache(DjangoCache):
    """Django closes every cache when a request finishes; diskcache's close() shuts its
    SQLite files, and opening them again runs some twenty statements, 0.8 ms of a page
    served from the cache. Its author's advice is to open it as seldom as possible
    (grantjenks/python-diskcache#71): each operation is atomic on its own, and every
    process (and thread) keeps connections of its own."""

    def close(self, **kwargs) -> None:
        pass
