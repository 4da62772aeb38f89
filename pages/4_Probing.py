"""Probing: a linear classifier per layer for the label, token position and top-span membership."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st

from pages.ui import ASSETS
from pages.ui.bounded import RunStopped, bounded_report
from pages.ui.examples import upload_examples
from pages.ui.loading import cached_explainer, results_cache
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_picker
from selfexplain.core.formats import SUFFIXES
from selfexplain.errors import USER_ERRORS
from selfexplain.lab.anatomy.figures import PROBE_TASKS, probe_figure
from selfexplain.lab.anatomy.probing import TASKS, cache_hidden_states, probe_by_layer
from selfexplain.views.highlight import escape_text

st.set_page_config(page_title="selfexplain · Probing", layout="wide")
# every labelled sentence shipped with the app (110): with 5 folds each is scored once
SAMPLES = (
    ASSETS / "anatomy" / "sentences.txt",
    ASSETS / "heldout" / "reviews.txt",
    ASSETS / "faithfulness" / "sentences.txt",
)
SAMPLE = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in SAMPLES)
SAMPLE_COUNT = sum(1 for line in SAMPLE.splitlines() if line.strip())
FOLDS = 5
COLUMNS = {
    "task": "Task",
    "layer": "Layer",
    "accuracy": "Accuracy",
    "majority": "Majority-class baseline",
    "test": "Test items",
    "train": "Train items per fit",
    "folds": "Folds",
}


LABEL = "Hidden states, then the probes:"
HIDDEN_SHARE = 0.15  # of the progress bar: the forward passes; the rest is one step per (task, layer) fit
BOUND_S, BOUND_PER_SENTENCE_S, MAX_BOUND_S = 120.0, 0.2, 600.0
MEASURED = "about 10 s (8.4 s measured on one CPU core)"  # the default run: 110 shipped sentences, sst5-minilm


def time_bound(sentences: int) -> float:
    """Seconds a run may take: 2 minutes (the default run of 110 sentences takes :data:`MEASURED`), or
    0.2 s a sentence for a larger corpus, at most 10 minutes."""
    return min(MAX_BOUND_S, max(BOUND_S, BOUND_PER_SENTENCE_S * sentences))


def compute(directory: str, data: bytes, suffix: str, limit: int, seed: int, max_position: int) -> pd.DataFrame:
    """Hidden states once, then one probe per task, layer and fold; cached per (model, data, settings). A
    progress bar follows both stages; the run stops (:class:`RunStopped`) past :func:`time_bound` or once
    the session that asked for it has ended, and then nothing is cached."""

    def run() -> pd.DataFrame:
        examples = upload_examples(directory, data, suffix, limit)
        explainer = cached_explainer(directory)
        slot = st.empty()
        report = bounded_report(lambda f, text: slot.progress(f, text=text), LABEL, time_bound(len(examples)))
        hidden = cache_hidden_states(
            explainer, examples, seed=seed, progress=False, on_progress=lambda f: report(HIDDEN_SHARE * f)
        )
        table = probe_by_layer(
            hidden, TASKS, seed=seed, max_position=max_position, progress=False, folds=FOLDS,
            on_progress=lambda f: report(HIDDEN_SHARE + (1 - HIDDEN_SHARE) * f),
        )  # fmt: skip
        slot.empty()
        return table

    key = ("probe", directory, hashlib.sha1(data).hexdigest(), suffix, limit, seed, max_position, FOLDS)
    return results_cache().get_or_compute(key, run)  # type: ignore[return-value]


def requested() -> tuple | None:
    """Sidebar settings and the corpus; the settings of the last Run click (None before the first)."""
    with st.sidebar:
        source = st.radio("Corpus", [f"Shipped sample ({SAMPLE_COUNT} sentences)", "Upload a file"], key="probe_source")
        limit = st.slider("Sentences (at most)", 20, 3000, 500, step=10, key="probe_limit")
        max_position = st.slider("Positions for the position probe", 2, 30, 10, key="probe_positions")
        seed = int(st.number_input("Seed", 0, 10_000, 0, key="probe_seed"))
    data, suffix = SAMPLE, ".txt"
    if source == "Upload a file":
        upload = st.file_uploader("Labelled SST lines, CSV, TSV or JSONL", type=SUFFIXES, key="probe_upload")
        data, suffix = (upload.getvalue(), Path(upload.name).suffix) if upload else (b"", "")
    request = (st.session_state.model_directory, data, suffix, limit, seed, max_position)
    help_text = "computes hidden states, fits the probes; stops at its time bound or when this tab is closed"
    if st.button("Run", type="primary", key="probe_run", disabled=not data, help=help_text):
        st.session_state.probe_request = request
    st.caption(
        f"The default run (the {SAMPLE_COUNT} shipped sentences) takes {MEASURED} and is stopped after "
        f"{BOUND_S:.0f} s at most; a larger corpus gets {BOUND_PER_SENTENCE_S} s a sentence, up to "
        f"{MAX_BOUND_S / 60:.0f} minutes. Closing the tab stops a run."
    )
    done = st.session_state.get("probe_request")
    if done is not None and done != request:
        st.info("The settings changed since these results: click Run to compute them again.")
    return done


def show(table: pd.DataFrame) -> None:
    """Test-set sizes (a warning under 100 items), accuracy by layer against the majority lines, the table."""
    sizes = table.groupby("task", sort=False)["test"].first()
    st.write(" · ".join(f"**{PROBE_TASKS.get(t, t)}**: {n:,} test items" for t, n in sizes.items()))
    small = [PROBE_TASKS.get(t, t) for t, n in sizes.items() if n < 100]
    if small:
        st.warning(
            f"Fewer than 100 test items for {', '.join(small)}: each accuracy moves by several points with the "
            "sample. Upload more labelled sentences for firmer numbers."
        )
    st.plotly_chart(probe_figure(table), key="probe_chart", theme=None)
    shown = table.assign(task=[PROBE_TASKS.get(t, t) for t in table["task"]]).rename(columns=COLUMNS)
    st.dataframe(
        shown,
        hide_index=True,
        column_config={
            c: st.column_config.NumberColumn(format="percent") for c in (COLUMNS["accuracy"], COLUMNS["majority"])
        },
    )
    st.download_button("Download (CSV)", table.to_csv(index=False), "probes.csv", "text/csv")


def main() -> None:
    sidebar_navigation()
    st.title("Probing by layer")
    st.caption(
        "Freeze the encoder, fit a logistic regression on each layer's vectors (0 = embeddings) and score it on "
        f"held-out sentences (Lin et al., 2019). The sentences are split into {FOLDS} folds: each probe is fitted "
        f"{FOLDS} times, each time scored on the fold it did not see, so every item is scored once. Dotted lines: "
        "always guessing the most frequent class of the test items; a probe is only informative above its line."
    )
    if model_picker() is None:
        return
    done = requested()
    if done is None:
        st.info("Choose a corpus, then click Run to train the probes.")
        return
    try:
        table = compute(*done)
    except USER_ERRORS as err:
        st.error(escape_text(str(err)))
        return
    except RunStopped as stop:
        st.warning(f"The run stopped before it finished: {stop.reason}. Nothing was kept; try fewer sentences.")
        st.session_state.pop("probe_request", None)
        return
    if table.empty:
        st.warning("Too few sentences to split into train and test sets.")
        return
    show(table)


main()
