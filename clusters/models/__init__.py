"""Arrow's models: the bibliography as imported, and the curation of who is who."""

from .bibliography import (
    FIGURES_CACHE_KEY,
    NAME_LENGTH,
    SLUG_LENGTH,
    Author,
    Authorship,
    NameCluster,
    Paper,
    Venue,
    corpus_figures,
    forget_corpus_figures,
)
from .curation import (
    ANNOTATIONS,
    DistinctPair,
    Edit,
    EditConflict,
    EditMerge,
    EditMove,
    validate_orcid,
)
from .moderation import Report

__all__ = [
    "ANNOTATIONS",
    "FIGURES_CACHE_KEY",
    "NAME_LENGTH",
    "SLUG_LENGTH",
    "Author",
    "Authorship",
    "DistinctPair",
    "Edit",
    "EditConflict",
    "EditMerge",
    "EditMove",
    "NameCluster",
    "Paper",
    "Report",
    "Venue",
    "corpus_figures",
    "forget_corpus_figures",
    "validate_orcid",
]
