"""Explain page section: the flip certificate (the smallest set of top spans that changes the decision)."""

from __future__ import annotations

import streamlit as st

from pages.ui.loading import cached_explainer
from selfexplain.core.results.explanation import Explanation
from selfexplain.views.highlight import escape_text


def render_flip(explanation: Explanation) -> None:
    """The smallest set of top spans whose removal changes the decision (computed on request)."""
    if explanation.windows is not None:
        return
    with st.expander("What would flip the decision?"):
        st.caption(
            "The output is linear in alpha, so removing spans from alpha (and renormalising the rest) can be "
            "checked exactly for every set of the top 20 spans that carry weight (a span with alpha 0 changes "
            "nothing). The same spans are then deleted from the text and the model is run again: the two answers "
            "can differ, since deleting words also changes the encoder's input."
        )
        weighted = explanation.num_evidence
        if weighted <= 1:
            st.info(
                "One span carries all the weight: removing it from alpha leaves nothing to renormalise, so no set "
                "of spans can be removed from alpha alone."
                if weighted == 1
                else "No span carries weight."
            )
            return
        key = ("flip", explanation.text, explanation.pair, explanation.model_name)
        if st.button("Find the smallest set of spans", key="flip_button"):
            from selfexplain.lab.faithfulness.flip import flip_certificate

            explainer = cached_explainer(st.session_state.model_directory)
            st.session_state.flip = (key, flip_certificate(explainer, explanation.text, explanation.pair))
        found = st.session_state.get("flip")
        if not found or found[0] != key:
            return
        certificate = found[1]
        if certificate is None:
            st.info(f"No set of the top {min(20, weighted)} spans that carry weight flips this decision.")
            return
        spans = {s.rank: s for s in explanation.evidence_spans(20)}  # alpha-0 spans are not evidence
        removed = [spans[r] for r in certificate.ranks if r in spans]
        listed = "; ".join(f"#{s.rank} “{escape_text(s.text)}”" for s in removed)
        st.markdown(f"Removing {len(removed)} span(s): {listed}")
        left, right = st.columns(2)
        left.metric("Alpha without them (exact)", certificate.label, f"from {explanation.label}", delta_color="off")
        right.metric(
            "Words deleted, model rerun", certificate.deleted_label, f"from {explanation.label}", delta_color="off"
        )
