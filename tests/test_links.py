"""clusters.links answers what reverse() would, at a lookup's cost."""

from __future__ import annotations

import pytest
from django.urls import clear_script_prefix, reverse, set_script_prefix

from clusters import links


@pytest.mark.parametrize("view", ["clusters:paper-detail", "clusters:author-detail"])
@pytest.mark.parametrize("prefix", ["/", "/arrow/"])
def test_links_by_id_are_what_reverse_gives(view, prefix):
    set_script_prefix(prefix)
    try:
        for pk in (1, 42, 1_000_000):
            assert links.by_id(view, pk) == reverse(view, args=[pk])
        assert links.by_id(view, 7).startswith(prefix)
        assert links.remembered("clusters:venue-year", "iclr", 2021) == reverse(
            "clusters:venue-year", args=["iclr", 2021]
        )
    finally:
        clear_script_prefix()


def test_a_view_without_an_id_at_its_end_is_refused():
    with pytest.raises(ValueError, match="does not end in an id"):
        links.by_id("clusters:change-revert", 3)
