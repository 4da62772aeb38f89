"""Streamlit helpers shared by the app's pages: cached loading and the model picker.

Kept out of ``selfexplain/`` so the library never imports Streamlit. Pages read
widgets, call the library, render.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import streamlit as st

from selfexplain.byte_cache import ByteCache, cache_budget_bytes
from selfexplain.data import Example, read_examples
from selfexplain.errors import USER_ERRORS
from selfexplain.explanation import Explanation
from selfexplain.highlight import escape_text
from selfexplain.malloc_tuning import fix_mmap_threshold
from selfexplain.model_card import CARD_FILE, ModelCard, read_model_card
from selfexplain.pipeline import (
    DEFAULT_MODEL,
    SelfExplainer,
    available_models,
    load_model,
    resolve_model,
    restricted,
)

# A Streamlit server is a shared deployment: models load by name from the models folders and nothing is
# downloaded from the Hub, unless its operator opts in (SELFEXPLAIN_RESTRICT_MODELS=0, SELFEXPLAIN_HUB=1).
os.environ.setdefault("SELFEXPLAIN_RESTRICT_MODELS", "1")
os.environ.setdefault("SELFEXPLAIN_HUB", "0")

ASSETS = Path(__file__).resolve().parents[1] / "assets"
OTHER_FOLDER = "Other folder…"
# plotly toolbar for every chart: no logo, PNG export at twice the screen resolution
PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
T = TypeVar("T")


@st.cache_resource(show_spinner="Loading the model…", max_entries=4)
def cached_explainer(directory: str) -> SelfExplainer:
    """One model and tokenizer per folder and process."""
    fix_mmap_threshold()  # once per server process, before the first long input
    return load_model(directory)


@st.cache_resource
def results_cache() -> ByteCache[object]:
    """Every session's results, in one cache bounded in bytes (``SELFEXPLAIN_CACHE_MB``, default 512):
    a long text's explanation weighs what it holds, so memory stays bounded however long the inputs."""
    return ByteCache(cache_budget_bytes())


def cached_explanation(directory: str, text: str, pair: str | None) -> Explanation:
    """The model runs only when the input (or the model) changes. Sessions share the result object
    (read-only), so a rerun copies nothing."""

    def compute() -> Explanation:
        with st.spinner("Explaining…"):
            return cached_explainer(directory).explain(text, pair=pair, attentions=True)

    return results_cache().get_or_compute(("explanation", directory, text, pair), compute)  # type: ignore[return-value]


def read_uploaded(data: bytes, suffix: str, label_names: list[str], split: str = "test") -> list[Example]:
    """Examples from uploaded bytes (SST lines, CSV, TSV or JSONL). The bytes go to a fresh private
    folder (0700, unpredictable name, removed afterwards): never a guessable path in a shared /tmp."""
    with tempfile.TemporaryDirectory(prefix="selfexplain-upload-") as folder:
        path = Path(folder) / f"upload{suffix if suffix in ('.txt', '.csv', '.tsv', '.jsonl') else '.txt'}"
        path.write_bytes(data)
        return read_examples(path, label_names=label_names, split=split)


SST5_NAMES = ("very negative", "negative", "neutral", "positive", "very positive")


def sample_csv() -> str:
    """The held-out reviews of assets/heldout/reviews.txt as a CSV with ``text`` and ``label`` columns
    (the Batch page's sample file)."""
    import pandas as pd

    lines = (ASSETS / "heldout" / "reviews.txt").read_text(encoding="utf-8").splitlines()
    rows = [line.split(" ", 1) for line in lines if line.strip()]
    frame = pd.DataFrame({"text": [t for _, t in rows], "label": [SST5_NAMES[int(n)] for n, _ in rows]})
    return frame.to_csv(index=False)


def upload_examples(directory: str, data: bytes, suffix: str, limit: int) -> list[Example]:
    """Labelled examples from uploaded bytes (SST lines, CSV, TSV or JSONL), at most ``limit``."""
    return read_uploaded(data, suffix, list(cached_explainer(directory).config.label_names))[:limit]


def cached_with_progress(key: tuple, label: str, compute: Callable[[Callable[[float], None]], T]) -> T:
    """``compute(report_progress)`` once per ``key`` and process, with a progress bar while it runs
    (``st.cache_data`` cannot hold a progress bar); kept in the byte-bounded :func:`results_cache`."""

    def run() -> T:
        bar = st.progress(0.0, text=label)
        value = compute(lambda fraction: bar.progress(min(max(float(fraction), 0.0), 1.0), text=label))
        bar.empty()
        return value

    return results_cache().get_or_compute(("progress", *key), run)  # type: ignore[return-value]


def examples_for(model_name: str) -> list[dict[str, str]]:
    path = ASSETS / "examples" / f"{model_name}.json"
    if not path.is_file():
        return []
    return json.loads(path.read_text(encoding="utf-8"))


@st.cache_data(show_spinner=False, max_entries=32)
def _read_card(directory: str, stamp: int) -> ModelCard:
    return read_model_card(Path(directory))


def model_card(directory: str) -> ModelCard | None:
    """The model card (README.md) of a model folder, None when it has none; a malformed card raises
    ModelDirectoryError. Read again when the file changes."""
    path = Path(directory) / CARD_FILE
    return _read_card(directory, path.stat().st_mtime_ns) if path.is_file() else None


