"""Where pins live: :class:`GalleryStore` over one SQLAlchemy database.

The database is ``$SELFEXPLAIN_DB_URL`` (any SQLAlchemy URL, e.g. ``postgresql+psycopg://user@host/db``)
or, by default, the SQLite file ``$SELFEXPLAIN_HOME/gallery.sqlite3`` (``SELFEXPLAIN_HOME`` defaults to
``$XDG_DATA_HOME/selfexplain``, i.e. ``~/.local/share/selfexplain``; the folder is created mode 0700).

SQLite runs in WAL mode with a 30 s busy timeout and every write transaction starts with
``BEGIN IMMEDIATE``, so concurrent writers queue instead of failing; each add is one transaction, so a
process killed mid-write leaves the last committed state. The schema is migrated on open
(:mod:`selfexplain.gallery.schema`).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import sqlite3
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from selfexplain.errors import GalleryDatabaseError, PinNotFoundError
from selfexplain.gallery.records import ID_PATTERN, Pin, PinSummary, stored_explanation, utc, validate_record
from selfexplain.gallery.schema import PINS, migrate
from selfexplain.gallery.transfer import read_pins, write_pins

BUSY_TIMEOUT_S = 30
DB_FILE = "gallery.sqlite3"


def gallery_home() -> Path:
    """``$SELFEXPLAIN_HOME``, else ``$XDG_DATA_HOME/selfexplain``, else ``~/.local/share/selfexplain``."""
    explicit = os.environ.get("SELFEXPLAIN_HOME")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "selfexplain"


def database_url() -> str:
    """``$SELFEXPLAIN_DB_URL``, else the SQLite file in :func:`gallery_home` (its folder made 0700)."""
    explicit = os.environ.get("SELFEXPLAIN_DB_URL", "").strip()
    if explicit:
        return explicit
    home = gallery_home()
    if not home.is_dir():
        home.mkdir(parents=True, mode=0o700)
        home.chmod(0o700)  # mkdir's mode is filtered by the umask
    return f"sqlite:///{home / DB_FILE}"


def _switch_to_wal(cursor: Any) -> None:
    """``PRAGMA journal_mode = WAL``, retried while the file is locked: processes converting a new
    database at the same moment can deadlock in rollback mode, and SQLite then answers "database is
    locked" at once instead of waiting. A database that cannot use WAL (in memory) keeps its mode."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
        time.sleep(random.uniform(0.005, 0.05))


