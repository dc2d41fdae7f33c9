from .browse import (
    author_detail,
    cluster_detail,
    cluster_list,
    home,
    paper_detail,
    venue_detail,
    venue_list,
)
from .changes import ChangeFeed, change_detail, change_list
from .curation import (
    author_annotate,
    change_revert,
    cluster_distinct,
    cluster_merge,
    cluster_move,
    cluster_split,
)
from .searching import search

__all__ = [
    "ChangeFeed",
    "author_annotate",
    "change_detail",
    "change_list",
    "change_revert",
    "cluster_distinct",
    "cluster_merge",
    "cluster_move",
    "cluster_split",
    "author_detail",
    "cluster_detail",
    "cluster_list",
    "home",
    "paper_detail",
    "search",
    "venue_detail",
    "venue_list",
]
