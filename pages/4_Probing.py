"""Probing: a linear classifier per layer for the label, token position and top-span membership."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from pages import ASSETS, cached_explainer, model_picker
from selfexplain.anatomy.figures import probe_figure
from selfexplain.anatomy.probing import TASKS, cache_hidden_states, probe_by_layer
from selfexplain.data import read_examples
from selfexplain.errors import USER_ERRORS

st.set_page_config(page_title="selfexplain · Probing", layout="wide")
SAMPLE = ASSETS / "anatomy" / "sentences.txt"


@st.cache_resource
def results_store() -> dict[tuple, pd.DataFrame]:
    """Results per (model, data, settings), shared by sessions (a progress bar cannot run inside st.cache_data)."""
    return {}


def compute(directory: str, data: bytes, suffix: str, limit: int, seed: int, max_position: int) -> pd.DataFrame:
    """Cached per (model, data, settings), with a progress bar while it runs."""
    store = results_store()
    key = (directory, hashlib.sha1(data).hexdigest(), suffix, limit, seed, max_position)
    if key not in store:
        bar = st.progress(0.0, text="Computing hidden states…")
        store[key] = run(directory, data, suffix, limit, seed, max_position, bar.progress)
        bar.empty()
        while len(store) > 16:
            store.pop(next(iter(store)))
    return store[key]


def run(directory: str, data: bytes, suffix: str, limit: int, seed: int, max_position: int, bar) -> pd.DataFrame:
    """Hidden states once, then one probe per task and layer."""
    path = Path(tempfile.gettempdir()) / f"selfexplain-probe-{hashlib.sha1(data).hexdigest()}{suffix}"
    path.write_bytes(data)
    explainer = cached_explainer(directory)
    examples = read_examples(path, label_names=explainer.config.label_names)[:limit]
    cache = cache_hidden_states(explainer, examples, seed=seed, progress=False, on_progress=bar)
    return probe_by_layer(cache, TASKS, seed=seed, max_position=max_position, progress=False)


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
if not data or not st.toggle("Run", key="probe_run", value=source != "Upload a file"):
    st.info("Choose a corpus to train the probes.")
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
