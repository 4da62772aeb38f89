"""Plain data for showing a stored pin with the app's usual pieces (no Streamlit here).

Every pin here has passed the pin's checks (:func:`selfexplain.gallery.records.validate_record`, the one
schema), which is all this module relies on. A pin keeps the top spans, not the ``[T, T]`` grid, so it
cannot be turned back into a full :class:`~selfexplain.core.results.explanation.Explanation`.
:func:`summary_explanation` gives a tokenless one that carries the text, the pair, the label names and the
probabilities, which is all that ``highlight_html`` and ``probability_figure`` read; :func:`pin_spans` gives
the stored spans back as :class:`~selfexplain.core.results.explanation.Span` objects.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

import numpy as np

from selfexplain.core.results.explanation import Explanation, Span, disjoint_spans
from selfexplain.gallery.records import Pin

GALLERY_PATH = "Gallery"  # pages/8_Gallery.py is served at /Gallery


def summary_explanation(pin: Pin) -> Explanation:
    """An Explanation with the pin's text, pair, labels, probabilities, model and span unit; no tokens
    (``T = 0``), no alpha (:meth:`Explanation.from_dict` of the stored explanation, which the pin schema
    holds to the pin's text and pair)."""
    return Explanation.from_dict(pin.explanation, tokens=False, model_name=pin.model)


def pin_spans(pin: Pin, k: int = 5, overlapping: bool = False) -> list[Span]:
    """The stored spans with alpha above 0, best first: the top ``k``, or the first ``k`` that share
    no token with a better one (the Explain page's default view)."""
    stored = [s for s in pin.explanation["spans"] if s["alpha"] > 0]
    stored.sort(key=lambda s: s["rank"])
    spans = [Span(**{key: s[key] for key in Span.__dataclass_fields__}) for s in stored]
    if overlapping or not spans:
        return spans[:k]
    starts = np.array([s.start_token for s in spans])
    ends = np.array([s.end_token for s in spans])  # below the token count: the pin schema checks it
    kept = disjoint_spans(starts, ends, len(pin.explanation["tokens"]), count=k)
    return [spans[i] for i in kept]


def _page_base(page_url: str | None) -> str:
    scheme, netloc, path, _, _ = urlsplit(page_url or "/")
    return urlunsplit((scheme, netloc, path or "/", "", ""))


def permalink(pin_id: str, page_url: str | None) -> str:
    """The Gallery URL that opens ``pin_id``, beside ``page_url`` (the URL of the page showing the link:
    the Explain page or the Gallery, so a ``server.baseUrlPath`` is kept)."""
    return urljoin(_page_base(page_url), f"{GALLERY_PATH}?{urlencode({'pin': pin_id})}")


def explain_link(pin: Pin, page_url: str | None) -> str:
    """The Explain page's URL for the pin's input (``?text=...&pair=...&model=...``), beside ``page_url``."""
    params: dict[str, Any] = {"text": pin.text, "model": pin.model}
    if pin.pair is not None:
        params["pair"] = pin.pair
    return urljoin(_page_base(page_url), "./?" + urlencode(params))