def _sqlite_setup(engine: sa.Engine) -> None:
    """WAL, a busy timeout, and transactions begun by us: ``BEGIN IMMEDIATE`` for writes."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver emits no BEGIN of its own; _on_begin does
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        _switch_to_wal(cursor)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        write = connection.get_execution_options().get("gallery_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _first_line(err: BaseException) -> str:
    text = str(getattr(err, "orig", None) or err).strip()
    return text.splitlines()[0] if text else type(err).__name__


class GalleryStore:
    """Pins in one database. Thread-safe (one engine, a connection per operation)."""

    def __init__(self, url: str | None = None) -> None:
        raw = url or database_url()
        try:
            parsed = sa.make_url(raw)
            self.url = parsed.render_as_string(hide_password=True)
            options: dict[str, Any] = {"pool_pre_ping": True}
            if parsed.get_backend_name() == "sqlite":
                options["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
            self.engine = sa.create_engine(parsed, **options)
        except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as err:
            raise GalleryDatabaseError(f"bad gallery database URL {raw!r}: {_first_line(err)}") from None
        if self.engine.dialect.name == "sqlite":
            _sqlite_setup(self.engine)
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
            raise GalleryDatabaseError(f"gallery database {self.url}: {_first_line(err)}") from None

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
        """Pin an :class:`~selfexplain.explanation.Explanation` (its text and pair unless given) with a new id."""
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

    def list(self, search: str = "", model: str | None = None, label: str | None = None) -> list[PinSummary]:
        """Pins, newest first; ``search`` matches text, pair, note, model or label (case-insensitive)."""
        columns = [PINS.c[name] for name in ("id", "created_at", "model", "text", "pair", "note", "label")]
        query = sa.select(*columns).order_by(PINS.c.created_at.desc(), PINS.c.id)
        needle = search.strip().lower()
        if needle:
            fields = [sa.func.lower(sa.func.coalesce(PINS.c[name], "")) for name in ("text", "pair", "note")]
            fields += [sa.func.lower(PINS.c.model), sa.func.lower(PINS.c.label)]
            query = query.where(sa.or_(*(field.contains(needle, autoescape=True) for field in fields)))
        if model:
            query = query.where(PINS.c.model == model)
        if label:
            query = query.where(PINS.c.label == label)

        def fetch() -> list[PinSummary]:
            with self.engine.connect() as connection:
                return [_summary(row) for row in connection.execute(query)]

        return self._guard(fetch)

    def get(self, pin_id: str) -> Pin:
        """The pin with this id; PinNotFoundError otherwise."""
        if not ID_PATTERN.fullmatch(pin_id or ""):
            raise PinNotFoundError(f"no pin with id {pin_id!r}")

        def fetch() -> Any:
            with self.engine.connect() as connection:
                return connection.execute(sa.select(PINS).where(PINS.c.id == pin_id)).first()

        row = self._guard(fetch)
        if row is None:
            raise PinNotFoundError(f"no pin with id {pin_id!r} in the gallery")
        return _pin(row)

    def count(self) -> int:
        def fetch() -> int:
            with self.engine.connect() as connection:
                return int(connection.execute(sa.select(sa.func.count()).select_from(PINS)).scalar() or 0)

        return self._guard(fetch)

    def distinct(self, column: str) -> list[str]:
        """Sorted distinct values of ``model`` or ``label`` (the page's filters)."""
        if column not in ("model", "label"):
            raise ValueError(f"no filter on {column!r}")

        def fetch() -> list[str]:
            with self.engine.connect() as connection:
                return sorted(connection.execute(sa.select(PINS.c[column]).distinct()).scalars())

        return self._guard(fetch)

    def iter_pins(self, batch: int = 200) -> Iterator[Pin]:
        """Every pin, oldest first, read ``batch`` at a time (an export never holds them all)."""
        after: tuple[datetime, str] | None = None
        while True:
            query = sa.select(PINS).order_by(PINS.c.created_at, PINS.c.id).limit(batch)
            if after is not None:
                query = query.where(sa.tuple_(PINS.c.created_at, PINS.c.id) > sa.tuple_(*after))

            def fetch(query: sa.Select = query) -> list[Any]:
                with self.engine.connect() as connection:
                    return list(connection.execute(query))

            rows = self._guard(fetch)
            yield from (_pin(row) for row in rows)
            if len(rows) < batch:
                return
            after = (rows[-1].created_at, rows[-1].id)

    # changing -------------------------------------------------------------------------------------

    def remove(self, pin_id: str) -> None:
        """Delete a pin; PinNotFoundError if there is none with this id."""

        def delete() -> int:
            with self._write() as connection, connection.begin():
                return connection.execute(sa.delete(PINS).where(PINS.c.id == pin_id)).rowcount

        if not self._guard(delete):
            raise PinNotFoundError(f"no pin with id {pin_id!r} in the gallery")

    def export_jsonl(self, path: Path) -> int:
        """Write every pin to ``path`` as JSONL (atomically: a temporary file renamed into place)."""
        return write_pins(self.iter_pins(), path)

    def import_pins(self, pins: Iterable[Pin]) -> tuple[int, int]:
        """Add validated pins in one transaction; ids already present are skipped. Returns (added, skipped)."""
        rows = [_row(pin) for pin in pins]

        def insert() -> tuple[int, int]:
            with self._write() as connection, connection.begin():
                ids = [row["id"] for row in rows]
                present: set[str] = set()
                for start in range(0, len(ids), 500):  # bounded IN lists
                    chunk = ids[start : start + 500]
                    present.update(connection.execute(sa.select(PINS.c.id).where(PINS.c.id.in_(chunk))).scalars())
                new = [row for row in rows if row["id"] not in present]
                if new:
                    connection.execute(sa.insert(PINS), new)
                return len(new), len(rows) - len(new)

        return self._guard(insert)

    def import_jsonl(self, path: Path) -> tuple[int, int]:
        """Validate every line of a JSONL export, then add them all or none. Returns (added, skipped)."""
        return self.import_pins(read_pins(path))


def _row(pin: Pin) -> dict[str, Any]:
    values = {key: getattr(pin, key) for key in ("id", "model", "text", "pair", "note", "label")}
    return {**values, "created_at": utc(pin.created), "explanation": json.dumps(pin.explanation)}


def _summary(row: Any) -> PinSummary:
    return PinSummary(row.id, utc(row.created_at), row.model, row.text, row.pair, row.note, row.label)


def _pin(row: Any) -> Pin:
    summary = _summary(row)
    return Pin(**summary.__dict__, explanation=json.loads(row.explanation))
