"""Gallery: pinned explanations, kept in the gallery database (see selfexplain/gallery/store.py).

Lists pins a page at a time (keyset pages: the first page, then "More pins"), with filters; opens one (its
stored top spans, prediction and note), deletes, exports and imports JSONL. ``?pin=ID`` opens that pin:
the permalink the Explain page shows after pinning. A pin is shown only as the pin's checks vouch for it
(:mod:`selfexplain.gallery.records`, the one schema); a damaged one is named, with a delete button. No traceback reaches
the browser: an unexpected error in a part of the page is logged with its traceback and shown in one line.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable

import pandas as pd
import streamlit as st

from pages.ui import PLOT_CONFIG
from pages.ui.gallery import gallery_store
from pages.ui.navigation import sidebar_navigation
from selfexplain.core.formats import suffixes
from selfexplain.errors import USER_ERRORS, PinNotFoundError
from selfexplain.gallery.records import DamagedPinError, Pin
from selfexplain.gallery.transfer import pins_jsonl
from selfexplain.gallery.view import explain_link, permalink, pin_spans, summary_explanation
from selfexplain.views.evidence import kept_caption
from selfexplain.views.figures import probability_figure
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.style import ACCENT

st.set_page_config(page_title="selfexplain · Gallery", page_icon=":pushpin:", layout="wide")
ALL = "All"
PAGE_SIZE = 50
PAGE_EXPORT_PINS = 20_000  # larger galleries export from the command line (streamed to a file)
log = logging.getLogger("selfexplain.pages.gallery")


def guarded(part: str, action: Callable[..., None], *args: object) -> None:
    """Run one part of the page: a user error is its message; anything else is logged with its traceback
    and shown as one line (the browser never sees a traceback, a path or an exception type)."""
    try:
        action(*args)
    except USER_ERRORS as err:
        st.error(escape_text(str(err)))
    except Exception:
        log.exception("Gallery page: the %s failed", part)
        st.error(f"The {part} cannot be shown because of an internal error; the server log has the details.")


def close_pin() -> None:
    if "pin" in st.query_params:
        del st.query_params["pin"]
    st.session_state.pop("gallery_open", None)


def open_chosen() -> None:
    """The "Open a pin" box changed: show that pin (and put it in the URL)."""
    chosen = st.session_state.get("gallery_open")
    if chosen:
        st.query_params["pin"] = chosen


def delete_button(store, pin_id: str, key: str) -> None:
    if st.button("Delete this pin", key=key, type="secondary"):
        store.remove(pin_id)
        st.session_state.gallery_message = f"Deleted pin {pin_id}."
        close_pin()
        st.rerun()


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
        weighted = pin_spans(pin, 20, overlapping=True)  # spans with alpha above 0: no more are offered
        most = len(weighted)
        if most >= 2:
            k = st.slider("Spans to show", 1, most, min(5, most), key=f"gallery_k_{most}")
        else:
            k = 1
            st.caption("One span carries weight." if most == 1 else "No span carries weight.")
        st.html(highlight_html(summary, pin_spans(pin, k, overlapping)))
        held = sum(1 for span in pin.explanation["spans"] if span["alpha"] > 0)  # what the pin holds, not top_k
        evidence = pin.explanation.get("num_evidence_spans")
        st.caption(kept_caption(held, evidence, pin.explanation["num_valid_spans"]))
    right.plotly_chart(probability_figure(summary), config=PLOT_CONFIG, key="gallery_probabilities")
    if weighted:
        table = pd.DataFrame([{"rank": s.rank, "alpha": s.alpha, "span": s.text} for s in weighted])
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
    with c3:
        delete_button(store, pin.id, "gallery_delete")


def show_wanted(store, wanted: str) -> None:
    """The pin named in the URL, a warning when there is none, or a damaged pin's name and delete button."""
    try:
        pin = store.get(wanted)
    except PinNotFoundError:
        st.warning(f"No pin with id “{escape_text(wanted)}” (it may have been deleted).")
    except DamagedPinError as err:
        st.error(escape_text(str(err)))
        delete_button(store, err.pin_id, "gallery_delete_damaged")
    else:
        show_pin(store, pin)
    st.button("Close this pin", key="gallery_close", on_click=close_pin)


