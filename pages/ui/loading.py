"""Models and results cached per server process: one model per folder, every session's results in one
cache bounded in bytes, long computations with a progress bar."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from selfexplain.core.pipeline import SelfExplainer, load_model
from selfexplain.core.results.explanation import Explanation
from selfexplain.support.byte_cache import ByteCache, cache_budget_bytes
from selfexplain.support.malloc_tuning import fix_mmap_threshold

T = TypeVar("T")


@st.cache_resource(show_spinner="Loading the model…", max_entries=4)
def cached_explainer(directory: str) -> SelfExplainer:
    """One model and tokenizer per folder and process."""
    fix_mmap_threshold()  # once per server process, before the first long input
    explainer = load_model(directory)
    # The modules and the model live as long as the process: moved out of the collector's generations,
    # Python's own full collections no longer walk them (each took ~0.3 s with them in).
    gc.freeze()
    return explainer


@st.cache_resource
def results_cache() -> ByteCache[object]:
    """Every session's results, in one cache bounded in bytes (``SELFEXPLAIN_CACHE_MB``, default 64):
    a long text's explanation weighs what it holds, so memory stays bounded however long the inputs."""
    return ByteCache(cache_budget_bytes())


def cached_result(key: tuple, label: str, compute: Callable[[], T]) -> T:
    """``compute()`` once per ``key`` and process, with a spinner saying ``label`` while it runs, kept in
    the byte-bounded :func:`results_cache`. Sessions share the result object (read-only), so a rerun
    copies nothing."""

    def run() -> T:
        with st.spinner(label):
            return compute()

    return results_cache().get_or_compute(key, run)  # type: ignore[return-value]


def cached_explanation(directory: str, text: str, pair: str | None) -> Explanation:
    """The model runs only when the input (or the model) changes."""
    return cached_result(
        ("explanation", directory, text, pair),
        "Explaining…",
        lambda: cached_explainer(directory).explain(text, pair=pair, attentions=True),
    )


def cached_with_progress(key: tuple, label: str, compute: Callable[[Callable[[float], None]], T]) -> T:
    """``compute(report_progress)`` once per ``key`` and process, with a progress bar while it runs
    (``st.cache_data`` cannot hold a progress bar); kept in the byte-bounded :func:`results_cache`."""

    def run() -> T:
        bar = st.progress(0.0, text=label)
        value = compute(lambda fraction: bar.progress(min(max(float(fraction), 0.0), 1.0), text=label))
        bar.empty()
        return value

    return results_cache().get_or_compute(("progress", *key), run)  # type: ignore[return-value]
