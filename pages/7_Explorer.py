"""Explorer: data-set level views over a batch result (from the Batch page or an uploaded JSONL)."""

from __future__ import annotations

import streamlit as st

from pages.ui import PLOT_CONFIG
from pages.ui.navigation import sidebar_navigation
from selfexplain.batch import explore
from selfexplain.batch.figures import (
    accuracy_figure,
    confusion_figure,
    entropy_figure,
    span_length_figure,
    top_spans_figure,
)
from selfexplain.batch.records import parse_results
from selfexplain.core.formats import suffixes

st.set_page_config(page_title="selfexplain · Explorer", page_icon=":mag:", layout="wide")


def load_records() -> list[dict] | None:
    """The Batch page's results, or a JSONL results file written by the page or `selfexplain batch`."""
    job = st.session_state.get("batch_job")
    upload = st.file_uploader("Or open a results file (JSONL)", type=suffixes("jsonl"), key="explorer_file")
    if upload is not None:
        try:
            return parse_results(upload.getvalue(), upload.name)
        except ValueError as err:
            st.error(str(err))
            return None
    if job and job["records"]:
        st.caption(f"Results of the Batch page: {len(job['records']):,} rows")
        return job["records"]
    st.info("Run a batch on the Batch page, or upload a results file.")
    return None


def chart(figure, key: str) -> None:
    st.plotly_chart(figure, config=PLOT_CONFIG, key=key)


def main() -> None:
    sidebar_navigation()
    st.title("Explore a data set's explanations")
    st.caption("Each chart downloads as PNG from its toolbar; each table as CSV from its toolbar.")
    records = load_records()
    if not records:
        return
    frame = explore.records_frame(records)
    rows = explore.explained(frame)
    if rows.empty:
        st.warning("No row of this result has a prediction.")
        return
    stats = explore.summary(records)
    names = explore.label_names_of(records)  # the model's label order: one colour per label on the whole page
    m1, m2, m3 = st.columns(3)
    m1.metric("Rows explained", f"{stats['explained']:,}")
    m2.metric("Not explained", f"{stats['errors']:,}")
    m3.metric("Accuracy", f"{stats['accuracy']:.1%}" if stats["accuracy"] is not None else "no gold labels")

    st.subheader("Words in the top spans, per predicted class")
    per_row = st.slider("Top spans per example", 1, 5, 1, key="explorer_per_row")
    words = explore.top_words_by_class(frame, per_row=per_row, top=10)
    title = "Words most often in the top spans, per predicted class"
    chart(top_spans_figure(words, names, item="word", title=title), "explorer_words")
    st.caption(
        "A bar counts the examples of that class whose top span(s) hold the word (each example once; common "
        "words such as “the” or “a” left out, “not” and “but” kept). A top span is usually a phrase of its own, "
        "so whole spans rarely repeat; their words do. Panel titles are in each label's colour, as in the "
        "charts below."
    )
    st.dataframe(
        words,
        hide_index=True,
        column_config={"share": st.column_config.NumberColumn("share of the class", format="percent")},
    )
    with st.expander("The top spans as they are (normalised text)"):
        spans = explore.top_spans_by_class(frame, per_row=per_row, top=10)
        repeated = int((spans["count"] > 1).sum())
        st.caption(
            f"{repeated:,} of these spans occur in more than one example." if repeated else
            "Every span here occurs in one example only: the words above are what the classes share."
        )  # fmt: skip
        st.dataframe(spans, hide_index=True)

    st.subheader("Span length and spread")
    left, right = st.columns(2)
    with left:
        chart(span_length_figure(explore.span_length_counts(frame), names), "explorer_lengths")
    with right:
        chart(entropy_figure(frame, names), "explorer_entropy")
        if rows["attention_entropy"].isna().all():
            st.caption(
                "Attention entropy was not stored: tick the attention option on the Batch page (or --attention)."
            )

    if stats["labelled"]:
        st.subheader("Accuracy")
        a1, a2 = st.columns(2)
        with a1:
            table = explore.accuracy_by(frame, "top_span_length")
            chart(accuracy_figure(table, "top_span_length", "Accuracy by top-span length"), "explorer_acc_span")
        with a2:
            table = explore.accuracy_by(frame, "num_tokens", explore.LENGTH_BINS)
            chart(accuracy_figure(table, "num_tokens", "Accuracy by input length (tokens)"), "explorer_acc_len")
        chart(confusion_figure(explore.confusion(frame, names)), "explorer_confusion")

    st.subheader("Where alpha and attention disagree most")
    table = explore.disagreements(frame, top=20)
    if table.empty:
        st.caption("Needs the [CLS]-attention fields (attention option on the Batch page, or --attention).")
    else:
        st.caption("Distance from the top attention token to the top alpha span, as a share of the input length.")
        st.dataframe(table, hide_index=True)


main()
