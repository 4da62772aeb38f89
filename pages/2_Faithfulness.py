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

from pages.ui import ASSETS
from pages.ui.examples import read_uploaded
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_picker
from selfexplain.core.formats import SUFFIXES
from selfexplain.core.formats.examples import read_examples
from selfexplain.data import Example
from selfexplain.errors import USER_ERRORS
from selfexplain.lab.faithfulness import figures, summary
from selfexplain.lab.faithfulness.experiment import FAST_EXPLAINERS, RESULTS_FILE, LabOptions, run_lab
from selfexplain.lab.faithfulness.labels import column_specs, method_label, metric_legend, readable
from selfexplain.lab.faithfulness.metrics import METRICS
from selfexplain.lab.sharpness import measures as sharpness
from selfexplain.lab.sharpness.run import measure_examples
from selfexplain.methods.explainers import METHODS
from selfexplain.support.progress_log import iter_rows
from selfexplain.views.highlight import escape_text

st.set_page_config(page_title="selfexplain · Faithfulness", page_icon=":mag:", layout="wide")
SAMPLE = ASSETS / "faithfulness" / "sentences.txt"
INTRO = """
**Does the explanation point at the words the model really used?** That is what *faithful* means here.
We cannot read it off the model, so every experiment removes words and watches the prediction: if a
method's most important words really drive the decision, removing them should change the prediction
quickly, and keeping only them should keep it. Each method ranks the words of every input: the
self-explaining model's own span weights (*alpha*), the encoder's attention, gradients, leave-one-out
(remove one word, measure the change) and, as yardsticks, a random ranking and a position prior (words in
the middle first). A method worth trusting beats the yardsticks. Every number is an average over the
inputs you run, so use at least ten; the table says how many went in.
"""


def choose_examples(pair: bool, label_names: list[str]) -> list[Example]:
    source = st.radio("Inputs", ["Built-in sample", "Upload a file", "One text"], horizontal=True, key="source")
    if source == "One text":
        text = st.text_area("Text", key="faith_text")
        second = st.text_area("Hypothesis", key="faith_pair") if pair else None
        return [Example(text.strip(), second.strip() if second else None)] if text.strip() else []
    if source == "Upload a file":
        upload = st.file_uploader("SST lines, CSV, TSV or JSONL", type=SUFFIXES, key="upload")
        if upload is None:
            return []
        try:
            examples = read_uploaded(upload.getvalue(), Path(upload.name).suffix, label_names)
        except USER_ERRORS as err:
            st.error(f"This file cannot be read: {escape_text(str(err))}")
            return []
    else:
        if pair:
            st.info("The built-in sample holds single sentences; upload a pair file for this model.")
            return []
        examples = read_examples(SAMPLE, txt="labelled", label_names=label_names, split="test")
    count = st.slider("Sample size", 1, len(examples), min(10, len(examples)), key="sample_size")
    return examples[:count]


def table(frame: pd.DataFrame) -> None:
    """A result table whose columns fit the page: short metric headers (the full name and meaning on hover),
    the text columns wide, the first column pinned while the rest scroll."""
    config = {}
    for i, (column, spec) in enumerate(column_specs(list(frame.columns)).items()):
        kind = st.column_config.NumberColumn if spec["numeric"] else st.column_config.Column
        extra = {"format": "%.3f"} if spec["numeric"] else {}
        config[column] = kind(spec["label"], help=spec["help"], width=spec["width"], pinned=i == 0, **extra)
    st.dataframe(frame, hide_index=True, column_config=config, width="stretch")


def show_sharpness(rows: list[dict]) -> None:
    """How sharp and decisive alpha is on the inputs just run (see docs/sharpness.md)."""
    if not rows:
        return
    st.subheader("Sharpness of alpha")
    st.caption(
        "Does the model decide from a few spans? Largest alpha and top-3 mass (higher = sharper); whether the "
        "prediction survives alpha made uniform (lower = alpha matters more) or reading only the top span (higher "
        "= the top span carries the decision); Spearman with the position prior (lower = less 'tokens in the "
        "middle'); top-5 spans that cut a word in pieces. For sparse alpha: the top span's length in words, how "
        "many spans get any alpha, whether deleting the top span's words moves the prediction more than deleting "
        "as many words elsewhere, and whether taking the top span out of alpha flips the decision. 'Inputs' is how "
        "many inputs a measure applies to; a note marks the measures that are automatic when alpha has one span."
    )
    table(pd.DataFrame(sharpness.summary_rows(sharpness.summarise(rows))))


