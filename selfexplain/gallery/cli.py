"""``selfexplain gallery add|list|show|remove|export|import``: the pin store from the command line.

The database is the one the app uses (``SELFEXPLAIN_DB_URL``, else ``$SELFEXPLAIN_HOME/gallery.sqlite3``).
Imports stay inside the handlers so ``selfexplain --help`` loads neither SQLAlchemy nor torch.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from selfexplain.support.terminal import json_printable, printable, say

if TYPE_CHECKING:
    from selfexplain.gallery.records import PinSummary

PAGE = 50


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``gallery`` and its actions."""
    gallery = subparsers.add_parser(
        "gallery", help="pinned explanations in a database (SELFEXPLAIN_DB_URL or $SELFEXPLAIN_HOME/gallery.sqlite3)"
    )
    actions = gallery.add_subparsers(dest="gallery_action", required=True)
    add = actions.add_parser("add", help="explain a text and pin it; prints the new pin's id")
    add.add_argument("text", help="the text to explain and pin")
    add.add_argument("--pair", default=None, help="second text (hypothesis) for pair models")
    add.add_argument("--model", default=None, help="shipped model name or model folder (default sst5-minilm)")
    add.add_argument("--note", default="", help="a note kept with the pin")
    add.set_defaults(handler=run_add)
    listing = actions.add_parser("list", help="pins, newest first, a page at a time")
    listing.add_argument("--search", default="", help="only pins whose text, pair, note, model or label contains this")
    listing.add_argument("--model", default=None, help="only pins of this model")
    listing.add_argument("--label", default=None, help="only pins with this predicted label")
    listing.add_argument("--limit", type=int, default=PAGE, help=f"pins per page (default {PAGE}; 0 lists all)")
    listing.add_argument("--after", default=None, metavar="ID", help="the page after this pin (printed at the end)")
    listing.add_argument("--json", action="store_true", help="one JSON array of pins (without explanations)")
    listing.set_defaults(handler=run_list)
    show = actions.add_parser("show", help="one pin: prediction, top spans, note")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="the whole pin, stored explanation included")
    show.set_defaults(handler=run_show)
    remove = actions.add_parser("remove", help="delete a pin")
    remove.add_argument("id")
    remove.set_defaults(handler=run_remove)
    export = actions.add_parser("export", help="write every pin to a JSONL file")
    export.add_argument("file", type=Path)
    export.set_defaults(handler=run_export)
    load = actions.add_parser("import", help="add the pins of a JSONL export (all or none; known ids skipped)")
    load.add_argument("file", type=Path)
    load.set_defaults(handler=run_import)


def _store():
    from selfexplain.gallery.store import GalleryStore

    return GalleryStore()


def _one_line(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters, controls shown escaped (never sent raw)."""
    flat = " ".join(text.split())
    flat = flat if len(flat) <= width else flat[: width - 1] + "…"
    return printable(flat, lines=False)


def run_add(args: argparse.Namespace) -> int:
    from selfexplain.core.pipeline import load_model, resolve_model
    from selfexplain.gallery.records import check_pinnable

    check_pinnable(args.text, args.pair)  # a text the gallery cannot keep is refused before it is explained
    store = _store()  # a bad database URL fails before the model loads
    explainer = load_model(resolve_model(args.model))
    explanation = explainer.explain(args.text, pair=args.pair, attentions=False)
    pin = store.add(explanation, explainer.name, note=args.note)
    say(pin.id)
    return 0


def _listed(args: argparse.Namespace) -> Iterator[PinSummary]:
    """The pins asked for, a page at a time; ``--limit 0`` walks every page. Says on stderr how to go on."""
    from selfexplain.errors import InvalidInputError

    if args.limit < 0:
        raise InvalidInputError("--limit must be 0 (every pin) or more")
    store, after = _store(), args.after
    while True:
        pins, after = store.page(args.search, args.model, args.label, limit=args.limit or 500, after=after)
        yield from pins
        if after is None:
            return
        if args.limit:
            say(f"more pins: selfexplain gallery list --after {after} (with the same filters)", file=sys.stderr)
            return


def run_list(args: argparse.Namespace) -> int:
    if args.json:  # one array, written pin by pin once the first page has been read (errors come first)
        pins = _listed(args)
        first = next(pins, None)
        print("[", end="")
        for n, pin in enumerate(itertools.chain([first], pins) if first is not None else ()):
            print((", " if n else "") + json_printable(json.dumps(pin.to_dict(), ensure_ascii=False)), end="")
        print("]")
        return 0
    listed = 0
    for pin in _listed(args):
        when = pin.created.strftime("%Y-%m-%d %H:%M")
        note = f"  [{_one_line(pin.note, 30)}]" if pin.note else ""
        print(f"{printable(pin.id)}  {when}  {_one_line(pin.model, 20):<20}  {_one_line(pin.label, 14):<14}  "
              f"{_one_line(pin.text, 60)}{note}")  # fmt: skip
        listed += 1
    if not listed:
        print("no pins")
    return 0


def run_show(args: argparse.Namespace) -> int:
    pin = _store().get(args.id)
    if args.json:
        print(json_printable(json.dumps(pin.to_dict(), ensure_ascii=False)))
        return 0
    probabilities = pin.explanation["probabilities"]
    say(f"pin {pin.id}  ·  {pin.created.isoformat(timespec='seconds')}  ·  model {pin.model}")
    say(f"text: {pin.text}")
    if pin.pair is not None:
        say(f"pair: {pin.pair}")
    if pin.note:
        say(f"note: {pin.note}")
    say(f"{pin.label}  (" + ", ".join(f"{n} {p:.3f}" for n, p in probabilities.items()) + ")")
    shown = [span for span in pin.explanation["spans"] if span["alpha"] > 0]
    for span in shown:
        say(f"{span['rank']:>3}. {span['alpha']:.4f}  {printable(span['text'], lines=False)}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    _store().remove(args.id)
    say(f"removed {args.id}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    count = _store().export_jsonl(args.file)
    say(f"exported {count} pin(s) to {args.file}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from selfexplain.gallery.transfer import check_pins, open_pins

    with open_pins(args.file) as handle:
        check_pins(handle, str(args.file))  # a bad file is reported before the database is opened
        added, skipped = _store().import_stream(handle, str(args.file), checked=True)
    say(f"imported {added} pin(s) from {args.file}" + (f"; {skipped} already present" if skipped else ""))
    return 0
