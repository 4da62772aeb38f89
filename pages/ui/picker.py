"""Choosing the model: the sidebar picker every single-model page uses, the in-page chooser of pages that
show several models, and the model card (README.md) of a model folder."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages.ui.loading import cached_explainer
from pages.ui.surrogate import render_sidebar_note
from selfexplain.core.modeling.model_card import CARD_FILE, ModelCard, read_model_card
from selfexplain.core.pipeline import DEFAULT_MODEL, SelfExplainer, available_models, resolve_model, restricted
from selfexplain.errors import USER_ERRORS
from selfexplain.support.public_errors import load_failure
from selfexplain.views.highlight import escape_text
from selfexplain.views.model_labels import model_label

OTHER_FOLDER = "Other folder…"


@st.cache_data(show_spinner=False, max_entries=32)
def _read_card(directory: str, stamp: int) -> ModelCard:
    return read_model_card(Path(directory))


def model_card(directory: str) -> ModelCard | None:
    """The model card (README.md) of a model folder, None when it has none; a malformed card raises
    ModelDirectoryError. Read again when the file changes."""
    path = Path(directory) / CARD_FILE
    return _read_card(directory, path.stat().st_mtime_ns) if path.is_file() else None


def model_choices() -> list[str]:
    """The names a picker offers: the default model first, the other known models by name, and
    "Other folder…" (a typed path) unless the deployment restricts models to known names."""
    names = sorted(available_models(), key=lambda n: (n != DEFAULT_MODEL, n))
    return names + ([] if restricted() else [OTHER_FOLDER])


@st.cache_data(show_spinner=False, max_entries=256)
def _label(name: str, directory: str | None, stamp: int) -> str:
    return model_label(name, directory)


def choice_label(name: str) -> str:
    """What a picker shows for a choice: the model's task, kind, test accuracy and measured speed."""
    directory = available_models().get(name)
    if directory is None:
        return name
    config = Path(directory) / "selfexplain.json"
    try:
        stamp = config.stat().st_mtime_ns
    except OSError:
        return name
    return _label(name, str(directory), stamp)


def _load(target: str) -> tuple[Path, SelfExplainer] | None:
    """The folder and the cached model of a name or path; None, with the reason shown, when it cannot load."""
    try:
        directory = resolve_model(target)
        return directory, cached_explainer(str(directory))
    except USER_ERRORS as err:  # in a restricted deployment, without server paths or library messages
        st.error(f"Cannot load this model: {escape_text(load_failure(target, err, restricted()))}")
        return None


def _typed_folder(label: str, key: str) -> str | None:
    typed = st.text_input(label, key=key, placeholder="/path/to/model")
    if not typed.strip():
        st.info("Type the path of a folder written by `selfexplain train`.")
        return None
    return typed.strip()


def model_picker() -> SelfExplainer | None:
    """Sidebar: choose a shipped model, one from the models folder, or a typed path. The chosen name goes
    to the URL (``?model=``), the loaded folder to ``st.session_state.model_directory``."""
    names = model_choices()
    wanted = st.query_params.get("model")
    if "model_choice" not in st.session_state:
        st.session_state.model_choice = wanted if wanted in names else names[0]
    with st.sidebar:
        choice = st.selectbox(
            "Model", names, key="model_choice", format_func=choice_label,
            help="Shipped models and SELFEXPLAIN_MODELS_DIR: task, kind, test accuracy, time to explain 30 words here",
        )  # fmt: skip
        target = _typed_folder("Model folder", "model_path") if choice == OTHER_FOLDER else choice
        loaded = _load(target) if target is not None else None
        if loaded is None:
            return None
        directory, explainer = loaded
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
        render_sidebar_note(config, card)
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
    names = model_choices()
    choice_key = f"{key}_choice"
    if choice_key not in st.session_state:
        wanted = st.query_params.get(key)
        fallback = default if default in names else names[0]
        st.session_state[choice_key] = wanted if wanted in names else fallback
    choice = st.selectbox(
        label, names, key=choice_key, format_func=choice_label,
        help="Shipped models and SELFEXPLAIN_MODELS_DIR: task, kind, test accuracy, time to explain 30 words here",
    )  # fmt: skip
    target = _typed_folder(f"{label}: model folder", f"{key}_path") if choice == OTHER_FOLDER else choice
    loaded = _load(target) if target is not None else None
    if loaded is None:
        return None
    directory, explainer = loaded
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
