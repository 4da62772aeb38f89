"""Adversarial and perturbed inputs: one example side by side, or a whole corpus (Si et al., 2019)."""

from __future__ import annotations

import difflib
from pathlib import Path

import streamlit as st

from pages.ui import ASSETS
from pages.ui.examples import upload_examples
from pages.ui.loading import cached_explainer, cached_explanation
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_picker
from selfexplain.core.formats import SUFFIXES
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.attention import aggregate_attention
from selfexplain.errors import USER_ERRORS
from selfexplain.lab.anatomy.figures import perturbation_figure
from selfexplain.lab.anatomy.perturb import (
    PERTURBATION_TITLES,
    PERTURBATIONS,
    PerturbationInputs,
    get_perturbation,
    parse_antonyms,
    shuffle_degree,
)
from selfexplain.lab.anatomy.robustness import explanation_shift, perturbation_study
from selfexplain.views.figures import attention_figure, span_grid_figure
from selfexplain.views.highlight import escape_text
from selfexplain.views.style import CAPTION_TEXT

st.set_page_config(page_title="selfexplain · Adversarial", layout="wide")
SAMPLE = ASSETS / "anatomy" / "sentences.txt"
DEFAULT_ANTONYMS = "good:bad, best:worst, funny:dull, love:hate, beautiful:ugly, great:awful"
MARK = "<mark>{}</mark>"
LEGEND = (
    f"<div style='font-size:0.9em;color:{CAPTION_TEXT};line-height:1.7'>How to read this: "
    f"{MARK.format('marked')} words on the left are those the perturbation removed or changed; on the right, "
    "those it added, moved or changed. Under each prediction: the model's confidence in it; on the perturbed "
    "side the arrow shows how the probability of the <b>original</b> prediction moved (▲ green: more sure, "
    "▼ red: less sure). The grids are those of the Explain page: alpha over spans (row = first word of a "
    "span, column = last word; darker = more weight) and the last layer's attention averaged over heads "
    "(row = the token that attends, column = the token it attends to; [CLS] and [SEP] included).</div>"
)
CORPUS_COLUMNS = {
    "perturbation": "Perturbation",
    "examples": "Examples",
    "changed": "Text changed",
    "accuracy_before": "Accuracy before",
    "accuracy_after": "Accuracy after",
    "confidence_before": "Confidence before",
    "confidence_after": "Confidence after",
    "flip_rate": "Prediction changed",
    "shuffle_degree": "Shuffle degree",
    "js_alpha": "Shift of alpha",
    "js_attention": "Shift of attention",
    "accuracy_drop": "Accuracy drop",
}


def marked(words: list[str], changed: set[int]) -> str:
    """Escaped words, the changed ones highlighted."""
    parts = [MARK.format(escape_text(w)) if i in changed else escape_text(w) for i, w in enumerate(words)]
    return "<div style='font-size:1.1em;line-height:1.8'>" + " ".join(parts) + "</div>"


def differences(before: str, after: str) -> tuple[str, str]:
    a, b = before.split(), after.split()
    gone, new = set(), set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            gone.update(range(i1, i2))
            new.update(range(j1, j2))
    return marked(a, gone), marked(b, new)


@st.cache_data(show_spinner="Perturbing the corpus…", max_entries=8)
def study(directory: str, data: bytes, suffix: str, limit: int, kinds: tuple[str, ...], seed: int, antonyms: str):
    explainer = cached_explainer(directory)
    examples = upload_examples(directory, data, suffix, limit)
    mapping = parse_antonyms(antonyms) if antonyms.strip() else None
    return perturbation_study(explainer, examples, kinds, seed, mapping, progress=False)


def one_example(explainer: SelfExplainer, directory: str, seed: int, antonyms: str) -> None:
    """One text and one perturbation: both texts with the changes marked, predictions, alpha and attention."""
    text = st.text_area(
        "Text", "The visuals are beautiful and the story is funny, but the ending is bad.", key="adv_text"
    )
    pair = st.text_area("Hypothesis", key="adv_pair") if explainer.config.pair else None
    kind = st.selectbox("Perturbation", PERTURBATIONS, key="adv_kind", format_func=PERTURBATION_TITLES.get)
    distractor = st.text_input(
        "Distractor sentence", "The weather in the north was cold all week.", key="adv_distractor"
    )
    if not text.strip() or (pair is not None and not pair.strip()):
        st.info("Type a text to perturb.")
        return
    original = cached_explanation(directory, text, pair)
    spec = get_perturbation(kind)
    mapping = parse_antonyms(antonyms) if spec.needs_antonyms else {}  # a bad pair only stops the antonyms
    changed = spec.apply(text, original, PerturbationInputs(seed, 0, distractor, mapping))
    if not changed.strip():
        st.warning("The perturbation removed the whole text.")
        return
    after = cached_explanation(directory, changed, pair)
    js_alpha, js_attention = explanation_shift(original, after)
    st.caption(
        f"Shuffle degree {shuffle_degree(text, changed):.2f} (word edits / words) · shift of alpha "
        f"{js_alpha:.3f} · of [CLS] attention {js_attention:.3f} (Jensen-Shannon over words: 0 = the same "
        "words weighted alike, 1 = no word in common)"
    )
    st.html(LEGEND)
    columns = st.columns(2)
    marks = differences(text, changed)
    moved = float(after.probabilities[original.predicted_index] - original.confidence)
    deltas = (
        (f"confidence {original.confidence:.1%}", "off", "off"),
        (f"{moved * 100:+.1f} points for {original.label}", "normal", "auto"),
    )
    for column, name, expl, html, (delta, tint, arrow) in zip(
        columns, ("Original", "Perturbed"), (original, after), marks, deltas
    ):
        with column:
            st.subheader(name)
            st.html(html)
            st.metric("Prediction", expl.label, delta, delta_color=tint, delta_arrow=arrow)
            st.plotly_chart(span_grid_figure(expl), key=f"adv_grid_{name}", theme=None)
            if expl.attentions is not None:
                matrix = aggregate_attention(expl.attentions, "mean over heads")
                fig = attention_figure(matrix, list(expl.attention_tokens or ()), "Last layer, mean over heads")
                st.plotly_chart(fig, key=f"adv_attn_{name}", theme=None)


