"""Batch: upload a data file, explain every row, filter the results, download them.

Rows are explained a window at a time; the records so far live in the session, so a
rerun (a filter changed, the Cancel button) continues where it stopped.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.ui.examples import SST5_NAMES, sample_csv
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import OTHER_FOLDER, model_picker
from selfexplain.batch.explore import records_frame
from selfexplain.batch.export import report_html, to_csv, to_jsonl
from selfexplain.batch.reader import BatchInputError, RowReader, check_size
from selfexplain.batch.runner import BatchOptions, check_columns, explain_rows
from selfexplain.core.formats import SUFFIXES
from selfexplain.core.formats.records import guess_columns
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.views.highlight import escape_text

st.set_page_config(page_title="selfexplain · Batch", page_icon=":mag:", layout="wide")
MAX_UPLOAD_BYTES = 50_000_000
MAX_ROWS = 20_000
NONE = "(none)"
SAMPLE_NAME = "selfexplain-sample-reviews.csv"


def try_sample() -> None:
    """The "Try the sample" button: explain the sample file now (one click, no upload)."""
    st.session_state.batch_sample = True
    st.session_state.batch_autostart = True


def pick_columns(reader: RowReader, explainer: SelfExplainer, preselect_gold: bool = True) -> None:
    """Column pickers (CSV/TSV/JSONL); TXT files have one text a line. ``preselect_gold=False``: no gold-label
    column is preselected (the sample's labels are not this model's)."""
    if reader.format == "txt":
        return
    columns = reader.columns()
    text, pair, gold = guess_columns(set(columns), "text", None, "label", pair_wanted=explainer.config.pair)
    c1, c2, c3 = st.columns(3)
    first = columns.index(text) if text in columns else 0
    reader.text_column = c1.selectbox("Text column", columns, index=first, key="batch_text_col")
    if explainer.config.pair:
        second = columns.index(pair) if pair in columns else len(columns) - 1
        reader.pair_column = c2.selectbox("Second-text column", columns, second, key="batch_pair_col")
    options = [NONE, *columns]
    default = options.index(gold) if preselect_gold and gold in options else 0
    label = c3.selectbox("Gold-label column (optional)", options, index=default, key="batch_label_col")
    reader.label_column = None if label == NONE else label


def scan(reader: RowReader) -> tuple[int, list[str]]:
    """Row count and row-level problems, before any model runs (raises on file-level problems)."""
    count, problems = 0, []
    for row in reader:
        count += 1
        if row.problem:
            problems.append(row.problem)
        if count > MAX_ROWS:
            raise BatchInputError(
                f"{reader.name}: more than {MAX_ROWS:,} rows; the page stops there — use `selfexplain batch` instead"
            )
    if count == 0:
        raise BatchInputError(f"{reader.name}: no rows to explain")
    return count, problems


def run_job(explainer: SelfExplainer, reader: RowReader, job: dict, total: int) -> None:
    """Explain the rows not done yet, window by window, with a progress bar."""
    bar = st.progress(len(job["records"]) / total, text=f"{len(job['records']):,} of {total:,} rows")
    # windows of 8 batches: the progress bar and Cancel answer every 256 rows
    options = BatchOptions(top_k=job["top_k"], batch_size=32, window=256, attention=job["attention"])
    rows = (row for row in reader if row.index >= len(job["records"]))
    for records in explain_rows(explainer, rows, options):
        if job["cancelled"]:
            break
        job["records"].extend(records)
        done = len(job["records"])
        bar.progress(done / total, text=f"{done:,} of {total:,} rows")
    job["finished"] = not job["cancelled"]
    bar.empty()


def cancel() -> None:
    st.session_state.batch_job["cancelled"] = True


def results(explainer: SelfExplainer, job: dict) -> None:
    """Filters, the results table (select a row to open it on the Explain page) and downloads."""
    frame = records_frame(job["records"])
    if frame.empty:
        return
    failed = frame[frame["error"].notna()]
    if len(failed):
        with st.expander(f"{len(failed):,} rows could not be explained"):
            st.dataframe(failed[["index", "line", "error"]], hide_index=True)
    rows = frame[frame["error"].isna()]
    f1, f2, f3 = st.columns(3)
    labels = f1.multiselect("Predicted label", list(explainer.config.label_names), key="batch_filter_label")
    correctness = f2.selectbox("Correctness", ["all", "correct", "wrong"], key="batch_filter_correct")
    low, high = f3.slider("Confidence", 0.0, 1.0, (0.0, 1.0), 0.05, key="batch_filter_conf")
    if labels:
        rows = rows[rows["label"].isin(labels)]
    if correctness != "all":
        rows = rows[rows["correct"] == (correctness == "correct")]
    rows = rows[(rows["confidence"] >= low) & (rows["confidence"] <= high)]
    top = rows["spans"].map(lambda spans: " · ".join(f"{s['text']} ({s['alpha']:.2f})" for s in spans[:3]))
    shown = rows.assign(row=rows["index"] + 1, top_spans=top)
    columns = ["row", "text", "label", "confidence", "top_spans"] + (["gold", "correct"] if job["labelled"] else [])
    if job["pair"]:
        columns.insert(2, "pair")
    st.caption(f"{len(shown):,} of {len(frame):,} rows · select a row to open it on the Explain page")
    event = st.dataframe(
        shown[columns], hide_index=True, on_select="rerun", selection_mode="single-row", key="batch_table"
    )
    picked = event.selection.rows if event is not None else []
    if picked:
        record = shown.iloc[picked[0]]
        params = {"text": record["text"]} | ({"pair": record["pair"]} if job["pair"] else {})
        if st.session_state.get("model_choice") not in (None, OTHER_FOLDER):
            params["model"] = st.session_state.model_choice
        st.switch_page("app.py", query_params=params)
    downloads(explainer, job, rows)


def downloads(explainer: SelfExplainer, job: dict, rows: pd.DataFrame) -> None:
    most = job["top_k"] or 1000
    k = st.number_input(
        f"Spans per row in the downloads (0 = all kept, up to {most})", 0, most, 0, key="batch_export_k"
    )
    top_k = int(k) or None
    d1, d2, d3 = st.columns(3)
    d1.download_button("Results (CSV)", to_csv(job["records"], top_k), "selfexplain-batch.csv", "text/csv")
    d2.download_button(
        "Results (JSONL)", to_jsonl(job["records"], top_k), "selfexplain-batch.jsonl", "application/json"
    )
    d3.download_button(
        "Report (HTML, works offline)",
        report_html(job["records"], explainer.name),
        "selfexplain-batch-report.html",
        "text/html",
        key="batch_report",
    )


def main() -> None:
    sidebar_navigation()
    explainer = model_picker()
    st.title("Explain a whole data set")
    st.caption("Upload CSV, TSV, JSONL or TXT (one text a line). Big files: `selfexplain batch` on the command line.")
    if explainer is None:
        return
    upload = st.file_uploader("Data file", type=SUFFIXES, key="batch_file")
    if upload is not None:
        st.session_state.batch_sample = False  # an uploaded file replaces the sample
    if upload is None and not st.session_state.get("batch_sample"):
        job = st.session_state.get("batch_job")
        if job and not job["running"] and st.session_state.get("batch_model_name") == explainer.name:
            # the uploader forgets its file when the user visits another page; the results are kept
            st.info(f"Results of {escape_text(job.get('file_name', 'the last file'))}, kept from your last run. "
                    "Upload a file to explain another one.")  # fmt: skip
            results(explainer, job)
            return
        st.info("Upload a file to start, or try the sample. The Explorer page then summarises the results.")
        s1, s2 = st.columns(2)
        if explainer.config.pair:
            s1.caption("The sample holds single texts; this model reads a premise and a hypothesis.")
        else:
            s1.button(
                "Try the sample (40 short reviews)",
                type="primary",
                key="batch_try_sample",
                on_click=try_sample,
                help="explain the sample file at once, no upload needed",
            )
        s2.download_button(
            "Download the sample (CSV: text and label columns)",
            sample_csv(),
            SAMPLE_NAME,
            "text/csv",
            key="batch_sample_download",
        )
        return
    if upload is not None:
        name, data, file_id = upload.name, upload.getvalue(), upload.file_id
    else:
        name, data, file_id = SAMPLE_NAME, sample_csv().encode("utf-8"), "sample"
        st.caption(f"The sample: {escape_text(SAMPLE_NAME)} (upload a file to explain your own).")
    try:
        check_size(name, len(data), MAX_UPLOAD_BYTES)
        reader = RowReader(data, name=name)
        own_labels = upload is not None or set(SST5_NAMES) <= set(explainer.config.label_names)
        pick_columns(reader, explainer, preselect_gold=own_labels)
        check_columns(explainer, reader)
        total, problems = scan(reader)
    except BatchInputError as err:
        st.error(str(err))
        return
    st.caption(f"{total:,} rows" + (f" · {reader.blank_lines:,} blank lines skipped" if reader.blank_lines else ""))
    if problems:
        st.warning(f"{len(problems):,} rows cannot be explained and will be listed as such: " + "; ".join(problems[:5]))
    o1, o2 = st.columns(2)
    kept = o1.number_input("Spans kept per row (0 = all; all is heavy)", 0, 1000, 10, key="batch_keep_k")
    attention = o2.checkbox("Also store [CLS]-attention entropy (for the Explorer)", True, key="batch_attention")
    key = (file_id, reader.text_column, reader.pair_column, reader.label_column, explainer.name, attention, kept)
    job = st.session_state.get("batch_job")
    b1, b2 = st.columns([1, 5])
    autostart = st.session_state.pop("batch_autostart", False) and file_id == "sample"
    if b1.button("Explain all rows", type="primary", key="batch_run") or autostart:
        job = {
            "key": key,
            "records": [],
            "cancelled": False,
            "finished": False,
            "running": True,
            "attention": attention,
            "top_k": int(kept) or None,
            "file_name": name,
        }
        job.update(labelled=reader.label_column is not None, pair=reader.pair_column is not None)
        st.session_state.batch_job = job
    if job is None or job["key"] != key:
        return
    st.session_state.batch_model_name = explainer.name
    if job["running"] and not job["finished"] and not job["cancelled"]:
        b2.button("Cancel", on_click=cancel, key="batch_cancel")
        run_job(explainer, reader, job, total)
        job["running"] = not job["finished"] and not job["cancelled"]
        st.rerun()
    if job["cancelled"]:
        st.warning(f"Cancelled after {len(job['records']):,} of {total:,} rows; the results below are partial.")
    else:
        st.success(f"Explained {total:,} rows.")
    results(explainer, job)


main()
