"""Whole pages for readers, kept rendered.

A page a reader sees is the same for every reader until the bibliography changes, so
its bytes are cached under a key made of what it was made from: the version of the
edits (`Edit.objects.version()`, which moves with every change and every review), the
generation of the pages (turned by whatever changes pages outside an edit: an import, a
lock), and the page's full address. No key is ever invalidated by hand; a change makes
new keys and the old entries age out (PAGE_CACHE_SECONDS, which bounds how long a change
made in the database by hand takes to show; the admin site makes its changes as edits).

Signed-in users and requests that carry a session or flash messages are never served
from it: their pages hold their name, their controls and their messages.

The same two versions, read once per request (`made_from()`), key what a page made
afresh caches for the pages that follow: a cluster's layout, an identity's summary.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from .models import Edit

GENERATION_KEY = "pages:generation"


def pages_changed() -> None:
    """Turn the generation: every cached page is made again on its next request. For
    changes that are not edits (edits change `Edit.objects.version()` themselves)."""
    cache.set(GENERATION_KEY, uuid.uuid4().hex, timeout=None)


def generation() -> str:
    current = cache.get(GENERATION_KEY)
    if current is None:
        cache.add(GENERATION_KEY, uuid.uuid4().hex, timeout=None)
        current = cache.get(GENERATION_KEY, "")
    return current


def is_private(request: HttpRequest) -> bool:
    return (
        settings.SESSION_COOKIE_NAME in request.COOKIES
        or CookieStorage.cookie_name in request.COOKIES
    )


def made_from(request: HttpRequest) -> str:
    """The generation and the edits' version, read once per request: the page's key
    starts with them, and so do the keys of what a page made afresh caches on the way
    (a cluster's layout, an identity's summary)."""
    if not hasattr(request, "arrow_made_from"):
        request.arrow_made_from = f"{generation()}|{Edit.objects.version()}"
    return request.arrow_made_from


def page_key(request: HttpRequest) -> str:
    address = f"{made_from(request)}|{request.build_absolute_uri()}"
    return "page:" + hashlib.sha256(address.encode()).hexdigest()


# A page being made is marked for this long at most: other requests for it wait for it
# rather than make it too. Two readers asking at once for an identity of 3,800 papers
# made it twice over, on the same two cores, and every request queued behind them
# waited for both.
MAKING_SECONDS = 10
POLL_SECONDS = 0.01


def wait_for_page(key: str, making: str) -> tuple | None:
    """The page another request is making, once it is kept; None if that request ended
    without keeping it (a 404, an error) or took longer than MAKING_SECONDS."""
    deadline = time.monotonic() + MAKING_SECONDS
    while time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        kept = cache.get(key)
        if kept is not None:
            return kept
        if cache.get(making) is None:
            return cache.get(key)
    return None


def kept_response(kept: tuple) -> HttpResponse:
    status, headers, content = kept
    response = HttpResponse(content, status=status, headers=headers)
    # The page differs for a signed-in user; the view's own response said so
    # when its template asked for the user.
    patch_vary_headers(response, ["Cookie"])
    response["X-Page-Cache"] = "hit"
    return response


def make_and_keep(
    request: HttpRequest, view: Callable[..., HttpResponse], key: str, seconds: int, *args, **kwargs
) -> HttpResponse:
    """Make the page, and keep it if every reader may get it: a 200 that sets no cookie."""
    response = view(request, *args, **kwargs)
    if response.status_code == 200 and not response.streaming and not response.cookies:
        cache.set(key, (response.status_code, dict(response.items()), response.content), seconds)
        response["X-Page-Cache"] = "miss"
    return response


def for_readers(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Serve the view's page from the cache to readers who are not signed in: one
    query (the edit version) and no template. A page is made by one request at a time;
    the others asking for it meanwhile wait for it."""

    @wraps(view)
    def cached_view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        seconds = settings.PAGE_CACHE_SECONDS
        if not seconds or request.method not in ("GET", "HEAD") or is_private(request):
            return view(request, *args, **kwargs)
        key = page_key(request)
        kept = cache.get(key)
        if kept is None:
            making = f"{key}:making"
            if cache.add(making, True, MAKING_SECONDS):
                try:
                    return make_and_keep(request, view, key, seconds, *args, **kwargs)
                finally:
                    cache.delete(making)
            kept = wait_for_page(key, making)
        if kept is None:
            return make_and_keep(request, view, key, seconds, *args, **kwargs)
        return kept_response(kept)

    return cached_view
