"""The alpha grid at twenty to forty words (issue 58 item 3): every word labelled, cells large enough to point
at, and the hovered (clicked) cell the one drawn under the pointer; past a handful of words the grids are
stacked, each the page's width."""

from __future__ import annotations

import numpy as np
import pytest

from selfexplain.core.results.explanation import Explanation, Token
from selfexplain.views.figures import GRID_PITCH, attention_figure, side_by_side, span_grid_figure
from selfexplain.views.style import TICK_FONT

SENTENCE = (
    "Despite a sluggish first act , the film finds its footing and the final scenes make it quietly unforgettable ."
)


def words_explanation(words: list[str]) -> Explanation:
    """A word-level explanation of ``words`` with its alpha on "sluggish" (or the third word)."""
    starts = np.cumsum([0] + [len(w) + 1 for w in words[:-1]])
    tokens = tuple(Token(w, int(s), int(s) + len(w), 0, w) for w, s in zip(words, starts))
    count = len(words)
    mask = np.triu(np.ones((count, count), dtype=bool))
    alpha = np.zeros((count, count), dtype=np.float32)
    alpha[2, 2] = 1.0
    return Explanation(" ".join(words), None, tokens, ("neg", "pos"), np.array([0.3, 0.7]), alpha, mask, "m",
                       span_unit="word")  # fmt: skip


def plot_pitch(fig) -> float:
    """Pixels of the plot area's height per row."""
    margin = fig.layout.margin
    return (fig.layout.height - margin.t - margin.b) / len(fig.data[0].z)


@pytest.mark.parametrize("count", [19, 40])
def test_every_word_is_labelled_and_cells_can_be_hit(count: int) -> None:
    words = (SENTENCE.split() * 3)[:count]
    fig = span_grid_figure(words_explanation(words), level="word")
    assert list(fig.layout.xaxis.ticktext) == words and list(fig.layout.yaxis.ticktext) == words
    pitch = plot_pitch(fig)
    assert pitch >= GRID_PITCH - 1 and pitch >= TICK_FONT["size"] + 4  # a label per row, a cell to point at
    for picker in fig.data[1:]:  # markers smaller than a cell: the nearest centre is the cell under the pointer
        assert picker.marker.size <= pitch / 3
    assert fig.layout.hoverdistance >= pitch / 2
    shaded = fig.data[1]  # the one cell with weight, "sluggish", is hovered where it is drawn: row 2, column 2
    assert [(int(x), int(y)) for x, y in zip(shaded.x, shaded.y)] == [(2, 2)]
    assert shaded.text[0] == "sluggish"
    attention = attention_figure(np.full((count, count), 1.0 / count), words, "attention")
    assert list(attention.layout.xaxis.ticktext) == words and plot_pitch(attention) >= GRID_PITCH - 1


def test_grids_of_many_words_are_stacked() -> None:
    assert side_by_side(10) and not side_by_side(19) and not side_by_side(40)