def a_corpus(directory: str, seed: int, antonyms: str) -> None:
    """A corpus under every chosen perturbation, computed on a Run click: accuracy, flips and shifts."""
    source = st.radio("Corpus", ["Shipped sample (40 sentences)", "Upload a file"], key="adv_source", horizontal=True)
    limit = st.slider("Examples (at most)", 5, 500, 40, step=5, key="adv_limit")
    kinds = st.multiselect(
        "Perturbations", PERTURBATIONS, list(PERTURBATIONS), key="adv_kinds", format_func=PERTURBATION_TITLES.get
    )
    data, suffix = SAMPLE.read_bytes(), ".txt"
    if source == "Upload a file":
        upload = st.file_uploader("Labelled SST lines, CSV, TSV or JSONL", type=SUFFIXES, key="adv_upload")
        data, suffix = (upload.getvalue(), Path(upload.name).suffix) if upload else (b"", "")
    request = (directory, data, suffix, limit, tuple(kinds), seed, antonyms)
    if st.button("Run", type="primary", key="adv_run", disabled=not (data and kinds)):
        st.session_state.adv_request = request
    done = st.session_state.get("adv_request")
    if done is None:
        return
    if done != request:
        st.info("The settings changed since these results: click Run to compute them again.")
    try:
        summary, rows = study(*done)
    except (*USER_ERRORS, ValueError) as err:
        st.error(str(err))
        return
    if summary.empty:
        st.warning("No perturbation applied (antonyms needs at least one pair).")
        return
    st.write(f"**{int(summary['examples'].max()):,}** examples, each perturbed in {len(summary)} ways")
    st.plotly_chart(perturbation_figure(summary), key="adv_bars", theme=None)
    st.caption(
        "Bars per perturbation (n = examples scored): accuracy before and after (share matching "
        "the gold label, needs labels); prediction changed (share whose label changed); shift of alpha and "
        "of [CLS] attention (0 = the same words weighted alike, 1 = no word in common). A robust model keeps "
        "its accuracy under shuffling and distractors; antonyms should change the prediction; a faithful "
        "explanation shifts when the prediction does."
    )
    shown = summary.assign(perturbation=[PERTURBATION_TITLES.get(p, p) for p in summary["perturbation"]])
    st.dataframe(shown.round(3).rename(columns=CORPUS_COLUMNS), hide_index=True)
    st.download_button("Download the summary (CSV)", summary.to_csv(index=False), "perturbation_summary.csv")
    st.download_button("Download every example (CSV)", rows.to_csv(index=False), "perturbation_examples.csv")


def main() -> None:
    sidebar_navigation()
    st.title("Adversarial and perturbed inputs")
    explainer = model_picker()
    if explainer is None:
        return
    if explainer.config.head != "span":
        st.info(
            f"{escape_text(explainer.name)} is a plain baseline ({escape_text(explainer.config.head)} head): it has "
            "no alpha, and this page compares alpha before and after each change. Choose a self-explaining model "
            "in the sidebar; the Explain and Compare pages show this model's gradient x input."
        )
        return
    if explainer.config.pair:
        st.info("Perturbations change the first text (the premise); the hypothesis is kept.")
    directory = st.session_state.model_directory
    with st.sidebar:
        seed = int(st.number_input("Seed", 0, 10_000, 0, key="adv_seed"))
        antonyms = st.text_area("Antonym pairs (word:antonym)", DEFAULT_ANTONYMS, key="adv_antonyms")
    single, corpus = st.tabs(["One example", "A corpus"])
    with single:
        try:
            one_example(explainer, directory, seed, antonyms)
        except (*USER_ERRORS, ValueError) as err:
            st.error(str(err))
    with corpus:
        a_corpus(directory, seed, antonyms)


main()
