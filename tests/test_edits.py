"""Word edits and the alpha change they cause."""

from __future__ import annotations

import numpy as np
import pytest

from selfexplain.core.results.words import word_view
from selfexplain.errors import InvalidInputError
from selfexplain.methods.analysis.edits import Edit, alpha_change, apply_edit, word_extents

TEXT = "the film is  slow but warm"


def test_word_extents_split_on_whitespace() -> None:
    assert [TEXT[a:b] for a, b in word_extents(TEXT)] == ["the", "film", "is", "slow", "but", "warm"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (Edit("delete", 3, 3), "the film is  but warm"),
        (Edit("delete", 0, 1), "is  slow but warm"),
        (Edit("delete", 5, 5), "the film is  slow but"),
        (Edit("replace", 3, 3, "  very  brisk "), "the film is  very brisk but warm"),
        (Edit("insert", 0, 0, "oh,"), "oh, the film is  slow but warm"),
        (Edit("insert", 3, 3, "not"), "the film is  not slow but warm"),
        (Edit("insert", 6, 6, "too"), "the film is  slow but warm too"),
    ],
)
def test_apply_edit(edit: Edit, expected: str) -> None:
    assert apply_edit(TEXT, edit) == expected


@pytest.mark.parametrize(
    "edit",
    [Edit("delete", 0, 5), Edit("delete", 4, 9), Edit("replace", 2, 2, "  "), Edit("insert", 7, 7, "x"),
     Edit("insert", 1, 1, ""), Edit("delete", 3, 2)],
)  # fmt: skip
def test_bad_edits_are_refused(edit: Edit) -> None:
    with pytest.raises(InvalidInputError):
        apply_edit(TEXT, edit)


def test_describe() -> None:
    assert Edit("replace", 3, 3, "brisk").describe(TEXT) == "replace “slow” → “brisk”"
    assert Edit("delete", 0, 1).describe(TEXT) == "delete “the film”"
    assert Edit("insert", 2, 2, "not").describe(TEXT) == "insert “not” before word 3"


def test_no_edit_changes_nothing(tiny_explainer) -> None:
    one = tiny_explainer.explain("a slow but warm film", attentions=False)
    change = alpha_change(one, one)
    valid = ~np.isnan(change.delta)
    assert valid.sum() == word_view(one).span_mask.sum()
    assert np.abs(change.delta[valid]).max() == 0
    assert change.rows == ()
    assert np.all(change.probability_change == 0)


def test_change_after_a_deletion(tiny_explainer) -> None:
    before = tiny_explainer.explain("a slow but warm film", attentions=False)
    after = tiny_explainer.explain(apply_edit(before.text, Edit("delete", 1, 1)), attentions=False)
    change = alpha_change(before, after, rows=1000)
    old, new = word_view(before), word_view(after)
    assert change.labels == ("a", "but", "warm", "film")
    # "but warm film" stood together before: its change is the difference of the two alphas
    expected = new.alpha[1, 3] - old.alpha[2, 4]
    assert change.delta[1, 3] == pytest.approx(expected, abs=1e-12)
    # "a but" is a new span (the words were not adjacent before): it counts from zero
    assert change.delta[0, 1] == pytest.approx(new.alpha[0, 1], abs=1e-12)
    assert np.isnan(change.delta[1, 0])
    # every span with "slow" is lost entirely, and listed with alpha 0 after
    lost = {text: (b, a) for text, b, a in change.rows if "slow" in text}
    assert lost and all(a == 0.0 for _, a in lost.values())
    assert lost["slow"][0] == pytest.approx(old.alpha[1, 1], abs=1e-12)
    assert np.allclose(change.probability_change, after.probabilities - before.probabilities)
    # rows are ordered by the size of the move
    moves = [abs(a - b) for _, b, a in change.rows]
    assert moves == sorted(moves, reverse=True)


def test_pair_words_align_within_their_text(tiny_pair_explainer) -> None:
    before = tiny_pair_explainer.explain("a man sleeps", pair="a man sleeps", attentions=False)
    after = tiny_pair_explainer.explain("a man sleeps", pair="a man runs", attentions=False)
    change = alpha_change(before, after)
    assert change.labels == ("a", "man", "sleeps", "a", "man", "runs")
    # the premise did not change, so its spans moved only because the model reads the new hypothesis
    old = word_view(before)
    assert change.delta[0, 2] == pytest.approx(word_view(after).alpha[0, 2] - old.alpha[0, 2], abs=1e-12)
