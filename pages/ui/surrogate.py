"""The note a surrogate carries wherever it is loaded (``selfexplain distill``): in the sidebar, "explains a
surrogate of TEACHER" with its measured agreement; on the Model card page, the fidelity section.

The teacher's name comes from the model card (``surrogate_of``); the figures from ``selfexplain.json``'s
``metrics`` (``surrogate_agreement``, ``surrogate_tvd``, ``surrogate_examples``), else from the card.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import ModelCard
from selfexplain.lab.distill.carrier import CARRIER_INPUTS, CARRIER_SHARE, CLOSING_SHARE
from selfexplain.views.highlight import escape_text


def is_surrogate(config: ModelConfig, card: ModelCard | None) -> bool:
    return "surrogate_agreement" in config.metrics or (card is not None and bool(card.surrogate_of))


def surrogate_line(config: ModelConfig, card: ModelCard | None) -> str | None:
    """One line of Markdown (escaped) for a surrogate, None for any other model."""
    if not is_surrogate(config, card):
        return None
    teacher = card.surrogate_of if card is not None and card.surrogate_of else "another model"
    line = f"Explains a surrogate of **{escape_text(teacher)}**"
    agreement = config.metrics.get("surrogate_agreement")
    if agreement is None:
        return line + ": its agreement with that model was not measured."
    examples = config.metrics.get("surrogate_examples")
    tvd = config.metrics.get("surrogate_tvd")
    on = f" of {int(examples):,} held-out inputs" if examples else " of the held-out inputs"
    distance = f" (mean TVD {tvd:.3f})" if tvd is not None else ""
    line = f"{line}: it predicts that model's label on {agreement:.1%}{on}{distance}."
    repeated = config.metrics.get("surrogate_top_span_share")
    closing = config.metrics.get("surrogate_closing_share")
    checked = f"the first {min(int(examples), CARRIER_INPUTS):,} of them" if examples else "them"
    if repeated is not None and repeated >= CARRIER_SHARE:
        line += (
            f" **Its alpha is a carrier**: one span is the top span of {repeated:.0%} of {checked}, so its"
            " spans do not show what decided."
        )
    elif closing is not None and closing > CLOSING_SHARE:
        line += (
            f" **Its alpha is a carrier**: its top span ends on the closing punctuation on {closing:.0%} of"
            f" {checked}, so those spans do not show what decided."
        )
    return line


def render_sidebar_note(config: ModelConfig, card: ModelCard | None) -> None:
    """In the sidebar (the caller's container): the surrogate's line, if it is one."""
    line = surrogate_line(config, card)
    if line is not None:
        st.caption(line)


def fidelity_table(card: ModelCard) -> pd.DataFrame:
    rows = [(m.name, m.value, m.measured_on or "not recorded", m.meaning) for m in card.fidelity]
    return pd.DataFrame(rows, columns=["measure", "value", "measured on", "what it means"]).set_index("measure")


def render_fidelity_section(config: ModelConfig, card: ModelCard | None) -> None:
    """Model card page: whose surrogate this is, how closely it follows it, and what its alpha can say; for a
    distilled student shipped as a model of its own (``finish_card.py --own-model``), its agreement alone."""
    line = surrogate_line(config, card)
    if line is None:
        if card is not None and card.fidelity:  # a distilled student shipped as a model of its own
            st.subheader("Agreement with the model it was distilled from")
            st.markdown(
                "It was trained on that model's predicted probabilities, not gold labels, and is shipped as a "
                "classifier of its own: its alpha explains **its own** decisions. How often they agree:"
            )
            st.table(fidelity_table(card))
        return
    st.subheader("Fidelity to the model it imitates")
    st.markdown(line)
    st.markdown(
        "It was trained to reproduce that model's predictions, not gold labels. Its alpha explains **its own** "
        "decision: where it predicts another label than that model, its explanation does not apply; where they "
        "agree, the spans show what suffices for the surrogate to give the same answer, not what that model read."
    )
    if card is not None and card.fidelity:
        st.table(fidelity_table(card))
