"""AppTest checks of the Batch and Explorer pages with a small uploaded file."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import build_tiny_encoder, make_explainer, open_page
from streamlit.testing.v1 import AppTest

from selfexplain.batch.export import to_jsonl
from selfexplain.core.modeling.checkpoint import save_model

ROOT = Path(__file__).resolve().parents[1]
BATCH = str(ROOT / "pages" / "6_Batch.py")
EXPLORER = str(ROOT / "pages" / "7_Explorer.py")
DATA = b"text,label\na lovely warm film,positive\n,neutral\nslow and dull,0\nfun story,4\n"


def test_batch_page_upload_run_filter(tiny_model_dir: Path) -> None:
    at = open_page(BATCH, tiny_model_dir)
    assert not at.exception and any("Upload a file" in i.value for i in at.info)
    at.file_uploader(key="batch_file").set_value(("reviews.csv", DATA, "text/csv")).run()
    assert not at.exception
    assert at.selectbox(key="batch_text_col").value == "text"
    assert at.selectbox(key="batch_label_col").value == "label"
    assert "row 2 (line 3): empty text in column 'text'" in at.warning[0].value
    at.button(key="batch_run").click().run()
    assert not at.exception
    assert any("Explained 4 rows" in s.value for s in at.success)
    table = at.dataframe
    assert list(table[0].value["error"]) == ["row 2 (line 3): empty text in column 'text'"]
    results = table[1].value
    assert list(results["row"]) == [1, 3, 4]
    assert set(results.columns) >= {"text", "label", "confidence", "top_spans", "gold", "correct"}
    job = at.session_state["batch_job"]
    assert [r["gold"] for r in job["records"]] == ["positive", None, "very negative", "very positive"]
    assert max(len(r["spans"]) for r in job["records"]) == 10  # the default "spans kept per row"
    wrong = sum(r["correct"] is False for r in job["records"])
    at.selectbox(key="batch_filter_correct").set_value("wrong").run()
    assert len(at.dataframe[1].value) == wrong
    assert len(at.get("download_button")) == 3  # CSV, JSONL, HTML report
    assert not at.exception
    # visiting another page clears the uploader; the results stay
    at.file_uploader(key="batch_file").set_value(None).run()
    assert not at.exception and any("kept from your last run" in i.value for i in at.info)
    assert list(at.dataframe[-1].value["row"]) == [1, 3, 4] or len(at.dataframe) >= 1


@pytest.mark.slow
def test_batch_page_guesses_columns_by_the_projects_usual_names(tiny_model_dir: Path, tmp_path: Path) -> None:
    at = open_page(BATCH, tiny_model_dir)
    at.file_uploader(key="batch_file").set_value(("r.csv", b"id,sentence,y\n1,a warm film,4\n", "text/csv")).run()
    assert not at.exception
    assert (at.selectbox(key="batch_text_col").value, at.selectbox(key="batch_label_col").value) == ("sentence", "y")
    at.file_uploader(key="batch_file").set_value(("r.csv", b"id,body\n1,a warm film\n", "text/csv")).run()
    assert (at.selectbox(key="batch_text_col").value, at.selectbox(key="batch_label_col").value) == ("id", "(none)")
    pair = make_explainer(build_tiny_encoder(tmp_path / "encoder"), pair=True)
    save_model(pair.model, pair.tokenizer, tmp_path / "tiny-nli")
    at = open_page(BATCH, tmp_path / "tiny-nli")
    data = b"gold,premise,hypothesis,id\nentailment,a dog runs,an animal moves,1\n"
    at.file_uploader(key="batch_file").set_value(("nli.csv", data, "text/csv")).run()
    assert not at.exception
    picked = [at.selectbox(key=k).value for k in ("batch_text_col", "batch_pair_col", "batch_label_col")]
    assert picked == ["premise", "hypothesis", "gold"]
    at.file_uploader(key="batch_file").set_value(("nli.csv", b"text,id,pair\na,1,b\n", "text/csv")).run()
    assert [at.selectbox(key=k).value for k in ("batch_text_col", "batch_pair_col")] == ["text", "pair"]


def test_batch_page_offers_a_sample_file(tiny_model_dir: Path) -> None:
    at = open_page(BATCH, tiny_model_dir)
    assert not at.exception
    assert len(at.get("download_button")) == 1
    from pages.ui.examples import sample_csv

    csv = sample_csv()
    assert csv.startswith("text,label\n") and csv.count("\n") == 41


def test_try_the_sample_runs_it_in_one_click(tiny_model_dir: Path) -> None:
    """Defect 12: "Sample file" only downloaded the CSV; the user had to upload it again to try it."""
    at = open_page(BATCH, tiny_model_dir)
    at.button(key="batch_try_sample").click().run()
    assert not at.exception and not at.error
    assert any("Explained 40 rows" in s.value for s in at.success)
    job = at.session_state["batch_job"]
    assert len(job["records"]) == 40 and job["labelled"] and job["file_name"] == "selfexplain-sample-reviews.csv"
    names = ("very negative", "negative", "neutral", "positive", "very positive")
    assert all(r["gold"] in names for r in job["records"])
    assert len(at.dataframe[-1].value) == 40  # the results table, ready to filter and download
    at.file_uploader(key="batch_file").set_value(("reviews.csv", DATA, "text/csv")).run()  # an upload replaces it
    assert at.selectbox(key="batch_text_col").value == "text" and not at.exception


def test_batch_page_explains_bad_files(tiny_model_dir: Path) -> None:
    at = open_page(BATCH, tiny_model_dir)
    at.file_uploader(key="batch_file").set_value(("latin.csv", "text\ncaf\xe9\n".encode("latin-1"), "text/csv")).run()
    assert at.error[0].value.startswith("latin.csv: line 2: not UTF-8 text")
    at.file_uploader(key="batch_file").set_value(("empty.txt", b"\n\n", "text/plain")).run()
    assert at.error[0].value == "empty.txt: no rows to explain"


def test_explorer_page_reads_a_results_file() -> None:
    from test_batch_explore import RECORDS

    at = AppTest.from_file(EXPLORER, default_timeout=60)
    at.run()
    assert not at.exception and any("Run a batch" in i.value for i in at.info)
    at.file_uploader(key="explorer_file").set_value(("r.jsonl", to_jsonl(RECORDS).encode(), "application/json")).run()
    assert not at.exception
    assert [m.value for m in at.metric] == ["4", "1", "50.0%"]
    titles = [e.proto.spec for e in at.get("plotly_chart")]
    assert len(titles) == 6
    assert at.dataframe[0].value["word"].tolist() == ["dull", "lovely"]  # words of the top spans, counted
    assert at.dataframe[0].value["count"].tolist() == [2, 2]
    at.file_uploader(key="explorer_file").set_value(("bad.jsonl", b"{oops\n", "application/json")).run()
    assert at.error[0].value.startswith("bad.jsonl: line 1: invalid JSON")
