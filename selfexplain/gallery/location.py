"""Where the gallery lives, and the SQLite settings every connection gets.

The database is ``$SELFEXPLAIN_DB_URL`` (any SQLAlchemy URL, e.g. ``postgresql+psycopg://user@host/db``)
or, by default, the SQLite file ``$SELFEXPLAIN_HOME/gallery.sqlite3`` (``SELFEXPLAIN_HOME`` defaults to
``$XDG_DATA_HOME/selfexplain``, i.e. ``~/.local/share/selfexplain``).

**A private gallery.** The default folder is created mode 0700; an existing one must be a real folder
(not a link) owned by this user that neither group nor others can write to, as the kernel cache must
(:func:`selfexplain.support.private_paths.private_folder`), or :class:`GalleryDatabaseError` says so. The database
file is created 0600 (an existing one of ours is narrowed to 0600; SQLite gives its ``-wal`` and ``-shm``
files the database's mode), so no other user can read the pins whatever the folder's mode. An SQLite file
named by ``SELFEXPLAIN_DB_URL`` gets the same checks (its folder and the file); a path that is not UTF-8
is refused in one line (SQLite and SQLAlchemy take no other bytes).

SQLite runs in WAL mode with a 30 s busy timeout and every write transaction starts with ``BEGIN
IMMEDIATE``, so concurrent writers queue instead of failing.
"""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from selfexplain import settings
from selfexplain.errors import GalleryDatabaseError
from selfexplain.support.private_paths import UnsafePathError, private_file, private_folder
from selfexplain.support.terminal import printable

BUSY_TIMEOUT_S = 30
DB_FILE = "gallery.sqlite3"
HOME_HINT = "the gallery must be private: point SELFEXPLAIN_HOME at a folder of your own (or set SELFEXPLAIN_DB_URL)"
URL_HINT = "the gallery must be private: point SELFEXPLAIN_DB_URL at an SQLite file in a folder of your own"


def gallery_home() -> Path:
    """``$SELFEXPLAIN_HOME``, else ``$XDG_DATA_HOME/selfexplain``, else ``~/.local/share/selfexplain``."""
    return settings.home()


def _check_utf8(value: str | Path, setting: str) -> None:
    """A database path or URL must be UTF-8 text: SQLite and SQLAlchemy's URLs take no other bytes."""
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        shown = printable(value, lines=False)
        raise GalleryDatabaseError(f"{setting} {shown} is not valid UTF-8 text; choose a path that is") from None


def _private(folder: Path, database: Path | None, hint: str) -> None:
    """``folder`` private (:func:`private_folder`) and ``database`` (when given) a private file in it."""
    try:
        private_folder(folder, hint)
        if database is not None:
            private_file(database, hint)
    except UnsafePathError as err:
        raise GalleryDatabaseError(f"gallery folder: {err}") from None
    except OSError as err:
        raise GalleryDatabaseError(f"cannot create the gallery in {folder}: {err.strerror or err}") from None


def sqlite_file(raw: str) -> Path | None:
    """The database file an SQLite URL names; None for another database, an in-memory one, or a URL
    that does not parse (:func:`open_engine` reports that)."""
    try:
        url = sa.make_url(raw)
    except (ArgumentError, ValueError, UnicodeError):
        return None
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    if url.database.startswith("file:") or url.query.get("mode") == "memory":
        return None
    return Path(url.database)


def database_url() -> str:
    """``$SELFEXPLAIN_DB_URL``, else the SQLite file in :func:`gallery_home`. Either SQLite file gets the
    same privacy checks: its folder private (created 0700), the file created 0600; GalleryDatabaseError
    when the folder is not private or its path is not UTF-8."""
    explicit = settings.db_url()
    if explicit is not None:
        _check_utf8(explicit, "SELFEXPLAIN_DB_URL")
        database = sqlite_file(explicit)
        if database is not None:
            _private(database.parent, database, URL_HINT)
        return explicit
    home = gallery_home()
    _check_utf8(home, "SELFEXPLAIN_HOME")
    _private(home, home / DB_FILE, HOME_HINT)
    return f"sqlite:///{home / DB_FILE}"


def switch_to_wal(cursor: Any) -> None:
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


def sqlite_setup(engine: sa.Engine) -> None:
    """WAL, a busy timeout, and transactions begun by us: ``BEGIN IMMEDIATE`` for writes."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver emits no BEGIN of its own; _on_begin does
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        switch_to_wal(cursor)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        write = connection.get_execution_options().get("gallery_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def first_line(err: BaseException) -> str:
    """The first line of a (database) error's message, for one-line reports."""
    text = str(getattr(err, "orig", None) or err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def open_engine(raw: str) -> tuple[sa.Engine, str]:
    """An engine for the URL ``raw`` (SQLite with :func:`sqlite_setup`) and the URL to show (password
    hidden); GalleryDatabaseError for a URL that is malformed or names a missing driver."""
    try:
        parsed = sa.make_url(raw)
        options: dict[str, Any] = {"pool_pre_ping": True}
        if parsed.get_backend_name() == "sqlite":
            options["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
        engine = sa.create_engine(parsed, **options)
    except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as err:
        raise GalleryDatabaseError(f"bad gallery database URL {raw!r}: {first_line(err)}") from None
    if engine.dialect.name == "sqlite":
        sqlite_setup(engine)
    return engine, parsed.render_as_string(hide_password=True)
