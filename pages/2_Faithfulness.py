"""selfexplain: the Faithfulness page.

Run the faithfulness lab (ERASER comprehensiveness/sufficiency, decision flips, single-top
erasure, rank agreement, tests on alpha) on the current text, a built-in sample, an
uploaded file, or open a results folder written by ``selfexplain faithfulness``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from pages import ASSETS, model_picker, read_uploaded
from selfexplain.data import Example, read_examples
from selfexplain.errors import USER_ERRORS
from selfexplain.explainers import EXPLAINERS
from selfexplain.faithfulness import figures, summary
from selfexplain.faithfulness.experiment import RESULTS_FILE, LabOptions, read_rows, run_lab
from selfexplain.highlight import escape_text
from selfexplain.sharpness import measures as sharpness
from selfexplain.sharpness.run import measure_examples

st.set_page_config(page_title="selfexplain · Faithfulness", page_icon=":mag:", layout="wide")
SAMPLE = ASSETS / "faithfulness" / "sentences.txt"
FAST = [
    "alpha", "attention_rows", "rollout_rows", "attention_cls", "gradient", "grad_x_input", "loo",
    "position_prior", "random",
]  # fmt: skip


def choose_examples(pair: bool, label_names: list[str]) -> list[Example]:
    source = st.radio("Inputs", ["Built-in sample", "Upload a file", "One text"], horizontal=True, key="source")
    if source == "One text":
        text = st.text_area("Text", key="faith_text")
        second = st.text_area("Hypothesis", key="faith_pair") if pair else None
        return [Example(text.strip(), second.strip() if second else None)] if text.strip() else []
    if source == "Upload a file":
        upload = st.file_uploader("SST lines, CSV, TSV or JSONL", type=["txt", "csv", "tsv", "jsonl"], key="upload")
        if upload is None:
            return []
        examples = read_uploaded(upload.getvalue(), Path(upload.name).suffix, label_names)
    else:
        if pair:
            st.info("The built-in sample holds single sentences; upload a pair file for this model.")
            return []
        examples = read_examples(SAMPLE, label_names=label_names, split="test")
    count = st.slider("Sample size", 1, len(examples), min(10, len(examples)), key="sample_size")
    return examples[:count]


def show_sharpness(rows: list[dict]) -> None:
    """How sharp and decisive alpha is on the inputs just run (see docs/sharpness.md)."""
    if not rows:
        return
    st.subheader("Sharpness of alpha")
    st.caption(
        "Does the model decide from a few spans? Largest alpha and top-3 mass (higher = sharper); whether the "
        "prediction survives alpha made uniform (lower = alpha matters more) or reading only the top span (higher "
        "= the top span carries the decision); Spearman with the position prior (lower = less 'tokens in the "
        "middle'); top-5 spans that cut a word in pieces."
    )
    st.dataframe(pd.DataFrame(sharpness.summary_rows(sharpness.summarise(rows))), hide_index=True)


def show(rows: list[dict], plausibility: pd.DataFrame | None = None) -> None:
    if not rows:
        return
    table = summary.summary_table(rows)
    table.insert(0, "method", [EXPLAINERS[n].label if n in EXPLAINERS else n for n in table["explainer"]])
    st.subheader("Faithfulness by explainer")
    st.caption("comprehensiveness: higher = more faithful · sufficiency, flip_fraction: lower = more faithful")
    st.dataframe(table, hide_index=True)
    left, right = st.columns(2)
    left.plotly_chart(figures.curve_figure(summary.curve_table(rows)), key="curves")
    right.plotly_chart(figures.flip_figure(summary.flip_table(rows)), key="flips")
    tau = summary.tau_matrix(rows)
    st.plotly_chart(figures.tau_figure(tau), key="tau")
    alpha = summary.alpha_table(rows)
    if len(alpha):
        st.subheader("Tests on alpha (span layer)")
        st.dataframe(alpha, hide_index=True)
    if plausibility is not None and len(plausibility):
        st.subheader("Plausibility (not faithfulness): is the top span a polar SST phrase?")
        st.caption(
            "Share of examples whose top span (token explainers: best window of alpha's top-span length) is a "
            "treebank phrase labelled in the predicted direction: strong = 0/4 only, polar = 0, 1 / 3, 4."
        )
        st.dataframe(plausibility, hide_index=True)
    st.subheader("Per-example drill-down")
    choice = st.selectbox("Example", range(len(rows)), format_func=lambda i: rows[i]["text"][:90], key="drill")
    st.markdown(escape_text(rows[choice]["text"]))
    st.dataframe(summary.drilldown_table(rows[choice]), hide_index=True)
    cols = st.columns(3)
    cols[0].download_button("summary.csv", table.to_csv(index=False), "summary.csv", key="dl_summary")
    cols[1].download_button("tau.csv", tau.to_csv(), "tau.csv", key="dl_tau")
    lines = "".join(json.dumps(r) + "\n" for r in rows)
    cols[2].download_button("results.jsonl", lines, "results.jsonl", key="dl_rows")


st.title("Faithfulness lab")
mode = st.radio("Mode", ["Run experiments", "Open a results folder"], horizontal=True, key="mode")
if mode == "Open a results folder":
    folder = st.text_input("Folder written by `selfexplain faithfulness`", key="results_dir")
    if folder.strip():
        path = Path(folder.strip()).expanduser() / RESULTS_FILE
        if not path.is_file():
            st.error(f"No {RESULTS_FILE} in that folder.")
        else:
            extra = path.parent / "plausibility.csv"
            show(read_rows(path), pd.read_csv(extra) if extra.is_file() else None)
else:
    model = model_picker()
    if model is None:
        st.stop()
    if model.config.head != "span":
        st.warning("This model is a plain baseline with no span layer; the lab needs a self-explaining model.")
        st.stop()
    examples = choose_examples(model.config.pair, list(model.config.label_names))
    default = [n for n in FAST if n in EXPLAINERS]
    names = st.multiselect(
        "Explainers", list(EXPLAINERS), default=default, key="explainers", format_func=lambda n: EXPLAINERS[n].label
    )
    alpha_tests = st.toggle("Tests on alpha", value=True, key="alpha_tests")
    if st.button("Run", type="primary", key="run", disabled=not examples or not names):
        bar = st.progress(0.0, text="Running…")
        options = LabOptions(explainers=tuple(names), alpha_tests=alpha_tests)
        try:
            rows = run_lab(model, examples, options, None, lambda d, t: bar.progress(d / t, text=f"{d}/{t} inputs"))
            bar.progress(1.0, text="Sharpness measures…")
            sharp = measure_examples(model, examples, progress=False)
        except USER_ERRORS as err:
            st.error(str(err))
            rows, sharp = [], []
        st.session_state.faith_rows = rows
        st.session_state.sharp_rows = sharp
        bar.empty()
    show_sharpness(st.session_state.get("sharp_rows", []))
    show(st.session_state.get("faith_rows", []))
