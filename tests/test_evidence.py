"""Evidence that is evidence (issue 23, item 1): a span with alpha 0 is never listed, highlighted, ranked
or counted, in the library, the JSON, the CLI, the report, the grids and the batch records; softmax
alpha (no exact zeros) keeps working as before. Also the hover/click rank rule (defect 2) and plain-text
hover titles (defect 4)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pytest
from evidence_models import SENTENCE, save_sparse, sparse_explainer
from test_explanation import make_explanation

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.explanation import Explanation, Token, evidence_ranks
from selfexplain.core.results.words import group_span_at, word_view
from selfexplain.views.evidence import selected_caption, weight_sentence
from selfexplain.views.figures import grid_data, span_grid_figure, span_table
from selfexplain.views.highlight import highlight_html
from selfexplain.views.html_report import report_html


@pytest.fixture(scope="module")
def one_span(tiny_encoder: Path) -> SelfExplainer:
    return sparse_explainer(tiny_encoder, peak=30.0)


@pytest.fixture(scope="module")
def few_spans(tiny_encoder: Path) -> SelfExplainer:
    return sparse_explainer(tiny_encoder, peak=1.0)


def hand_made(alpha: dict[tuple[int, int], float], n: int = 4) -> Explanation:
    text = " ".join(f"w{i}" for i in range(n))
    tokens = tuple(Token(f"w{i}", 3 * i, 3 * i + 2, 0, f"w{i}") for i in range(n))
    mask = np.triu(np.ones((n, n), dtype=bool))
    matrix = np.zeros((n, n))
    for (i, j), value in alpha.items():
        matrix[i, j] = value
    return Explanation(text, None, tokens, ("neg", "pos"), np.array([0.3, 0.7]), matrix, mask, "demo", span_unit="word")


def test_evidence_spans_skip_zeros_and_zero_spans_have_no_rank() -> None:
    exp = hand_made({(1, 2): 0.7, (0, 0): 0.3})
    assert exp.num_evidence == 2 and int(exp.span_mask.sum()) == 10
    assert [(s.text, s.rank) for s in exp.evidence_spans(5)] == [("w1 w2", 1), ("w0", 2)]
    assert exp.evidence_spans(None) == exp.evidence_spans(20) == exp.top_spans(2)
    assert [s.rank for s in exp.spans][2:] == [0] * 8  # listed only when every span is asked for
    assert exp.span_at(3, 3).rank == 0 and not exp.span_at(3, 3).ranked
    assert [s.text for s in exp.top_spans_non_overlapping(5)] == ["w1 w2", "w0"]  # no zero span fills the rest
    ranks = evidence_ranks(exp.alpha, exp.span_mask)
    assert ranks[1, 2] == 1 and ranks[0, 0] == 2 and (ranks > 0).sum() == 2


def test_softmax_alpha_is_unchanged() -> None:
    exp = make_explanation()
    assert exp.num_evidence == 21
    assert exp.evidence_spans(20) == exp.top_spans(20) and [s.rank for s in exp.spans] == list(range(1, 22))
    assert weight_sentence(exp.evidence_spans(20), exp.num_evidence, 21) is None  # nothing to say


def test_json_lists_evidence_and_top_k_none_lists_every_span() -> None:
    exp = hand_made({(1, 2): 1.0})
    data = json.loads(json.dumps(exp.to_dict(top_k=10)))
    assert [s["text"] for s in data["spans"]] == ["w1 w2"]
    assert data["num_evidence_spans"] == 1 and data["num_valid_spans"] == 10
    every = exp.to_dict(top_k=None)["spans"]
    assert len(every) == 10 and [s["rank"] for s in every] == [1] + [0] * 9


def test_one_phrase_and_a_few_phrases_in_words(one_span: SelfExplainer, few_spans: SelfExplainer) -> None:
    single = one_span.explain(SENTENCE)
    assert single.num_evidence == 1
    sentence = weight_sentence(single.evidence_spans(20), 1, int(single.span_mask.sum()))
    assert sentence == f"One phrase carries 100% of the weight: “{single.evidence_spans(1)[0].text}”."
    several = few_spans.explain(SENTENCE)
    count = several.num_evidence
    assert 2 <= count < 20
    sentence = weight_sentence(several.evidence_spans(20), count, int(several.span_mask.sum()))
    assert sentence is not None and sentence.startswith(f"{count} phrases carry all the weight: ")
    assert "have alpha 0 and are not shown" in sentence
    hostile = Explanation("<b>x</b>", None, (Token("<b>x</b>", 0, 8),), ("a", "b"), np.array([1.0, 0.0]),
                          np.ones((1, 1)), np.ones((1, 1), dtype=bool))  # fmt: skip
    assert "<b>" not in (weight_sentence(hostile.evidence_spans(1), 1, 1) or "")


def test_table_report_and_highlight_show_no_zero_span(one_span: SelfExplainer) -> None:
    exp = one_span.explain(SENTENCE)
    table = span_table(exp, 20)
    assert len(table) == 1 and table.loc[0, "alpha"] > 0
    report = report_html(exp, exp.top_spans_non_overlapping(5), [])
    rows = re.findall(r"<tr><td>(\d+)</td>", report)
    assert rows == ["1"]  # was: 20 rows, 19 of them alpha 0 in text order
    assert "Top 20 spans" not in report and "One phrase carries 100% of the weight" in report
    page = highlight_html(exp, exp.top_spans_non_overlapping(5))
    assert page.count("<mark") == 1


def test_hover_and_click_give_a_zero_cell_the_same_words(few_spans: SelfExplainer) -> None:
    """Defect 2: hovering a cell said "rank 51, alpha 0.0000" and clicking it "Selected: rank 2, alpha
    0.0000". A zero cell has no rank in the grid, the click, the caption or the highlight title."""
    exp = few_spans.explain(SENTENCE)
    for level in ("word", "token"):
        alpha, ranks, *_ = grid_data(exp, level)
        view = word_view(exp) if level == "word" else None
        rows, cols = np.nonzero(~np.isnan(alpha))
        for i, j in zip(rows.tolist(), cols.tolist()):
            clicked = group_span_at(exp, i, j, view) if view is not None else exp.span_at(i, j)
            assert clicked is not None and clicked.rank == ranks[i, j], (level, i, j)
            assert (clicked.rank == 0) == (clicked.alpha == 0)
        assert set(ranks[ranks > 0].tolist()) == set(range(1, int((ranks > 0).sum()) + 1))
    figure = span_grid_figure(exp, level="word")
    ranked, zeros = figure.data[1], figure.data[2]
    assert "rank %{customdata[3]}" in ranked.hovertemplate and "not ranked" in zeros.hovertemplate
    assert "rank" not in zeros.hovertemplate.replace("not ranked", "")
    assert all(c[3] == 0 and c[2] == 0 for c in zeros.customdata) and all(c[3] > 0 for c in ranked.customdata)
    zero_span = next(s for s in exp.spans if s.alpha == 0)
    assert selected_caption(zero_span) == "Selected: alpha 0, not ranked (this span carries no weight)"
    best = exp.evidence_spans(1)[0]
    assert selected_caption(best) == f"Selected: rank 1, alpha {best.alpha:.4f}"


