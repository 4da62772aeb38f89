"""Model card: what the loaded model was trained on, how accurate it is next to its baseline, how sharp
and how faithful its explanations are, and its limitations, in plain words.

Read from the card in the model's folder (README.md, written by ``selfexplain train``) or, without one,
from its configuration. The card's Markdown is never rendered: only its parsed fields are shown, as
tables or escaped text.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_card, model_picker
from pages.ui.surrogate import render_fidelity_section
from selfexplain.core.modeling.model_card import CARD_FILE, Measure, ModelCard, card_from_config
from selfexplain.core.pipeline import SelfExplainer, available_models
from selfexplain.errors import USER_ERRORS
from selfexplain.views.card_view import command_model, measure_sections
from selfexplain.views.highlight import escape_text

st.set_page_config(page_title="selfexplain · Model card", layout="wide")


def load_card(explainer: SelfExplainer, directory: Path) -> tuple[ModelCard, bool]:
    """The folder's model card and True, or one built from the model's configuration and False (with a
    note saying why: no card, or one that cannot be read)."""
    try:
        card = model_card(str(directory))
    except USER_ERRORS as err:
        st.warning(
            f"This model's card cannot be read ({escape_text(str(err))}); what follows is from its configuration."
        )
        return card_from_config(explainer.config), False
    if card is not None:
        return card, True
    if not (directory / CARD_FILE).exists():
        st.info("This model folder has no model card (README.md); what follows is from its configuration.")
    return card_from_config(explainer.config), False


def _summary(card: ModelCard) -> str:
    reads = "a premise and a hypothesis (two texts)" if card.pair else "one text"
    labels = ", ".join(f"*{escape_text(label)}*" for label in card.labels)
    what = f"**What it does.** It reads {reads} and chooses one of {len(card.labels)} labels: {labels}."
    if card.head != "span":
        return what + (
            "\n\n**Explanations.** It has no alpha: this is a plain baseline model, trained for comparison. The "
            "Explain and Compare pages show gradient x input per word for it instead (a method applied after the "
            "fact, not the model's own reason)."
        )
    return (
        f"{what}\n\n**How it explains itself.** Before deciding, it gives every stretch of consecutive words "
        "(a *span*) a weight called alpha, and its decision is computed from the weighted spans only. The spans "
        "with the most weight are therefore the model's own reason, not a guess made afterwards."
    )


def _measures(measures: tuple[Measure, ...], command: str) -> None:
    if not measures:
        st.info("Not measured for this model yet. This command measures it:")
        st.code(command, language="bash")
        return
    st.table(measure_table(measures))
    if not any(m.measured_on for m in measures):
        st.caption("The card does not say which inputs these numbers were measured on.")


def measure_table(measures: tuple[Measure, ...]) -> pd.DataFrame:
    """The measures as a table, with the inputs each number was measured on (the same measure can appear
    under sharpness and faithfulness with different numbers when they were measured on different inputs)."""
    if any(m.measured_on for m in measures):
        rows = [(m.name, m.value, m.measured_on or "not recorded", m.meaning) for m in measures]
        return pd.DataFrame(rows, columns=["measure", "value", "measured on", "what it means"]).set_index("measure")
    rows = [(m.name, m.value, m.meaning) for m in measures]
    return pd.DataFrame(rows, columns=["measure", "value", "what it means"]).set_index("measure")


def accuracy(card: ModelCard, directory: Path) -> None:
    """Test and dev accuracy next to the baseline's, in numbers and in one sentence."""
    st.subheader("How often it is right")
    columns = st.columns(3)
    gap = None
    if card.test_accuracy is not None and card.baseline_accuracy is not None:
        gap = 100 * (card.test_accuracy - card.baseline_accuracy)
    columns[0].metric(
        "Test accuracy",
        "not measured" if card.test_accuracy is None else f"{card.test_accuracy:.1%}",
        delta=None if gap is None else f"{gap:+.1f} points vs the baseline",
        help="Share of held-back test inputs it labels correctly",
    )
    columns[1].metric("Dev accuracy", "unknown" if card.dev_accuracy is None else f"{card.dev_accuracy:.1%}")
    columns[2].metric(
        "Baseline", "none recorded" if card.baseline_accuracy is None else f"{card.baseline_accuracy:.1%}"
    )
    if card.test_accuracy is None:
        model = command_model(directory, available_models())
        st.code(f"selfexplain eval --model {model} --data TEST_FILE --record", language="bash")
        return
    where = escape_text(card.test_data or "the test set")
    count = f" ({card.test_examples:,} inputs)" if card.test_examples else ""
    sentence = f"On {where}{count} it labels about {100 * card.test_accuracy:.0f} of every 100 correctly"
    if card.baseline_accuracy is not None:
        baseline = escape_text(card.baseline or "a plain model")
        sentence += f"; the baseline ({baseline}) about {100 * card.baseline_accuracy:.0f}"
    st.markdown(sentence + ".")


def explanation_measures(card: ModelCard, model: str) -> None:
    """How sharp and how faithful alpha is: the deletion and flip tests under faithfulness (see
    :func:`selfexplain.views.card_view.measure_sections`), a command where nothing is measured."""
    sharp, faithful = measure_sections(card)
    st.subheader("How sharp its explanations are")
    st.caption("Does the weight go to a few spans (a clear explanation) or spread over all of them?")
    _measures(sharp, f"selfexplain sharpness --model {model} --data TEST_FILE --out OUT_DIR")
    st.subheader("Is the explanation faithful?")
    st.caption("When the spans it points at are removed or changed, does the decision really change?")
    _measures(faithful, f"selfexplain faithfulness --model {model} --data TEST_FILE --out OUT_DIR")


def main() -> None:
    sidebar_navigation()
    st.title("Model card")
    st.caption("What this model learned from, how often it is right, and how far its explanations can be trusted.")
    explainer = model_picker()
    if explainer is None:
        return
    directory = Path(st.session_state.model_directory)
    card, from_file = load_card(explainer, directory)

    st.header(escape_text(card.name))
    st.markdown(_summary(card))
    render_fidelity_section(explainer.config, card)
    if card.base_model or card.encoder:
        st.caption(f"Encoder: {escape_text(card.base_model or card.encoder)}")

    st.subheader("What it was trained on")
    if card.data:
        st.table(pd.DataFrame(list(card.data), columns=["part", "data"]).set_index("part"))
    else:
        st.caption("The card does not say.")

    accuracy(card, directory)

    if card.head == "span":  # a plain baseline has no alpha: nothing to be sharp or faithful
        explanation_measures(card, command_model(directory, available_models()))

    st.subheader("Limitations")
    st.markdown("\n".join(f"- {escape_text(item)}" for item in card.limitations) or "None recorded.")

    with st.expander("Training recipe (every option)"):
        recipe = pd.DataFrame(
            [(key, "none" if v is None else str(v)) for key, v in card.recipe], columns=["option", "value"]
        )
        st.dataframe(recipe, hide_index=True)
    if card.sources:
        with st.expander("Where the numbers come from"):
            st.code("\n".join(card.sources), language="bash")
    if from_file:  # a card that parsed, so at most 1 MB
        st.download_button("Download the model card", (directory / CARD_FILE).read_bytes(), CARD_FILE, "text/markdown")


main()