def model_picker() -> SelfExplainer | None:
    """Sidebar: choose a shipped model, one from the models folder, or a typed path."""
    known = available_models()
    names = sorted(known, key=lambda n: (n != DEFAULT_MODEL, n)) + ([] if restricted() else [OTHER_FOLDER])
    wanted = st.query_params.get("model")
    if "model_choice" not in st.session_state:
        st.session_state.model_choice = wanted if wanted in names else names[0]
    with st.sidebar:
        choice = st.selectbox("Model", names, key="model_choice", help="Shipped models and SELFEXPLAIN_MODELS_DIR")
        if choice == OTHER_FOLDER:
            typed = st.text_input("Model folder", key="model_path", placeholder="/path/to/model")
            if not typed.strip():
                st.info("Type the path of a folder written by `selfexplain train`.")
                return None
            target = typed.strip()
        else:
            target = choice
        try:
            directory = resolve_model(target)
            explainer = cached_explainer(str(directory))
        except USER_ERRORS as err:
            st.error(f"Cannot load this model: {escape_text(str(err))}")
            return None
        config = explainer.config
        try:  # the model card's figures when it has one, else selfexplain.json's
            card = model_card(str(directory))
        except USER_ERRORS:
            card = None
        accuracy = config.metrics.get("test_accuracy")
        accuracy = card.test_accuracy if card is not None and card.test_accuracy is not None else accuracy
        baseline = card.baseline_accuracy if card is not None else None
        st.caption(f"**{escape_text(explainer.name)}** · encoder {escape_text(Path(config.encoder).name)}")
        st.caption("Labels: " + escape_text(", ".join(config.label_names)))
        if accuracy is not None:
            versus = f" (baseline {baseline:.1%})" if baseline is not None else ""
            st.caption(f"Test accuracy: {accuracy:.1%}{versus}")
        st.caption("Input: a premise and a hypothesis" if config.pair else "Input: one text")
    if choice != OTHER_FOLDER:
        st.query_params["model"] = choice
    st.session_state.model_directory = str(directory)
    return explainer


def choose_model(label: str, key: str, default: str | None = None) -> SelfExplainer | None:
    """A model chooser in the current container with the sidebar picker's choices (shipped models,
    SELFEXPLAIN_MODELS_DIR, a typed folder path), for pages that show several models at once.

    ``key`` names the widgets (``{key}_choice``, ``{key}_path``) and the URL parameter that holds a
    chosen name (a typed path is not put in the URL, as in :func:`model_picker`); the loaded folder
    goes to ``st.session_state[f"{key}_directory"]``. ``default`` is used when the URL names no model.
    """
    known = available_models()
    names = sorted(known, key=lambda n: (n != DEFAULT_MODEL, n)) + ([] if restricted() else [OTHER_FOLDER])
    choice_key = f"{key}_choice"
    if choice_key not in st.session_state:
        wanted = st.query_params.get(key)
        fallback = default if default in names else names[0]
        st.session_state[choice_key] = wanted if wanted in names else fallback
    choice = st.selectbox(label, names, key=choice_key, help="Shipped models and SELFEXPLAIN_MODELS_DIR")
    target = choice
    if choice == OTHER_FOLDER:
        typed = st.text_input(f"{label}: model folder", key=f"{key}_path", placeholder="/path/to/model")
        if not typed.strip():
            st.info("Type the path of a folder written by `selfexplain train`.")
            return None
        target = typed.strip()
    try:
        directory = resolve_model(target)
        explainer = cached_explainer(str(directory))
    except USER_ERRORS as err:
        st.error(f"Cannot load this model: {escape_text(str(err))}")
        return None
    config = explainer.config
    kind = "self-explaining (span head)" if config.head == "span" else f"plain baseline ({config.head} head)"
    accuracy = config.metrics.get("test_accuracy")
    st.caption(
        f"**{escape_text(explainer.name)}** · {kind} · encoder {escape_text(Path(config.encoder).name)}"
        + (f" · test accuracy {accuracy:.1%}" if accuracy is not None else "")
    )
    st.caption("Labels: " + escape_text(", ".join(config.label_names)))
    if choice != OTHER_FOLDER:
        st.query_params[key] = choice
    elif key in st.query_params:
        del st.query_params[key]
    st.session_state[f"{key}_directory"] = str(directory)
    return explainer


@st.cache_resource(show_spinner=False)
def _gallery_store(url: str):
    from selfexplain.gallery.store import GalleryStore

    return GalleryStore(url)


def gallery_store():
    """The pin store of this server process (one per database URL: ``SELFEXPLAIN_DB_URL`` or
    ``$SELFEXPLAIN_HOME/gallery.sqlite3``); raises GalleryDatabaseError when it cannot be opened."""
    from selfexplain.gallery.store import database_url

    return _gallery_store(database_url())


def pin_widget(explanation: Explanation, model_name: str, text: str, pair: str | None, key: str = "pin") -> None:
    """A note box and a Pin button saving ``explanation`` (of ``text``/``pair`` by ``model_name``) to the
    gallery; once pinned, the pin's id and its permalink. ``key`` tells apart several boxes on one page."""
    from selfexplain.gallery.records import MAX_NOTE_CHARS
    from selfexplain.gallery.view import permalink

    identity = [model_name, text, pair]
    note_col, button_col = st.columns([5, 1], vertical_alignment="bottom")
    note = note_col.text_input("Note for the gallery (optional)", key=f"{key}_note", max_chars=MAX_NOTE_CHARS)
    if button_col.button("Pin", key=f"{key}_button", help="save this explanation to the Gallery page"):
        try:
            pin = gallery_store().add(explanation, model_name, note=note, text=text, pair=pair)
        except USER_ERRORS as err:
            st.error(f"Cannot pin: {escape_text(str(err))}")
        else:
            st.session_state[f"{key}_pinned"] = {"key": identity, "id": pin.id}
    pinned = st.session_state.get(f"{key}_pinned")
    if pinned and pinned["key"] == identity:
        st.success(f"Pinned as {pinned['id']}. Permalink (opens it on the Gallery page):")
        st.code(permalink(pinned["id"], st.context.url), language=None)
