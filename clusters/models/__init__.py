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
    "Venue",
    "corpus_figures",
    "forget_corpus_figures",
    "validate_orcid",
]
