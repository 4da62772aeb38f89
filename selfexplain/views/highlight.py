"""The input text with spans shaded by alpha, as escaped HTML.

Every piece of user or model text goes through :func:`escape_text`: the characters
``html.escape`` replaces, plus those Markdown or LaTeX renderers would act on, become
numeric entities,
so markup in the input is shown as text and never interpreted.
"""

from __future__ import annotations

import numpy as np

from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.views.style import INK, NOTE_TEXT, SHADE_RGB

# html.escape's five characters plus those Markdown or LaTeX would act on, all as numeric entities.
_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "&<>\"'*_`[]()$\\~#|!{}:"})


def escape_text(text: str) -> str:
    """HTML-escape and neutralise Markdown/LaTeX syntax; newlines become ``<br>``."""
    escaped = text.translate(_ENTITIES)
    return escaped.replace("\r\n", "\n").replace("\n", "<br>")


def escape_attribute(text: str) -> str:
    """Text for an HTML attribute such as ``title`` (plain text, never markup): escaped like
    :func:`escape_text`, but whitespace runs, newlines included, become one space (a ``<br>`` would show
    as the characters ``<br>`` in a tooltip)."""
    return " ".join(text.split()).translate(_ENTITIES)


def _segment_html(text: str, spans: list[Span], selected: Span | None, top_alpha: float) -> str:
    best = np.full(len(text), len(spans), dtype=int)  # index into spans of the best span covering a char
    for index in range(len(spans) - 1, -1, -1):  # spans are ranked: earlier ones win
        best[spans[index].start_char : spans[index].end_char] = index
    chosen = np.zeros(len(text), dtype=bool)
    if selected is not None:
        chosen[selected.start_char : selected.end_char] = True
    key = best * 2 + chosen
    cuts = np.flatnonzero(np.diff(key)) + 1
    parts = []
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(text)]):
        if lo == hi:
            continue
        piece = escape_text(text[lo:hi])
        index = int(best[lo])
        outline = f"outline:3px solid {INK};border-radius:3px;" if chosen[lo] else ""
        if index == len(spans):
            parts.append(f'<span style="{outline}">{piece}</span>' if outline else piece)
            continue
        span = spans[index]
        strength = 0.15 + 0.75 * (span.alpha / top_alpha if top_alpha > 0 else 0.0)
        where = f"rank {span.rank} · alpha {span.alpha:.4f}" if span.rank > 0 else "alpha 0, not ranked"
        title = escape_attribute(f"{where} · {span.text}")
        parts.append(
            f'<mark title="{title}" data-rank="{span.rank}" '
            f'style="background:rgba({SHADE_RGB},{strength:.2f});padding:1px 0;border-radius:3px;{outline}">'
            f"{piece}</mark>"
        )
    return "".join(parts)


def highlight_html(explanation: Explanation, spans: list[Span], selected: Span | None = None) -> str:
    """The original text(s) with ``spans`` shaded (the stronger the alpha, the darker);
    hovering shows rank and alpha; ``selected`` is outlined."""
    top_alpha = max((s.alpha for s in spans), default=0.0)
    blocks = []
    segments = [(0, explanation.text)] + ([(1, explanation.pair)] if explanation.pair is not None else [])
    names = {0: "Premise", 1: "Hypothesis"} if explanation.pair is not None else {0: ""}
    for segment, text in segments:
        own = [s for s in spans if s.segment == segment]
        chosen = selected if selected is not None and selected.segment == segment else None
        label = f"<div style='font-size:0.8em;color:{NOTE_TEXT}'>{names[segment]}</div>" if names[segment] else ""
        body = _segment_html(text or "", own, chosen, top_alpha)
        blocks.append(f"{label}<div class='selfexplain-text' style='font-size:1.15em;line-height:1.9'>{body}</div>")
    return "<div class='selfexplain-highlight'>" + "".join(blocks) + "</div>"