def page_turn(step: str, after: str | None = None) -> None:
    """Move through the keyset pages: ``more`` starts a page after ``after``; ``newest`` goes back."""
    stack = st.session_state.setdefault("gallery_after", [])
    if step == "more" and after is not None:
        stack.append(after)
    elif step == "newest":
        stack.clear()


def show_list(store) -> None:
    """Filters, one page of pins, the controls to turn pages, and the box that opens a pin."""
    search_col, model_col, label_col = st.columns([3, 2, 2])
    search = search_col.text_input("Filter", key="gallery_search", placeholder="words in the text, pair or note")
    model = model_col.selectbox("Model", [ALL, *store.distinct("model")], key="gallery_model")
    label = label_col.selectbox("Label", [ALL, *store.distinct("label")], key="gallery_label")
    filters = (search.strip(), None if model == ALL else model, None if label == ALL else label)
    if st.session_state.get("gallery_filters") != filters:  # new filters start from the newest pin
        st.session_state.gallery_filters, st.session_state.gallery_after = filters, []
    stack = st.session_state.setdefault("gallery_after", [])
    try:
        pins, next_after = store.page(*filters, limit=PAGE_SIZE, after=stack[-1] if stack else None)
    except PinNotFoundError:  # the pin this page started after was deleted: back to the newest
        stack.clear()
        pins, next_after = store.page(*filters, limit=PAGE_SIZE)
    total = store.count()
    st.caption(f"{len(pins):,} of {total:,} pin(s) · kept in {escape_text(store.backend)}")
    if pins and (stack or next_after is not None or any(filters)):
        first, matching = PAGE_SIZE * len(stack) + 1, store.count(*filters) if any(filters) else total
        which = "that match" if any(filters) else "in all"
        st.caption(f"Showing pins {first:,}–{first + len(pins) - 1:,} of the {matching:,} {which}, newest first.")
    if not pins:
        st.info("No pins yet: explain a text on the Explain page and press **Pin**." if not total else "No match.")
        return
    rows = [
        {"id": p.id, "pinned (UTC)": p.created.strftime("%Y-%m-%d %H:%M"), "model": p.model, "label": p.label}
        | {"note": p.note, "text": p.text, "pair": p.pair or ""}
        for p in pins
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="gallery_table")
    back, more = st.columns(2)
    if stack:
        back.button("Back to the newest pins", key="gallery_newest", on_click=page_turn, args=("newest",))
    if next_after is not None:
        more.button(f"More pins (next {PAGE_SIZE})", key="gallery_more", on_click=page_turn, args=("more", next_after))
    names = {p.id: f"{p.id} · {p.label} · {' '.join(p.text.split())[:70]}" for p in pins}
    st.selectbox(
        "Open a pin",
        list(names),
        index=None,
        format_func=lambda pin_id: names.get(pin_id, str(pin_id)),
        placeholder="Choose a pin…",
        key="gallery_open",
        on_change=open_chosen,
    )


def export_bytes(store) -> bytes:
    """The JSONL export, streamed from the stored rows into one buffer (only when the button is pressed)."""
    buffer = io.BytesIO()
    for line in store.export_lines():
        buffer.write(line.encode("utf-8"))
    return buffer.getvalue()


def transfer(store) -> None:
    """Export every pin as JSONL; import a JSONL export (validated whole before anything is added)."""
    with st.expander("Export and import"):
        total = store.count()
        if total <= PAGE_EXPORT_PINS:
            st.download_button(
                "Export all pins (JSONL)",
                lambda: export_bytes(store),
                file_name="selfexplain-gallery.jsonl",
                mime="application/jsonl",
                key="gallery_export",
            )
        else:
            st.caption(
                f"{total:,} pins are more than this page exports ({PAGE_EXPORT_PINS:,}): export them with "
                "`selfexplain gallery export FILE`, which streams them to a file."
            )
        upload = st.file_uploader("Import pins (a JSONL export)", type=suffixes("jsonl", "txt"), key="gallery_upload")
        if upload is not None and st.button("Import", key="gallery_import"):
            try:
                added, skipped = store.import_stream(upload, upload.name)
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
        guarded("pin", show_wanted, store, wanted)
        st.divider()
    guarded("list of pins", show_list, store)
    guarded("export and import", transfer, store)


main()
