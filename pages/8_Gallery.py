"""Gallery: pinned explanations, kept in the gallery database (see selfexplain/gallery/store.py).

Lists pins with filters, opens one (its stored top spans, prediction and note), deletes, exports
and imports JSONL. ``?pin=ID`` opens that pin: the permalink the Explain page shows after pinning.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.ui import PLOT_CONFIG
from pages.ui.gallery import gallery_store
from pages.ui.navigation import sidebar_navigation
from selfexplain.errors import USER_ERRORS, PinNotFoundError
from selfexplain.gallery.records import Pin
from selfexplain.gallery.transfer import parse_pins, pins_jsonl
from selfexplain.gallery.view import explain_link, permalink, pin_spans, summary_explanation
from selfexplain.views.figures import probability_figure
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.style import ACCENT

st.set_page_config(page_title="selfexplain · Gallery", page_icon=":pushpin:", layout="wide")
ALL = "All"


def close_pin() -> None:
    if "pin" in st.query_params:
        del st.query_params["pin"]
    st.session_state.pop("gallery_open", None)


def open_chosen() -> None:
    """The "Open a pin" box changed: show that pin (and put it in the URL)."""
    chosen = st.session_state.get("gallery_open")
    if chosen:
        st.query_params["pin"] = chosen


def show_pin(store, pin: Pin) -> None:
    """One pin: prediction, the text with its top spans shaded, the note, links, delete."""
    summary = summary_explanation(pin)
    st.subheader(f"Pin {pin.id}")
    st.caption(
        f"Pinned {pin.created:%Y-%m-%d %H:%M} UTC · model {escape_text(pin.model)} · "
        f"{escape_text(pin.label)} ({summary.confidence:.1%})"
    )
    if pin.note:
        st.html(
            f"<div class='selfexplain-note' style='border-left:4px solid {ACCENT};padding:4px 10px;margin:4px 0'>"
            f"{escape_text(pin.note)}</div>"
        )
    left, right = st.columns([3, 2])
    with left:
        overlapping = st.toggle("Allow overlapping spans", key="gallery_overlap")
        k = st.slider("Spans to show", 1, 20, 5, key="gallery_k")
        st.html(highlight_html(summary, pin_spans(pin, k, overlapping)))
        stored = pin.explanation.get("stored", {}).get("top_k", len(pin.explanation["spans"]))
        st.caption(f"The pin keeps the top {stored} spans of {pin.explanation['num_valid_spans']:,}, not the grid.")
    right.plotly_chart(probability_figure(summary), config=PLOT_CONFIG, key="gallery_probabilities")
    spans = pin_spans(pin, 20, overlapping=True)
    if spans:
        table = pd.DataFrame([{"rank": s.rank, "alpha": s.alpha, "span": s.text} for s in spans])
        st.dataframe(
            table,
            hide_index=True,
            column_config={"alpha": st.column_config.ProgressColumn("alpha", format="%.4f", min_value=0, max_value=1)},
        )
    url = st.context.url
    st.markdown("Permalink:")
    st.code(permalink(pin.id, url), language=None)
    c1, c2, c3 = st.columns(3)
    c1.link_button("Open on the Explain page", explain_link(pin, url))
    c2.download_button(
        "Download this pin (JSONL)", pins_jsonl([pin]), file_name=f"pin-{pin.id}.jsonl", key="gallery_pin_download"
    )
    if c3.button("Delete this pin", key="gallery_delete", type="secondary"):
        try:
            store.remove(pin.id)
        except USER_ERRORS as err:
            st.error(escape_text(str(err)))
            return
        st.session_state.gallery_message = f"Deleted pin {pin.id}."
        close_pin()
        st.rerun()


def show_list(store) -> None:
    """Filters, the table of pins, and the box that opens one."""
    search_col, model_col, label_col = st.columns([3, 2, 2])
    search = search_col.text_input("Filter", key="gallery_search", placeholder="words in the text, pair or note")
    model = model_col.selectbox("Model", [ALL, *store.distinct("model")], key="gallery_model")
    label = label_col.selectbox("Label", [ALL, *store.distinct("label")], key="gallery_label")
    pins = store.list(search=search, model=None if model == ALL else model, label=None if label == ALL else label)
    total = store.count()
    st.caption(f"{len(pins)} of {total} pin(s) · kept in {escape_text(store.backend)}")
    if not pins:
        st.info("No pins yet: explain a text on the Explain page and press **Pin**." if not total else "No match.")
        return
    rows = [
        {"id": p.id, "pinned (UTC)": p.created.strftime("%Y-%m-%d %H:%M"), "model": p.model, "label": p.label}
        | {"note": p.note, "text": p.text, "pair": p.pair or ""}
        for p in pins
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="gallery_table")
    names = {p.id: f"{p.id} · {p.label} · {' '.join(p.text.split())[:70]}" for p in pins}
    st.selectbox(
        "Open a pin",
        list(names),
        index=None,
        format_func=names.get,
        placeholder="Choose a pin…",
        key="gallery_open",
        on_change=open_chosen,
    )


def transfer(store) -> None:
    """Export every pin as JSONL; import a JSONL export (validated whole before anything is added)."""
    with st.expander("Export and import"):
        st.download_button(
            "Export all pins (JSONL)",
            lambda: pins_jsonl(store.iter_pins()),
            file_name="selfexplain-gallery.jsonl",
            mime="application/jsonl",
            key="gallery_export",
        )
        upload = st.file_uploader("Import pins (a JSONL export)", type=["jsonl", "json", "txt"], key="gallery_upload")
        if upload is not None and st.button("Import", key="gallery_import"):
            try:
                added, skipped = store.import_pins(parse_pins(upload.getvalue(), upload.name))
            except USER_ERRORS as err:
                st.error(f"Nothing imported: {escape_text(str(err))}")
            else:
                st.success(f"Imported {added} pin(s)" + (f"; {skipped} already present." if skipped else "."))


def main() -> None:
    sidebar_navigation()
    st.title("Gallery")
    st.caption("Explanations pinned from the Explain page or with `selfexplain gallery add`, kept in a database.")
    try:
        store = gallery_store()
    except USER_ERRORS as err:
        st.error(f"The gallery database cannot be opened: {escape_text(str(err))}")
        return
    message = st.session_state.pop("gallery_message", None)
    if message:
        st.success(message)
    wanted = st.query_params.get("pin")
    if wanted:
        try:
            pin = store.get(wanted)
        except PinNotFoundError:
            st.warning(f"No pin with id “{escape_text(wanted)}” (it may have been deleted).")
        except USER_ERRORS as err:
            st.error(escape_text(str(err)))
        else:
            show_pin(store, pin)
            st.button("Close this pin", key="gallery_close", on_click=close_pin)
        st.divider()
    show_list(store)
    transfer(store)


main()
