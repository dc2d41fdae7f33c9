from .browse import (
    author_detail,
    cluster_detail,
    cluster_list,
    home,
    paper_detail,
    venue_detail,
    venue_list,
)
from .searching import search

__all__ = [
    "author_detail",
    "cluster_detail",
    "cluster_list",
    "home",
    "paper_detail",
    "search",
    "venue_detail",
    "venue_list",
]
