"""Long documents: the sparse Document against the dense windowed Explanation, its parts and
windows, the character-limit setting (environment and --max-chars), and the app's document view."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from selfexplain.cli import main
from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.modeling.normalisers import entmax15, on_candidates, sparsemax
from selfexplain.errors import InvalidInputError
from selfexplain.support.limits import MAX_CHARS_VARIABLE, max_chars_setting, max_input_chars, max_spans
from selfexplain.views.document import (
    document_highlight_html,
    part_attention_figure,
    parts_overview_figure,
    top_spans_table,
)
from selfexplain.views.figures import span_grid_figure

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PARAGRAPHS, SENTENCES = 6, 5  # sentences per paragraph


def long_text(paragraphs: int = PARAGRAPHS) -> str:
    """Paragraphs (blank-line separated) of distinct sentences: about 60 tokens a paragraph."""
    return "\n\n".join(
        " ".join(f"The plot{p} scene {s} was fine, but the cast{s} felt slow." for s in range(SENTENCES))
        for p in range(paragraphs)
    )


@pytest.fixture(scope="module", params=["softmax", "sparsemax"])
def explainer(request, tiny_encoder: Path):
    """Tiny models (128 positions, so windows of 126 tokens) with overlapping windows (stride 64)."""
    return make_explainer(tiny_encoder, seed=3, window_stride=64, normaliser=request.param)


@pytest.fixture(scope="module")
def pair(explainer):
    text = long_text()
    return explainer.explain_document(text), explainer.explain_long(text), text


def test_document_holds_the_dense_explanation_sparsely(pair) -> None:
    document, dense, _ = pair
    assert len(document.window_starts) >= 4 and document.window_starts == dense.windows
    assert document.starts.ndim == document.ends.ndim == document.alpha.ndim == 1
    assert document.alpha.dtype == np.float32 and document.starts.dtype == np.int32
    assert document.num_spans == int(dense.span_mask.sum())
    order = np.lexsort((document.ends, document.starts))
    assert (order == np.arange(document.num_spans)).all()  # ordered by (start, end)
    np.testing.assert_array_equal(dense.alpha[document.starts, document.ends], document.alpha)
    assert dense.span_mask[document.starts, document.ends].all()
    np.testing.assert_allclose(document.probabilities, dense.probabilities)
    assert float(document.alpha.sum()) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("k", [1, 7, 60, 400])
def test_top_spans_equal_the_dense_top_spans(pair, k: int) -> None:
    document, dense, _ = pair
    assert [s.to_dict() for s in document.top_spans(k)] == [s.to_dict() for s in dense.top_spans(k)]


def test_sparse_top_spans_break_ties_by_position(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, window_stride=64, normaliser="sparsemax")
    document = explainer.explain_document(long_text())
    support = int((document.alpha > 0).sum())
    spans = document.top_spans(support + 5)  # the last five are zeros: the earliest spans by position
    zeros = spans[support:]
    assert all(s.alpha == 0 for s in zeros)
    first_zero = np.flatnonzero(document.alpha == 0)[:5]
    assert [(s.start_token, s.end_token) for s in zeros] == list(
        zip(document.starts[first_zero].tolist(), document.ends[first_zero].tolist())
    )


@pytest.mark.parametrize("level, count", [("sentence", PARAGRAPHS * SENTENCES), ("paragraph", PARAGRAPHS)])
def test_part_masses_and_across_mass_sum_to_one(pair, level: str, count: int) -> None:
    document, dense, text = pair
    parts = document.parts(level)
    assert len(parts) == count
    assert parts.mass.sum() + parts.across == pytest.approx(1.0, abs=1e-5)
    for index in range(count):
        a, b = int(parts.token_starts[index]), int(parts.token_ends[index])
        assert parts.mass[index] == pytest.approx(float(dense.alpha[a:b, a:b].sum()), abs=1e-6)
        assert parts.text(text, index) == text[int(parts.char_starts[index]) : int(parts.char_ends[index])]
    assert parts.across > 0  # the tiny model's alpha is spread: some spans cross every boundary
    part_of = parts.part_of_token
    rows, cols = np.nonzero(dense.span_mask)
    for index in range(count):  # touching: every span inside the part or crossing into it
        reach = (part_of[rows] <= index) & (part_of[cols] >= index)
        assert parts.touching[index] == pytest.approx(float(dense.alpha[rows[reach], cols[reach]].sum()), abs=1e-6)
    assert parts.text(text, 1).startswith("The plot0 scene 1") if level == "sentence" else True
    if level == "paragraph":
        assert parts.text(text, 2) == text.split("\n\n")[2]


@pytest.mark.parametrize("level", ["sentence", "paragraph"])
def test_part_is_the_dense_alpha_restricted_to_the_part(pair, level: str) -> None:
    document, dense, text = pair
    parts = document.parts(level)
    for index in (0, len(parts) // 2, len(parts) - 1):
        part = document.part(index, level)
        a, b = int(parts.token_starts[index]), int(parts.token_ends[index])
        np.testing.assert_array_equal(part.alpha, dense.alpha[a:b, a:b])  # not renormalised
        np.testing.assert_array_equal(part.span_mask, dense.span_mask[a:b, a:b])
        assert part.text == parts.text(text, index) and part.span_unit == dense.span_unit
        assert [t.text for t in part.tokens] == [t.text for t in dense.tokens[a:b]]
        assert all(part.text[t.start : t.end] == t.text for t in part.tokens)
        top = part.top_spans(1)[0]
        assert top.text == part.text[top.start_char : top.end_char]
        grid = span_grid_figure(part, level="word")  # an existing figure works on a part
        assert np.asarray(grid.data[0].z).shape[0] <= 120


def test_window_of_holds_the_part_nearest_its_middle(pair) -> None:
    document, _, _ = pair
    parts = document.parts("sentence")
    lo = np.asarray(document.window_starts)
    hi = np.minimum(lo + document.window_size, document.num_tokens)
    for index in range(len(parts)):
        a, b = int(parts.token_starts[index]), int(parts.token_ends[index])
        w = document.window_of(index)
        assert lo[w] <= a and b <= hi[w]
        holders = np.flatnonzero((lo <= a) & (b <= hi))
        assert abs(lo[w] + hi[w] - a - b) == min(abs(lo[h] + hi[h] - a - b) for h in holders)


def test_window_attentions_equal_the_window_run_alone(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, window_stride=64)
    text = " ".join(["the film was good but very slow ."] * 60)  # whole-word tokens: a cut is a clean cut
    document = explainer.explain_document(text)
    window = explainer.window_attentions(text, document.window_starts[0])
    layers, heads = 2, 2
    assert window.attentions.shape == (layers, heads, 128, 128)
    np.testing.assert_allclose(window.attentions.sum(axis=-1), 1.0, atol=1e-5)
    assert window.tokens[0] == "[CLS]" and window.tokens[-1] == "[SEP]"
    assert (window.token_index[1:-1] == np.arange(126)).all()
    alone = explainer.explain(text[: document.tokens[125].end])  # the first window's 126 tokens
    np.testing.assert_allclose(window.attentions, alone.attentions, atol=1e-5)
    later = explainer.window_attentions(text, document.window_starts[2])
    assert later.token_index[1] == document.window_starts[2]
    keep = later.positions(later.token_index[1] + 5, later.token_index[1] + 20)
    assert later.tokens[keep[0]] == "[CLS]" and len(keep) == 16
    figure = part_attention_figure(later, 3, later.token_index[1] + 5, later.token_index[1] + 20, "rollout")
    assert figure.layout.title.text == "Raw self-attention, window 3 (rollout)"
    assert np.asarray(figure.data[0].z).shape == (16, 16)


def test_overview_figure_and_table(pair) -> None:
    document, _, _ = pair
    parts = document.parts("sentence")
    figure = parts_overview_figure(document, parts, selected=3)
    inside, crossing = figure.data
    assert len(inside.y) == len(parts) and list(inside.customdata) == list(range(len(parts)))
    np.testing.assert_allclose(inside.y, parts.mass)
    np.testing.assert_allclose(np.asarray(inside.y) + np.asarray(crossing.y), parts.touching, atol=1e-9)
    assert figure.layout.barmode == "stack" and inside.marker.line.width[3] > 0 == inside.marker.line.width[2]
    assert f"hold {1 - parts.across:.1%} of alpha" in figure.layout.title.text
    table = top_spans_table(document, parts, 5)
    assert list(table["rank"]) == [1, 2, 3, 4, 5]
    assert table["alpha"].tolist() == [s.alpha for s in document.top_spans(5)]
    assert table["sentence"].tolist() == [int(parts.part_of_token[s.start_token]) + 1 for s in document.top_spans(5)]


def test_highlight_shows_the_paragraphs_the_spans_touch_escaped(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, window_stride=64)
    text = long_text().replace("scene 3", "<script>alert(1)</script> scene 3")
    document = explainer.explain_document(text)
    paragraphs = document.parts("paragraph")
    spans = document.top_spans(3)
    html = document_highlight_html(document, spans, paragraphs)
    touched = {
        p
        for s in spans
        for p in range(len(paragraphs))
        if paragraphs.char_starts[p] < s.end_char and paragraphs.char_ends[p] > s.start_char
    }
    assert html.count("<p>") == len(touched) < PARAGRAPHS and "[…]" in html
    assert html.count("<mark") >= len(spans) and "<script" not in html
    assert "&#60;script&#62;" in html or not any("script" in paragraphs.text(text, p) for p in touched)


def test_explain_long_refuses_what_a_dense_grid_cannot_hold(explainer, monkeypatch) -> None:
    monkeypatch.setattr("selfexplain.core.inputs.windows.DENSE_MAX_TOKENS", 100)
    with pytest.raises(InvalidInputError, match="explain_document"):
        explainer.explain_long(long_text())
    assert explainer.explain_document(long_text()).num_tokens > 100


def test_candidate_normalisers_match_the_full_ones() -> None:
    import torch

    generator = torch.Generator().manual_seed(0)
    for scale in (0.1, 1.0, 5.0):
        logits = torch.randn(3, 4000, generator=generator) * scale
        valid = torch.rand(3, 4000, generator=generator) > 0.3
        assert torch.equal(on_candidates("sparsemax", logits, valid), sparsemax(logits, valid))
        torch.testing.assert_close(on_candidates("entmax15", logits, valid), entmax15(logits, valid))


def test_max_chars_setting(monkeypatch) -> None:
    monkeypatch.delenv(MAX_CHARS_VARIABLE, raising=False)
    assert max_input_chars() == 100_000 and max_spans() == 20_000_000
    monkeypatch.setenv(MAX_CHARS_VARIABLE, "250_000")
    assert max_input_chars() == 250_000
    with max_chars_setting("1,000"):
        assert max_input_chars() == 1000
    assert max_input_chars() == 250_000  # restored
    for bad in ("lots", "-5", "0", "1e5"):
        monkeypatch.setenv(MAX_CHARS_VARIABLE, bad)
        with pytest.raises(InvalidInputError, match=MAX_CHARS_VARIABLE):
            max_input_chars()


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("selfexplain: error:")
    return err


@pytest.mark.parametrize("setting", ["default", "variable", "flag"])
def test_explain_takes_a_100k_character_document(
    setting: str, tiny_model_dir: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv(MAX_CHARS_VARIABLE, raising=False)
    if setting == "variable":
        monkeypatch.setenv(MAX_CHARS_VARIABLE, "100000")
    flag = ["--max-chars", "100,000"] if setting == "flag" else []
    sentence = "The plot was fine, but the cast felt slow and the ending dragged on. "
    text = (sentence * (100_000 // len(sentence) + 1))[:100_000]
    path = tmp_path / "doc.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["explain", "--file", str(path), "--model", str(tiny_model_dir), "--json", "--top-k", "3", *flag]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["windows"]) > 100 and len(data["spans"]) == 3 and data["flip"] is None
    assert data["spans"][0]["alpha"] >= data["spans"][1]["alpha"] > 0
    assert data["tokens"][-1]["end"] <= 100_000 and data["num_valid_spans"] > 1_000_000
    path.write_text(text + ".", encoding="utf-8")
    assert main(["explain", "--file", str(path), "--model", str(tiny_model_dir), *flag]) == 2
    assert "holds more than 100,000 characters, the limit" in one_line_error(capsys)


def test_max_chars_flag_and_variable_on_the_commands(tiny_model_dir: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    model = ["--model", str(tiny_model_dir)]
    monkeypatch.setenv(MAX_CHARS_VARIABLE, "40")
    assert main(["explain", "a fine film with a slow middle and a warm end", *model]) == 2
    assert "the limit is 40" in one_line_error(capsys)
    assert main(["explain", "a fine film with a slow middle and a warm end", "--max-chars", "100", *model]) == 0
    capsys.readouterr()
    assert max_input_chars() == 40  # the flag applies to its command only
    monkeypatch.delenv(MAX_CHARS_VARIABLE)
    assert main(["explain", "a film", "--max-chars", "ten", *model]) == 2
    assert "--max-chars must be a whole number" in one_line_error(capsys)
    monkeypatch.setenv(MAX_CHARS_VARIABLE, "nope")
    assert main(["explain", "a film", *model]) == 2
    assert MAX_CHARS_VARIABLE in one_line_error(capsys)
    monkeypatch.delenv(MAX_CHARS_VARIABLE)
    data = tmp_path / "data.txt"
    data.write_text("3 a warm and funny film\n1 " + "slow " * 30 + "\n", encoding="utf-8")
    assert main(["eval", "--data", str(data), "--no-progress", "--max-chars", "100", *model]) == 2
    assert "example 2 has 149 characters; the limit is 100" in one_line_error(capsys)
    assert main(["eval", "--data", str(data), "--no-progress", "--max-chars", "200", *model]) == 0
    out = tmp_path / "out.jsonl"
    rows = tmp_path / "rows.txt"
    rows.write_text("a warm and funny film\n" + "slow " * 30 + "\n", encoding="utf-8")
    assert main(["batch", str(rows), "--out", str(out), "--no-progress", "--max-chars", "100", *model]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["truncated"] for r in records] == [False, True]  # batch cuts a row over the limit
    out = tmp_path / "out-200.jsonl"
    assert main(["batch", str(rows), "--out", str(out), "--no-progress", "--max-chars", "200", *model]) == 0
    assert [json.loads(line)["truncated"] for line in out.read_text(encoding="utf-8").splitlines()] == [False, False]
    from selfexplain.cli import build_parser

    assert build_parser().parse_args(["faithfulness", "--data", "x", "--out", "y", "--max-chars", "5"]).max_chars == "5"


@pytest.fixture(scope="module")
def app_model(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    explainer = make_explainer(tiny_encoder, seed=3, window_stride=64)
    directory = tmp_path_factory.mktemp("doc-models") / "tiny-doc"
    save_model(explainer.model, explainer.tokenizer, directory)
    return directory


def heatmap_shapes(at: AppTest) -> dict[str, list[tuple[int, ...]]]:
    found: dict[str, list[tuple[int, ...]]] = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        title = (spec.get("layout", {}).get("title") or {}).get("text", "")
        shapes = []
        for trace in spec.get("data", []):
            if trace.get("type") == "heatmap":
                z = trace["z"]
                shapes.append(
                    tuple(int(n) for n in str(z["shape"]).split(","))
                    if isinstance(z, dict)
                    else (len(z), len(z[0]) if z else 0)
                )
        found[title] = shapes
    return found


@pytest.mark.slow
def test_app_shows_a_long_text_as_a_document(app_model: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(app_model)).run()
    at.text_area(key="text").input(long_text(16)).run()  # over 1,000 tokens
    assert not at.exception and not at.error
    assert any("Limit 100,000 characters" in caption.value for caption in at.caption)
    charts = heatmap_shapes(at)
    overview = next(title for title in charts if title.startswith("Where the alpha mass lies"))
    assert "16 paragraphs" in overview  # several paragraphs: they are the default parts
    grid = next(title for title in charts if title.startswith("Self-explaining alpha over spans"))
    attention = next(title for title in charts if title.startswith("Raw attention, window"))
    assert charts[grid] and charts[attention]
    for shapes in charts.values():
        assert all(rows <= 120 and cols <= 120 for rows, cols in shapes)
    assert at.metric[0].value  # the prediction
    at.selectbox(key="doc_part").set_value(7).run()
    assert not at.exception
    assert any("P8: tokens" in caption.value for caption in at.caption)
    at.segmented_control(key="doc_level").set_value("sentence").run()
    assert not at.exception
    assert any(title.startswith("Where the alpha mass lies: 80 sentences") for title in heatmap_shapes(at))
    assert any(caption.value.startswith("S") and ": tokens" in caption.value for caption in at.caption)


def test_app_says_when_the_character_limit_setting_is_bad(app_model: Path, monkeypatch) -> None:
    monkeypatch.setenv(MAX_CHARS_VARIABLE, "lots")
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    assert any("Cannot explain anything" in e.value and "whole number of characters" in e.value for e in at.error)
