"""Probing: a linear classifier per layer for the label, token position and top-span membership."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st

from pages import ASSETS, cached_explainer, cached_with_progress, model_picker, upload_examples
from selfexplain.anatomy.figures import probe_figure
from selfexplain.anatomy.probing import TASKS, cache_hidden_states, probe_by_layer
from selfexplain.errors import USER_ERRORS

st.set_page_config(page_title="selfexplain · Probing", layout="wide")
SAMPLE = ASSETS / "anatomy" / "sentences.txt"


def compute(directory: str, data: bytes, suffix: str, limit: int, seed: int, max_position: int) -> pd.DataFrame:
    """Hidden states once, then one probe per task and layer; cached per (model, data, settings)."""

    def run(report) -> pd.DataFrame:
        examples = upload_examples(directory, data, suffix, limit)
        explainer = cached_explainer(directory)
        cache = cache_hidden_states(explainer, examples, seed=seed, progress=False, on_progress=report)
        return probe_by_layer(cache, TASKS, seed=seed, max_position=max_position, progress=False)

    key = ("probe", directory, hashlib.sha1(data).hexdigest(), suffix, limit, seed, max_position)
    return cached_with_progress(key, "Computing hidden states…", run)


st.title("Probing by layer")
st.caption(
    "Freeze the encoder, fit a logistic regression on each layer's vectors (0 = embeddings) and score it on "
    "held-out sentences (Lin et al., 2019). Dotted lines: always guessing the most frequent class."
)
explainer = model_picker()
if explainer is None:
    st.stop()
with st.sidebar:
    source = st.radio("Corpus", ["Shipped sample (40 sentences)", "Upload a file"], key="probe_source")
    limit = st.slider("Sentences (at most)", 20, 3000, 500, step=20, key="probe_limit")
    max_position = st.slider("Positions for the position probe", 2, 30, 10, key="probe_positions")
    seed = int(st.number_input("Seed", 0, 10_000, 0, key="probe_seed"))
data, suffix = SAMPLE.read_bytes(), ".txt"
if source == "Upload a file":
    upload = st.file_uploader(
        "Labelled SST lines, CSV, TSV or JSONL", type=["txt", "csv", "tsv", "jsonl"], key="probe_upload"
    )
    data, suffix = (upload.getvalue(), Path(upload.name).suffix) if upload else (b"", "")
if not data or not st.toggle("Run", key="probe_run", value=False, help="trains the probes: switch on to run"):
    st.info("Choose a corpus, then switch on Run to train the probes.")
    st.stop()
try:
    table = compute(st.session_state.model_directory, data, suffix, limit, seed, max_position)
except USER_ERRORS as err:
    st.error(str(err))
    st.stop()
if table.empty:
    st.warning("Too few sentences to split into train and test sets.")
    st.stop()
st.plotly_chart(probe_figure(table), key="probe_chart", theme=None)
st.dataframe(table, hide_index=True)
st.download_button("Download (CSV)", table.to_csv(index=False), "probes.csv", "text/csv")
