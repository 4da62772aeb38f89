"""The sharpness measures on hand-built explanations and span views (no model)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from selfexplain.core.modeling.normalisers import normalise
from selfexplain.core.results.explanation import Explanation, Token
from selfexplain.lab.faithfulness.alpha_tests import SpanView
from selfexplain.lab.plausibility.metrics import alpha_token_f1s, plausibility
from selfexplain.lab.sharpness.measures import (
    MEASURES,
    both_sides_share,
    closing_punctuation,
    closing_word,
    markdown_summary,
    multi_span_share,
    nonzero_spans,
    repeated_top_span,
    summarise,
    summary_rows,
    top_span_text,
    top_span_words,
    words_of,
)
from selfexplain.lab.sharpness.measures_model import (
    delete_chars,
    deletion_scores,
    deletion_variants,
    random_places,
    top_out_flip,
)
from selfexplain.lab.sharpness.plausibility import sst_phrase_agreement

SST5 = ("very negative", "negative", "neutral", "positive", "very positive")


def explanation(
    text: str,
    weights: dict[tuple[int, int], float],
    pair: str | None = None,
    probabilities: tuple[float, ...] = (0.1, 0.9),
    labels: tuple[str, ...] = ("neg", "pos"),
) -> Explanation:
    """Tokens: the text's pieces split at spaces and at ``'`` (``isn't`` -> ``isn``, ``'``, ``t``), both
    texts of a pair; every span within one text is valid; alpha = ``weights`` (0 elsewhere)."""
    tokens = []
    for segment, source in enumerate((text, pair) if pair is not None else (text,)):
        position = 0
        for word in source.split(" "):
            pieces = word.replace("'", " ' ").split() if "'" in word else [word]
            for piece in pieces:
                start = source.index(piece, position)
                tokens.append(Token(piece, start, start + len(piece), segment, piece))
                position = start + len(piece)
    n = len(tokens)
    segments = np.array([t.segment for t in tokens])
    mask = np.triu(np.ones((n, n), dtype=bool)) & (segments[:, None] == segments[None, :])
    alpha = np.zeros((n, n))
    for (i, j), value in weights.items():
        alpha[i, j] = value
    return Explanation(text, pair, tuple(tokens), labels, np.array(probabilities), alpha, mask, "demo")


# it(0) isn(1) '(2) t(3) bad(4) at(5) all(6): five whitespace words it / isn't / bad / at / all
SENTENCE = "it isn't bad at all"


def test_a_top_span_repeated_across_inputs_is_counted() -> None:
    """A carrier token (the same top span on most inputs) scores near 1; inputs without a weighted span
    are left out, and fewer than ten top spans give no figure."""
    carried = explanation("a fine film .", {(3, 3): 1.0})
    assert top_span_text(carried) == "." and top_span_text(explanation("Fine Film", {(0, 1): 1.0})) == "fine film"
    assert top_span_text(explanation(SENTENCE, {})) == ""  # no alpha > 0: no top span
    texts = ["."] * 8 + ["fine", "dull", ""]
    values = repeated_top_span(texts)
    assert values[:8].tolist() == [1.0] * 8 and values[8:10].tolist() == [0.0, 0.0] and np.isnan(values[10])
    assert np.nanmean(values) == pytest.approx(0.8)
    assert np.isnan(repeated_top_span(["."] * 9 + [""])).all()  # nine top spans: too few to say
    assert np.nanmean(repeated_top_span([f"w{i}" for i in range(12)])) == pytest.approx(1 / 12)


def test_a_top_span_on_the_closing_punctuation_is_flagged() -> None:
    """The closing "." alone or with the word before it counts; a word, a "." inside the text, a top span
    of the other text of a pair that does not reach its end, and an input without weight do not."""
    # the(0) ending(1) rolls(2) .(3)
    assert closing_punctuation(explanation("the ending rolls .", {(2, 3): 0.9, (1, 1): 0.1})) == 1.0
    assert closing_punctuation(explanation("the ending rolls .", {(3, 3): 1.0})) == 1.0
    assert closing_punctuation(explanation("the ending rolls .", {(1, 1): 0.9, (2, 3): 0.1})) == 0.0
    assert closing_punctuation(explanation("the ending rolls", {(2, 2): 1.0})) == 0.0  # a last word, no "."
    assert closing_punctuation(explanation("dull . but fine", {(0, 1): 1.0})) == 0.0  # a "." mid-text
    assert np.isnan(closing_punctuation(explanation("the ending rolls .", {})))
    # premise: a(0) man(1) sings(2) .(3); hypothesis: someone(4) sings(5) .(6)
    pair = "someone sings ."
    assert closing_punctuation(explanation("a man sings .", {(5, 6): 1.0}, pair=pair)) == 1.0
    assert closing_punctuation(explanation("a man sings .", {(2, 3): 1.0}, pair=pair)) == 1.0
    assert closing_punctuation(explanation("a man sings .", {(4, 5): 1.0}, pair=pair)) == 0.0


def test_a_top_span_on_the_last_word_is_counted_with_or_without_the_full_stop() -> None:
    assert closing_word(explanation("the ending rolls .", {(2, 2): 0.9, (1, 1): 0.1})) == 1.0
    assert closing_word(explanation("the ending rolls .", {(2, 3): 1.0})) == 1.0
    assert closing_word(explanation("the ending rolls", {(1, 2): 1.0})) == 1.0
    assert closing_word(explanation("the ending rolls .", {(1, 1): 0.9, (2, 2): 0.1})) == 0.0
    assert closing_word(explanation("dull . but fine", {(0, 1): 1.0})) == 0.0
    assert np.isnan(closing_word(explanation("the ending rolls .", {})))
    assert np.isnan(closing_word(explanation("! ?", {(0, 0): 1.0})))  # no word at all
    pair = "someone sings ."  # premise a(0) man(1) sings(2) .(3); hypothesis someone(4) sings(5) .(6)
    assert closing_word(explanation("a man sings .", {(5, 5): 1.0}, pair=pair)) == 1.0
    assert closing_word(explanation("a man sings .", {(1, 1): 1.0}, pair=pair)) == 0.0


def test_words_and_top_span_length_in_words() -> None:
    e = explanation(SENTENCE, {(1, 4): 0.7, (4, 4): 0.3})
    words = words_of(e)
    assert words.of_token.tolist() == [0, 1, 1, 1, 2, 3, 4]
    assert words.start_char.tolist() == [0, 3, 9, 13, 16] and words.end_char.tolist() == [2, 8, 12, 15, 19]
    assert top_span_words(e) == 2.0  # "isn't bad": three pieces, two words
    assert nonzero_spans(e) == 2.0
    assert multi_span_share(e) == 1.0 and np.isnan(both_sides_share(e))
    one = explanation(SENTENCE, {(2, 2): 1.0})  # the "'" alone still touches one word
    assert top_span_words(one) == 1.0 and nonzero_spans(one) == 1.0
    assert multi_span_share(one) == 0.0
    assert np.isnan(top_span_words(explanation(SENTENCE, {})))  # no positive alpha: no top span


def test_both_sides_share_for_pairs() -> None:
    # premise: a(0) man(1) sings(2); hypothesis: someone(3) sings(4)
    both = explanation("a man sings", {(1, 1): 0.6, (3, 4): 0.4}, pair="someone sings")
    one = explanation("a man sings", {(1, 2): 1.0}, pair="someone sings")
    assert both_sides_share(both) == 1.0 and both_sides_share(one) == 0.0


def test_delete_chars_keeps_one_space() -> None:
    assert delete_chars(SENTENCE, 3, 12) == "it at all"
    assert delete_chars(SENTENCE, 0, 2) == "isn't bad at all"
    assert delete_chars(SENTENCE, 13, 19) == "it isn't bad"
    assert delete_chars("isn't", 0, 3) == "'t"  # no whitespace at the cut: none is added


def fake_probabilities(texts, pairs):  # class 1 (the prediction) at 0.9 while "bad" is in the text, else 0.4
    q = np.array([0.9 if "bad" in t.split() else 0.4 for t in texts])
    return np.stack([1 - q, q], axis=1)


def test_deletion_beats_random_on_hand_values() -> None:
    e = explanation(SENTENCE, {(1, 4): 0.7, (4, 4): 0.3})  # top span: words 1-2 "isn't bad"
    # two-word places in words 0..4 other than 1: 0, 2, 3; only 3 ("at all") does not overlap the top span
    assert random_places(words_of(e), 1, 2, np.random.default_rng(0)).tolist() == [3]
    assert deletion_variants(e, np.random.default_rng(0)) == [("it at all", None), ("it isn't bad", None)]
    (row,) = deletion_scores([e], fake_probabilities)
    assert row == {"deletion_beats_random": 1.0, "top_deletion_drop": pytest.approx(0.5), "random_deletion_drop": 0.0}
    other = explanation(SENTENCE, {(5, 5): 1.0})  # top span "at": deleting it keeps "bad", as do random places
    (row,) = deletion_scores([other], fake_probabilities)
    assert row["deletion_beats_random"] == 0.0 and row["top_deletion_drop"] == pytest.approx(0.0)
    (row,) = deletion_scores([explanation(SENTENCE, {(0, 6): 1.0})], fake_probabilities)  # whole text: no place
    assert np.isnan(row["deletion_beats_random"])


def test_random_places_are_seeded_apart_and_per_input() -> None:
    text = " ".join(f"w{i}" for i in range(20))
    e = explanation(text, {(8, 9): 1.0})
    words = words_of(e)
    places = random_places(words, 8, 9, np.random.default_rng([3, 7]), draws=5)
    assert places.size == 5 and len(set(places.tolist())) == 5
    assert ((places + 1 < 8) | (places > 9)).all() and (places <= 18).all()
    assert random_places(words, 8, 9, np.random.default_rng([3, 7]), draws=5).tolist() == places.tolist()
    calls: list[int] = []

    def counting(texts, pairs):
        calls.append(len(texts))
        return fake_probabilities(texts, pairs)

    rows = deletion_scores([e, e], counting, seed=3, first_index=6)
    assert calls == [12]  # both inputs' 1 + 5 variants in one call
    alone = deletion_scores([e], fake_probabilities, seed=3, first_index=7)
    assert rows[1] == alone[0]  # input 7 draws the same places whatever its batch


def test_deletion_in_a_pair_cuts_only_its_own_text() -> None:
    e = explanation("a bad man sings", {(1, 1): 1.0}, pair="someone sings", probabilities=(0.2, 0.8))
    variants = deletion_variants(e, np.random.default_rng(0))
    assert variants[0] == ("a man sings", "someone sings")
    assert all(pair == "someone sings" and len(text.split()) == 3 for text, pair in variants)


def view(scores: list[float], contributions: list[list[float]], normaliser: str = "softmax") -> SpanView:
    """A span view of ``V`` spans (token ``v`` alone each) with two classes and no bias."""
    s = np.array(scores)
    keep = torch.ones(1, s.size, dtype=torch.bool)
    alpha = normalise(normaliser, torch.from_numpy(s)[None], keep)[0].numpy()  # type: ignore[arg-type]
    places = np.arange(s.size)
    return SpanView(s, alpha, np.array(contributions, float), np.zeros(2), places, places, normaliser)


def test_top_out_flip_renormalises_the_rest() -> None:
    # span 0 carries class 1; without it the rest (class 0) decides
    assert top_out_flip(view([2.0, 0.0, 0.0], [[0, 5], [1, 0], [1, 0]])) == 1.0
    assert top_out_flip(view([2.0, 0.0, 0.0], [[0, 5], [0, 1], [0, 1]])) == 0.0  # the rest decides the same
    assert top_out_flip(view([2.0, 1.9, 0.0], [[0, 5], [0, 3], [9, 0]], "sparsemax")) == 0.0  # span 1 takes over
    sparse = view([2.0, 0.0, -3.0], [[0, 5], [1, 0], [0, 9]], "sparsemax")
    assert sparse.alpha.tolist() == [1.0, 0.0, 0.0]  # one nonzero span; removing it gives span 1 all alpha
    assert top_out_flip(sparse) == 1.0
    assert np.isnan(top_out_flip(view([1.0], [[0, 1]])))


TREES = "(0 (2 a) (0 (1 dull) (2 film)))\n"


def test_sst_phrase_agreement(tmp_path) -> None:
    from selfexplain.lab.plausibility.sst_phrases import phrase_index

    path = tmp_path / "trees.txt"
    path.write_text(TREES, encoding="utf-8")
    phrases = phrase_index(path)
    negative, neutral = (0.1, 0.6, 0.1, 0.1, 0.1), (0.1, 0.1, 0.6, 0.1, 0.1)

    def agreement(weights, probabilities=negative, text="a dull film"):
        return sst_phrase_agreement(explanation(text, weights, probabilities=probabilities, labels=SST5), phrases)

    assert agreement({(1, 1): 1.0}) == 1.0  # "dull" (1) and a negative prediction
    assert agreement({(1, 2): 1.0}) == 1.0  # "dull film" (0)
    assert agreement({(2, 2): 1.0}) == 0.0  # "film" (2, neutral) against negative
    assert agreement({(2, 2): 1.0}, neutral) == 1.0  # ... and against neutral
    assert np.isnan(agreement({(0, 1): 1.0}))  # "a dull" is no phrase of the tree
    assert np.isnan(agreement({(1, 1): 1.0}, text="a dull movie"))  # not in the tree file
    assert np.isnan(agreement({}))  # no top span


def test_rationale_token_f1_is_the_plausibility_number() -> None:
    docs = [explanation(SENTENCE, {(4, 4): 0.8, (0, 0): 0.2}), explanation(SENTENCE, {(5, 6): 1.0})]
    rationales = [[(9, 12)], [(3, 8)]]  # "bad"; "isn't"
    scores = alpha_token_f1s(docs, rationales)
    # human shares 1/7 and 3/7 -> budget round(2/7 * 7) = 2 tokens: "bad" + "it" (P 1/2, R 1); "at all" misses
    assert scores.tolist() == [pytest.approx(2 / 3), 0.0]
    assert float(scores.mean()) == plausibility(docs, rationales)["alpha"]["token_f1"]
    assert np.isnan(alpha_token_f1s([*docs, docs[0]], [*rationales, []])[2])


def test_summary_median_counts_notes_and_nan() -> None:
    rows = [
        {"max_alpha": 1.0, "top_span_words": 1.0, "deletion_beats_random": 1.0, "both_sides_share": np.nan},
        {"max_alpha": 0.5, "top_span_words": 2.0, "deletion_beats_random": np.nan, "both_sides_share": np.nan},
        {"max_alpha": 0.6, "top_span_words": 9.0, "deletion_beats_random": 0.0, "both_sides_share": np.nan},
    ]
    summary = summarise(rows)
    assert summary["top_span_words"] == 2.0  # the median, not the mean (4.0)
    assert summary["max_alpha"] == pytest.approx(0.7) and "n:max_alpha" not in summary
    assert summary["deletion_beats_random"] == 0.5 and summary["n:deletion_beats_random"] == 2.0
    assert np.isnan(summary["both_sides_share"])
    table = summary_rows(summary)
    assert [r["measure"] for r in table] == [
        "mean largest alpha",
        "median top-span length in words",
        "deleting the top span beats deleting a random span",
    ]  # both_sides_share (NaN: no pairs) is left out
    assert table[0]["note"] == "automatic when alpha has one span" and table[1]["note"] == ""
    assert table[1]["better"] == "" and table[2]["better"] == "higher" and table[2]["inputs"] == 2
    markdown = markdown_summary({"m": summary})
    assert "mean largest alpha † ↑" in markdown and "| 0.500 (n=2) |" in markdown
    assert "pairs with alpha > 0 on both sides" not in markdown and "† automatic when alpha has one span" in markdown


def test_registry_names_and_one_span_marks() -> None:
    keys, measures = list(MEASURES), list(MEASURES.values())
    assert keys == [m.key for m in measures]
    assert len(keys) == len(set(keys))
    new = {"top_span_words", "nonzero_spans", "multi_span_share", "both_sides_share", "deletion_beats_random"}
    assert MEASURES["closing_punctuation"].higher_is_better is False
    assert new | {"top_out_flip", "sst_phrase_agreement", "rationale_token_f1"} <= set(keys)
    assert {m.key for m in measures if m.trivial_when_one_span} == {"max_alpha", "effective_spans", "top3_mass"}
