"""Where pins live: :class:`GalleryStore` over one SQLAlchemy database (see
:mod:`selfexplain.gallery.location` for where that is and the SQLite settings).

Each add is one transaction, so a process killed mid-write leaves the last committed state. The schema
is migrated on open (:mod:`selfexplain.gallery.schema`).

**At scale.** Listing is keyset-paginated: :meth:`GalleryStore.page` returns ``limit`` pins after a given
pin (newest first) through the ``(created_at, id)`` index, so a page costs the same on the first page
and the thousandth. An export streams the stored rows oldest first in keyset batches and writes each
line from the stored JSON as is (no parse, no Pin objects): linear time, memory of one batch. An import
is validated line by line in a first pass and added in batches inside one transaction in a second
(:mod:`selfexplain.gallery.transfer`). A pin read back for showing (:meth:`GalleryStore.get`) passes the
pin schema again: a damaged row is an error naming the pin, never a half-trusted pin.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from selfexplain.errors import GalleryDatabaseError, GalleryImportError, PinNotFoundError
from selfexplain.gallery.location import database_url, first_line, open_engine
from selfexplain.gallery.records import (
    ID_PATTERN,
    DamagedPinError,
    Pin,
    PinSummary,
    stored_explanation,
    utc,
    validate_record,
)
from selfexplain.gallery.schema import PINS, migrate
from selfexplain.gallery.transfer import check_pins, open_pins, scan_pins, write_lines

BATCH = 500  # rows per keyset query and per insert
SUMMARY = ("id", "created_at", "model", "text", "pair", "note", "label")


class GalleryStore:
    """Pins in one database. Thread-safe (one engine, a connection per operation)."""

    def __init__(self, url: str | None = None) -> None:
        self.engine, self.url = open_engine(url or database_url())  # self.url hides any password
        self.schema_before = self._guard(self._migrate)

    @property
    def backend(self) -> str:
        """The kind of database, for display ("SQLite", "PostgreSQL", ...): never the URL, which may name
        hosts and users."""
        names = {"sqlite": "SQLite", "postgresql": "PostgreSQL", "mysql": "MySQL", "mariadb": "MariaDB"}
        return names.get(self.engine.dialect.name, self.engine.dialect.name)

    def _guard(self, action: Any) -> Any:
        try:
            return action()
        except SQLAlchemyError as err:
            raise GalleryDatabaseError(f"gallery database {self.url}: {first_line(err)}") from None

    def _write(self) -> Any:
        """A connection whose transaction takes the write lock at once (SQLite: BEGIN IMMEDIATE)."""
        return self.engine.connect().execution_options(gallery_write=True)

    def _migrate(self) -> int:
        with self._write() as connection, connection.begin():
            return migrate(connection)

    def close(self) -> None:
        self.engine.dispose()

    # adding ---------------------------------------------------------------------------------------

    def add_pin(self, pin: Pin) -> Pin:
        """Store a validated pin as is (its id must be new)."""
        row = _row(pin)

        def insert() -> None:
            with self._write() as connection, connection.begin():
                connection.execute(sa.insert(PINS).values(**row))

        self._guard(insert)
        return pin

    def add(
        self, explanation: Any, model: str, note: str = "", text: str | None = None, pair: str | None = None
    ) -> Pin:
        """Pin an :class:`~selfexplain.core.results.explanation.Explanation` (its text and pair unless given) with a
        new id."""
        data = stored_explanation(explanation)
        record = {
            "id": secrets.token_hex(6),
            "created": datetime.now(UTC).isoformat(),
            "model": model or explanation.model_name or "unknown",
            "text": explanation.text if text is None else text,
            "pair": explanation.pair if text is None else pair,
            "note": note.strip(),
            "label": explanation.label,
            "explanation": data,
        }
        return self.add_pin(validate_record(record))

    # reading --------------------------------------------------------------------------------------

    def _filtered(self, query: sa.Select, search: str, model: str | None, label: str | None) -> sa.Select:
        needle = search.strip().lower()
        if needle:
            fields = [sa.func.lower(sa.func.coalesce(PINS.c[name], "")) for name in ("text", "pair", "note")]
            fields += [sa.func.lower(PINS.c.model), sa.func.lower(PINS.c.label)]
            query = query.where(sa.or_(*(field.contains(needle, autoescape=True) for field in fields)))
        if model:
            query = query.where(PINS.c.model == model)
        if label:
            query = query.where(PINS.c.label == label)
        return query

    def _rows(self, query: sa.Select) -> list[Any]:
        def fetch() -> list[Any]:
            with self.engine.connect() as connection:
                return list(connection.execute(query))

        return self._guard(fetch)

    def _key(self, pin_id: str) -> tuple[datetime, str]:
        """The ``(created_at, id)`` keyset position of a pin (as stored); PinNotFoundError if it is gone."""
        if not ID_PATTERN.fullmatch(pin_id or ""):
            raise PinNotFoundError(f"no pin with id {pin_id!r}")
        rows = self._rows(sa.select(PINS.c.created_at, PINS.c.id).where(PINS.c.id == pin_id))
        if not rows:
            raise PinNotFoundError(f"no pin with id {pin_id!r} in the gallery (it may have been deleted)")
        return rows[0].created_at, rows[0].id

    def page(
        self,
        search: str = "",
        model: str | None = None,
        label: str | None = None,
        limit: int = 50,
        after: str | None = None,
    ) -> tuple[list[PinSummary], str | None]:
        """Up to ``limit`` pins, newest first, that come after the pin ``after`` (from the newest when None),
        and the id to pass as ``after`` for the next page (None on the last). ``search`` matches text, pair,
        note, model or label (case-insensitive)."""
        columns = [PINS.c[name] for name in SUMMARY]
        query = sa.select(*columns).order_by(PINS.c.created_at.desc(), PINS.c.id.desc())
        query = self._filtered(query, search, model, label)
        if after is not None:
            query = query.where(sa.tuple_(PINS.c.created_at, PINS.c.id) < sa.tuple_(*self._key(after)))
        rows = self._rows(query.limit(max(1, limit) + 1))
        pins = [_summary(row) for row in rows[: max(1, limit)]]
        return pins, (pins[-1].id if len(rows) > len(pins) else None)

    def list(
        self, search: str = "", model: str | None = None, label: str | None = None, limit: int | None = None
    ) -> list[PinSummary]:
        """Pins, newest first (the first ``limit`` of them, or all); see :meth:`page`."""
        columns = [PINS.c[name] for name in SUMMARY]
        query = sa.select(*columns).order_by(PINS.c.created_at.desc(), PINS.c.id.desc())
        query = self._filtered(query, search, model, label)
        return [_summary(row) for row in self._rows(query if limit is None else query.limit(limit))]

    def get(self, pin_id: str) -> Pin:
        """The pin with this id, checked against the pin schema; PinNotFoundError when there is none,
        GalleryDatabaseError when its stored row is damaged."""
        if not ID_PATTERN.fullmatch(pin_id or ""):
            raise PinNotFoundError(f"no pin with id {pin_id!r}")
        rows = self._rows(sa.select(PINS).where(PINS.c.id == pin_id))
        if not rows:
            raise PinNotFoundError(f"no pin with id {pin_id!r} in the gallery")
        return _pin(rows[0])

    def count(self, search: str = "", model: str | None = None, label: str | None = None) -> int:
        query = self._filtered(sa.select(sa.func.count()).select_from(PINS), search, model, label)
        return int(self._rows(query)[0][0] or 0)  # matching pins (all of them by default)

    def distinct(self, column: str) -> list[str]:
        """Sorted distinct values of ``model`` or ``label`` (the page's filters)."""
        if column not in ("model", "label"):
            raise ValueError(f"no filter on {column!r}")
        return sorted(row[0] for row in self._rows(sa.select(PINS.c[column]).distinct()))

    def _stored_rows(self, batch: int = BATCH) -> Iterator[Any]:
        """Every stored row, oldest first, ``batch`` at a time (keyset over the ``(created_at, id)`` index)."""
        after: tuple[datetime, str] | None = None
        while True:
            query = sa.select(PINS).order_by(PINS.c.created_at, PINS.c.id).limit(batch)
            if after is not None:
                query = query.where(sa.tuple_(PINS.c.created_at, PINS.c.id) > sa.tuple_(*after))
            rows = self._rows(query)
            yield from rows
            if len(rows) < batch:
                return
            after = (rows[-1].created_at, rows[-1].id)

    def iter_pins(self, batch: int = BATCH) -> Iterator[Pin]:
        """Every pin, oldest first, checked against the pin schema, read ``batch`` at a time."""
        return (_pin(row) for row in self._stored_rows(batch))

    def export_lines(self, batch: int = BATCH) -> Iterator[str]:
        """The JSONL export, a line per pin, oldest first, each written from the stored row as is."""
        return (_export_line(row) for row in self._stored_rows(batch))

    # changing -------------------------------------------------------------------------------------

    def remove(self, pin_id: str) -> None:
        """Delete a pin; PinNotFoundError if there is none with this id."""

        def delete() -> int:
            with self._write() as connection, connection.begin():
                return connection.execute(sa.delete(PINS).where(PINS.c.id == pin_id)).rowcount

        if not self._guard(delete):
            raise PinNotFoundError(f"no pin with id {pin_id!r} in the gallery")

    def export_jsonl(self, path: Path) -> int:
        """Write every pin to ``path`` as JSONL (streamed, atomically: a temporary file renamed into place)."""
        return write_lines(self.export_lines(), path)

    def _insert(self, connection: sa.Connection, pins: Iterable[Pin]) -> tuple[int, int]:
        added = seen = 0
        iterator = iter(pins)
        while batch := [_row(pin) for pin in islice(iterator, BATCH)]:
            ids = [row["id"] for row in batch]
            present = set(connection.execute(sa.select(PINS.c.id).where(PINS.c.id.in_(ids))).scalars())
            new = [row for row in batch if row["id"] not in present]
            if new:
                connection.execute(sa.insert(PINS), new)
            added, seen = added + len(new), seen + len(batch)
        return added, seen - added

    def import_pins(self, pins: Iterable[Pin]) -> tuple[int, int]:
        """Add validated pins in one transaction, ``BATCH`` at a time; ids already present are skipped.
        Returns (added, skipped). An error raised by ``pins`` midway rolls everything back."""

        def insert() -> tuple[int, int]:
            with self._write() as connection, connection.begin():
                return self._insert(connection, pins)

        return self._guard(insert)

    def import_stream(self, handle: BinaryIO, source: str, checked: bool = False) -> tuple[int, int]:
        """Import a seekable JSONL stream: every line validated first (unless ``checked`` says
        :func:`~selfexplain.gallery.transfer.check_pins` has just done so), then all added or none."""
        if not checked:
            check_pins(handle, source)
        return self.import_pins(scan_pins(handle, source))

    def import_jsonl(self, path: Path) -> tuple[int, int]:
        """Validate every line of a JSONL export, then add them all or none. Returns (added, skipped)."""
        with open_pins(path) as handle:
            return self.import_stream(handle, str(path))


def _row(pin: Pin) -> dict[str, Any]:
    values = {key: getattr(pin, key) for key in ("id", "model", "text", "pair", "note", "label")}
    return {**values, "created_at": utc(pin.created), "explanation": json.dumps(pin.explanation)}


def _summary(row: Any) -> PinSummary:
    return PinSummary(row.id, utc(row.created_at), row.model, row.text, row.pair, row.note, row.label)


def _pin(row: Any) -> Pin:
    """A stored row as a Pin that passes the pin schema; GalleryDatabaseError names a damaged one."""
    summary = _summary(row)
    try:
        explanation = json.loads(row.explanation)
        return validate_record({**summary.to_dict(), "explanation": explanation})
    except (GalleryImportError, ValueError, RecursionError) as err:
        raise DamagedPinError(
            row.id, f"pin {row.id} in the gallery is damaged and cannot be shown ({first_line(err)}); delete it"
        ) from None


def _export_line(row: Any) -> str:
    """The export line of a stored row, from its stored JSON as is: ``{...summary, "explanation": ...}``."""
    stored = row.explanation
    if not (stored.startswith("{") and stored.endswith("}")) or "\n" in stored:
        raise DamagedPinError(row.id, f"pin {row.id} in the gallery is damaged (its explanation is not a JSON object)")
    head = json.dumps(_summary(row).to_dict(), ensure_ascii=False)
    return f'{head[:-1]}, "explanation": {stored}}}\n'