def show(rows: list[dict], plausibility: pd.DataFrame | None = None) -> None:
    if not rows:
        return
    results = summary.summary_table(rows)
    st.subheader("Faithfulness by method")
    comp, suff, flip = METRICS["comprehensiveness"], METRICS["sufficiency"], METRICS["flip_fraction"]
    st.caption(
        f"One row per method, averaged over {len(rows)} inputs. The arrow after each column says which way is "
        f"better: {comp.name} ({comp.direction}), {suff.name} ({suff.direction}), {flip.name} ({flip.direction})."
    )
    table(readable(results))
    with st.expander("What each column means"):
        st.markdown(metric_legend(list(results.columns)))
    left, right = st.columns(2)
    left.plotly_chart(figures.curve_figure(summary.curve_table(rows)), key="curves")
    left.caption(
        "Each line: the probability of the predicted class as the method's most important words are removed, "
        "best first. A line that falls faster means the method found the words the decision rests on."
    )
    right.plotly_chart(figures.flip_figure(summary.flip_table(rows)), key="flips")
    right.caption(
        "Each box: over the inputs, the share of words removed (best first) before the label changed; the line is "
        "the median, the dashed line the mean. Lower boxes mean the method's top words decide the label."
    )
    tau = summary.tau_matrix(rows)
    st.plotly_chart(figures.tau_figure(tau), key="tau")
    st.caption(
        "How alike two methods rank the words (Kendall tau; rows name the methods, columns are the same methods "
        "by number): 1 = the same order, 0 = unrelated, -1 = reversed. "
        "Agreement is not faithfulness: two methods can agree and both be wrong."
    )
    alpha = summary.alpha_table(rows)
    if len(alpha):
        st.subheader("Tests on alpha (span layer)")
        st.caption(
            "Experiments on the span weights alone, computed exactly from the span layer. The column 'Better' says "
            "which way means alpha is the more faithful explanation; rows without a direction are there to compare "
            "(attention's span, the accuracy of the full model)."
        )
        table(alpha.rename(columns={"test": "Test", "value": "Value", "better": "Better"}))
    if plausibility is not None and len(plausibility):
        st.subheader("Plausibility (not faithfulness): is the top span a polar SST phrase?")
        st.caption(
            "Share of examples whose top span (word-ranking methods: best window of alpha's top-span length) is a "
            "treebank phrase labelled in the predicted direction: strongly polar = 0 or 4 only, polar = 0, 1 or "
            "3, 4. Higher means more like what a person would point at, not that the model used it."
        )
        table(readable(plausibility))
    st.subheader("One input at a time")
    st.caption("Each method's top words for the chosen input, best first, with its scores on that input alone.")
    choice = st.selectbox("Example", range(len(rows)), format_func=lambda i: rows[i]["text"][:90], key="drill")
    st.markdown(escape_text(rows[choice]["text"]))
    table(readable(summary.drilldown_table(rows[choice])))
    cols = st.columns(3)
    cols[0].download_button("summary.csv", results.to_csv(index=False), "summary.csv", key="dl_summary")
    cols[1].download_button("tau.csv", tau.to_csv(), "tau.csv", key="dl_tau")
    lines = "".join(json.dumps(r) + "\n" for r in rows)
    cols[2].download_button("results.jsonl", lines, "results.jsonl", key="dl_rows")


def open_results() -> None:
    """Show a results folder written by ``selfexplain faithfulness`` (its results.jsonl, plausibility.csv)."""
    folder = st.text_input("Folder written by `selfexplain faithfulness`", key="results_dir")
    if not folder.strip():
        return
    path = Path(folder.strip()).expanduser() / RESULTS_FILE
    if not path.is_file():
        st.error(f"No {RESULTS_FILE} in that folder.")
        return
    extra = path.parent / "plausibility.csv"
    show(list(iter_rows(path)), pd.read_csv(extra) if extra.is_file() else None)


def run_experiments() -> None:
    """Choose the inputs and methods, run the lab on a Run click, show the last results of this session."""
    model = model_picker()
    if model is None:
        return
    if model.config.head != "span":
        st.warning("This model is a plain baseline with no span layer; the lab needs a self-explaining model.")
        return
    examples = choose_examples(model.config.pair, list(model.config.label_names))
    default = [n for n in FAST_EXPLAINERS if n in METHODS]
    names = st.multiselect(
        "Methods",
        list(METHODS),
        default=default,
        key="explainers",
        format_func=method_label,
        help="LIME and KernelSHAP take 200 model runs per input, integrated gradients 20: add them for small samples.",
    )
    alpha_tests = st.toggle("Tests on alpha (span layer)", value=True, key="alpha_tests")
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


def main() -> None:
    sidebar_navigation()
    st.title("Faithfulness lab")
    st.markdown(INTRO)
    mode = st.radio("Mode", ["Run experiments", "Open a results folder"], horizontal=True, key="mode")
    if mode == "Open a results folder":
        open_results()
    else:
        run_experiments()


main()
