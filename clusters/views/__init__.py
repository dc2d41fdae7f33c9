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
from .moderation import (
    cluster_lock,
    cluster_unlock,
    moderation_queue,
    my_proposals,
    proposal_approve,
    proposal_reject,
    report_create,
    report_handle,
)
from .searching import search
from .suggesting import ambiguity_dashboard, cluster_suggestions

__all__ = [
    "ambiguity_dashboard",
    "cluster_suggestions",
    "cluster_lock",
    "cluster_unlock",
    "moderation_queue",
    "my_proposals",
    "proposal_approve",
    "proposal_reject",
    "report_create",
    "report_handle",
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