def test_hover_titles_are_plain_text() -> None:
    """Defect 4: a span holding a paragraph break showed a literal ``<br><br>`` in its hover title."""
    text = "First paragraph ends.\n\nSecond <b>one</b> & more."
    tokens = (Token("First paragraph ends.", 0, 21), Token("Second <b>one</b> & more.", 23, len(text)))
    mask = np.triu(np.ones((2, 2), dtype=bool))
    exp = Explanation(text, None, tokens, ("a", "b"), np.array([0.5, 0.5]), np.array([[0.2, 0.8], [0.0, 0.0]]), mask)
    page = highlight_html(exp, exp.evidence_spans(2))
    titles = re.findall(r'title="([^"]*)"', page)
    assert titles and all("<" not in t and "&lt;br" not in t and "&#60;br" not in t for t in titles)
    shown = html.unescape(titles[0])
    assert shown == "rank 1 · alpha 0.8000 · First paragraph ends. Second <b>one</b> & more."
    assert "<br>" in page  # the text itself keeps its paragraph break


@pytest.mark.slow
def test_batch_records_and_cli_list_no_zero_span(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from selfexplain.batch.reader import Row
    from selfexplain.batch.records import explanation_record
    from selfexplain.cli import main

    folder = save_sparse(tiny_encoder, tmp_path / "tiny-sparse", peak=30.0)
    explainer = sparse_explainer(tiny_encoder, peak=30.0)
    record = explanation_record(Row(0, 1, SENTENCE), explainer.explain(SENTENCE), None, False, None)
    assert len(record["spans"]) == 1 and record["spans"][0]["rank"] == 1
    assert main(["explain", SENTENCE, "--model", str(folder), "--json", "--top-k", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["alpha"] > 0 for s in data["spans"]] == [True] and data["num_evidence_spans"] == 1
    assert main(["explain", SENTENCE, "--model", str(folder), "--json", "--top-k", "0"]) == 0
    every = json.loads(capsys.readouterr().out)["spans"]
    assert len(every) == data["num_valid_spans"]  # --top-k 0: every valid span, as --help says
    assert all(s["rank"] == 0 for s in every if s["alpha"] == 0)


def test_a_pin_says_how_many_spans_it_holds() -> None:
    from selfexplain.views.evidence import kept_caption

    assert kept_caption(1, 1, 38).startswith("The pin keeps the one span that carries weight (the other 37 of 38")
    assert kept_caption(3, 3, 38).startswith("The pin keeps all 3 spans that carry weight (the other 35 of 38")
    assert kept_caption(20, 38, 38).startswith("The pin keeps the top 20 of the 38 spans that carry weight;")
    assert "top 20" not in kept_caption(1, None, 38) and "1 span with weight, of 38" in kept_caption(1, None, 38)
