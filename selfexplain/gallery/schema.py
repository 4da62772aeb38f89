"""The gallery's tables and their migrations.

``schema_version`` holds one row: the number of migrations applied. ``MIGRATIONS[n]`` takes a
database from version ``n`` to ``n + 1``; :func:`migrate` applies the missing ones, in order, inside
the caller's transaction (which holds the write lock: ``BEGIN IMMEDIATE`` on SQLite, an advisory lock
on PostgreSQL), so two processes opening a new database at once cannot both migrate it, and a
migration that fails leaves the database at its old version.

Versions: 1 created ``pins`` (id, created_at, model, text, pair, note, explanation as JSON text);
2 added the ``label`` column (filled from each stored explanation) and an index on ``created_at``;
3 replaced that index by one on ``(created_at, id)``, the key of the store's keyset pagination (a
page or an export batch is an index range, not a scan), and indexed ``model`` and ``label`` (the
page's filters list their distinct values from the index).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlalchemy as sa

from selfexplain.errors import GalleryDatabaseError

metadata = sa.MetaData()

VERSION_TABLE = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))

# The current shape of ``pins`` (what the store queries); migrations below spell out each step.
PINS = sa.Table(
    "pins",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("model", sa.String(500), nullable=False, index=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("pair", sa.Text, nullable=True),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("label", sa.String(200), nullable=False, index=True),
    sa.Column("explanation", sa.Text, nullable=False),
    sa.Index("ix_pins_created_id", "created_at", "id"),
)

ADVISORY_LOCK_KEY = 0x5E1FE8A1  # PostgreSQL: serialises migrations of one database across processes


def _v1_create_pins(connection: sa.Connection) -> None:
    """Version 1: the pins table without ``label``."""
    table = sa.Table(
        "pins",
        sa.MetaData(),
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model", sa.String(500), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("pair", sa.Text, nullable=True),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("explanation", sa.Text, nullable=False),
    )
    table.create(connection)


def _v2_label_and_time_index(connection: sa.Connection) -> None:
    """Version 2: a ``label`` column filled from each stored explanation, and an index on ``created_at``."""
    connection.execute(sa.text("ALTER TABLE pins ADD COLUMN label VARCHAR(200) NOT NULL DEFAULT ''"))
    pins = sa.table("pins", sa.column("id"), sa.column("explanation"), sa.column("label"))
    rows = connection.execute(sa.select(pins.c.id, pins.c.explanation)).all()
    labels = [{"key": pin_id, "label": str(json.loads(data).get("label", ""))} for pin_id, data in rows]
    if labels:
        update = sa.update(pins).where(pins.c.id == sa.bindparam("key")).values(label=sa.bindparam("label"))
        connection.execute(update, labels)
    connection.execute(sa.text("CREATE INDEX ix_pins_created_at ON pins (created_at)"))


def _v3_keyset_and_filter_indexes(connection: sa.Connection) -> None:
    """Version 3: the ``(created_at, id)`` index for keyset pages (replacing the one on ``created_at``),
    and indexes on ``model`` and ``label``."""
    connection.execute(sa.text("DROP INDEX ix_pins_created_at"))
    connection.execute(sa.text("CREATE INDEX ix_pins_created_id ON pins (created_at, id)"))
    connection.execute(sa.text("CREATE INDEX ix_pins_model ON pins (model)"))
    connection.execute(sa.text("CREATE INDEX ix_pins_label ON pins (label)"))


MIGRATIONS: list[Callable[[sa.Connection], None]] = [
    _v1_create_pins,
    _v2_label_and_time_index,
    _v3_keyset_and_filter_indexes,
]
LATEST = len(MIGRATIONS)


def current_version(connection: sa.Connection) -> int:
    """The database's schema version; 0 when it has no gallery tables yet."""
    if not sa.inspect(connection).has_table(VERSION_TABLE.name):
        return 0
    found = connection.execute(sa.select(VERSION_TABLE.c.version)).scalar()
    return int(found or 0)


def migrate(connection: sa.Connection, target: int = LATEST) -> int:
    """Bring the database to ``target`` inside the caller's write transaction; return the version before.

    Raises GalleryDatabaseError for a database newer than this code knows."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
    before = current_version(connection)
    if before > LATEST:
        raise GalleryDatabaseError(
            f"the gallery database has schema version {before}, newer than this selfexplain knows ({LATEST}); "
            "upgrade selfexplain"
        )
    if before >= target:
        return before
    if before == 0:
        VERSION_TABLE.create(connection, checkfirst=True)
        connection.execute(sa.insert(VERSION_TABLE).values(version=0))
    for step in MIGRATIONS[before:target]:
        step(connection)
    connection.execute(sa.update(VERSION_TABLE).values(version=target))
    return before
