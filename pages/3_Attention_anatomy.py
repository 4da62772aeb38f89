"""Attention anatomy: statistics per layer x head, the no-op test, head clusters, confusion score."""

from __future__ import annotations

import hashlib
from pathlib import Path

import streamlit as st

from pages.ui import ASSETS
from pages.ui.examples import upload_examples
from pages.ui.loading import cached_explainer, cached_with_progress
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_picker
from selfexplain.core.formats import SUFFIXES
from selfexplain.core.modeling.read_out import layers_read
from selfexplain.errors import USER_ERRORS
from selfexplain.lab.anatomy import figures as F
from selfexplain.lab.anatomy.agreement import agreement_sentences, confusion_by_layer
from selfexplain.lab.anatomy.corpus import AnatomyResult, attention_anatomy
from selfexplain.views.word_attention import layers_caption

st.set_page_config(page_title="selfexplain · Attention anatomy", layout="wide")
SAMPLE = ASSETS / "anatomy" / "sentences.txt"
HEAD_SENTENCES = 100  # the head distances (MDS) use the first 100 sentences, as the CLI does


def compute(directory: str, data: bytes, suffix: str, limit: int, gradients: bool, seed: int) -> AnatomyResult:
    """Cached per (model, data, settings), with a progress bar while it runs."""

    def run(report) -> AnatomyResult:
        examples = upload_examples(directory, data, suffix, limit)
        explainer = cached_explainer(directory)
        return attention_anatomy(
            explainer,
            examples,
            gradients=gradients,
            head_sentences=HEAD_SENTENCES,
            seed=seed,
            progress=False,
            on_progress=report,
        )

    key = ("anatomy", directory, hashlib.sha1(data).hexdigest(), suffix, limit, gradients, seed)
    return cached_with_progress(key, "Running the model over the corpus…", run)


@st.cache_data(show_spinner="Scoring agreement sentences…", max_entries=8)
def confusion(directory: str, per_template: int, seed: int):
    return confusion_by_layer(cached_explainer(directory), agreement_sentences(per_template, seed))


def settings() -> tuple[str, int, bool, int]:
    """Sidebar: the corpus source, the sentence limit, whether to run the no-op gradient test, the seed."""
    with st.sidebar:
        source = st.radio(
            "Corpus", ["Shipped sample (40 sentences)", "Upload a file", "Open a results folder"], key="anat_source"
        )
        limit = st.slider("Sentences (at most)", 10, 1000, 200, step=10, key="anat_limit")
        gradients = st.checkbox("No-op gradient test (slower)", value=True, key="anat_grad")
        seed = int(st.number_input("Seed", 0, 10_000, 0, key="anat_seed"))
    return source, limit, gradients, seed


def choose_result(directory: str, source: str, limit: int, gradients: bool, seed: int) -> AnatomyResult | None:
    """A results folder's statistics, or those of the last Run (computed once per settings); None before."""
    try:
        if source == "Open a results folder":
            folder = st.text_input("Folder written by `selfexplain anatomy`", key="anat_folder").strip()
            return AnatomyResult.load(Path(folder)) if folder else None
        data, suffix = SAMPLE.read_bytes(), ".txt"
        if source == "Upload a file":
            upload = st.file_uploader("SST lines, CSV, TSV or JSONL", type=SUFFIXES, key="anat_upload")
            data, suffix = (upload.getvalue(), Path(upload.name).suffix) if upload else (b"", "")
        request = (directory, data, suffix, limit, gradients, seed)
        if st.button("Run", type="primary", key="anat_run", disabled=not data, help="computes over the corpus"):
            st.session_state.anat_request = request
        done = st.session_state.get("anat_request")
        if done is None:
            return None
        if done != request:
            st.info("The settings changed since these results: click Run to compute them again.")
        return compute(*done)
    except USER_ERRORS as err:
        st.error(str(err))
    except (OSError, ValueError, KeyError) as err:
        st.error(f"Cannot read these results: {err}")
    return None


def show_result(result: AnatomyResult, from_folder: bool, reads: int | None = None) -> None:
    """The sample sizes, the statistic heatmap and per-layer lines, entropies, the no-op test, head clusters;
    ``reads``: the encoder layers the loaded model reads (None: results of another model, from a folder)."""
    layers, heads = result.shape
    st.write(
        f"**{result.sentences:,}** sentences · {layers} layers × {heads} heads, numbered from 1 "
        "(as on the Explain page) · every number is a mean over all tokens of these sentences"
    )
    if reads is not None:
        st.caption(layers_caption(reads, layers))
    table = F.stats_table(result)
    st.download_button("Download the statistics (CSV)", table.to_csv(index=False), "attention_stats.csv", "text/csv")
    left, right = st.columns(2)
    names = [n for n in F.STAT_TITLES if n in result.stats and (result.pair or n not in ("within", "across"))]
    stat = left.selectbox("Statistic", names, format_func=F.STAT_TITLES.get, key="anat_stat")
    left.plotly_chart(F.layer_head_heatmap(result.stats[stat], F.STAT_TITLES[stat]), key="anat_heat", theme=None)
    right.plotly_chart(F.per_layer_lines(result), key="anat_lines", theme=None)
    left.plotly_chart(F.entropy_lines(result), key="anat_entropy", theme=None)
    right.plotly_chart(F.noop_figure(result), key="anat_noop", theme=None)
    if result.mds is not None:
        st.plotly_chart(F.mds_figure(result), key="anat_mds", theme=None)
        scope = (
            "the first --head-sentences sentences of the run"
            if from_folder
            else f"the first {min(HEAD_SENTENCES, result.sentences):,} sentences"
        )
        st.caption(
            f"Each point is a head (label: layer-head); heads that attend alike are close. Distances from {scope}."
        )


def show_confusion(directory: str, seed: int) -> None:
    """The agreement test (single-text models): computed on its own button click."""
    st.subheader("Confusion score on agreement sentences")
    st.caption(
        "Does the verb attend to its subject or to a nearby noun of the other number? 0 = all on the subject, "
        "1 = an even split (lower is better)."
    )
    per = st.slider("Sentences per template", 10, 150, 50, step=10, key="anat_conf_n")
    if st.button("Run the agreement test", key="anat_conf_run"):
        st.session_state.anat_conf_request = (directory, per, seed)
    asked = st.session_state.get("anat_conf_request")
    if asked is None or asked[0] != directory:
        return
    frame = confusion(*asked)
    counts = frame.groupby(["kind", "distractor"])["sentences"].first()
    st.write(
        f"**{int(counts.sum()):,}** sentences: "
        + ", ".join(
            f"{kind} {'with' if distractor else 'without'} a distractor {n:,}"
            for (kind, distractor), n in counts.items()
        )
    )
    st.plotly_chart(F.confusion_figure(frame), key="anat_confusion", theme=None)
    st.download_button("Download confusion scores (CSV)", frame.to_csv(index=False), "confusion.csv", "text/csv")


def main() -> None:
    sidebar_navigation()
    st.title("Attention anatomy")
    st.caption(
        "Where each head looks, averaged over a corpus (Clark et al., 2019). See docs/anatomy.md for definitions."
    )
    explainer = model_picker()
    if explainer is None:
        return
    directory = st.session_state.model_directory
    source, limit, gradients, seed = settings()
    result = choose_result(directory, source, limit, gradients, seed)
    if result is None:
        st.info("Choose a corpus, then click Run to compute the statistics.")
        return
    from_folder = source == "Open a results folder"
    show_result(result, from_folder, None if from_folder else layers_read(explainer.model))
    if not explainer.config.pair:
        show_confusion(directory, seed)


main()
