"""The pin store on both back ends: SQLite (a temporary file) and PostgreSQL when
``SELFEXPLAIN_TEST_PG_URL`` names a server (``.ci/run`` starts one; skipped otherwise)."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from selfexplain.errors import GalleryDatabaseError, GalleryImportError, PinNotFoundError
from selfexplain.gallery.location import database_url, switch_to_wal
from selfexplain.gallery.records import STORED_SPANS, stored_explanation, validate_record
from selfexplain.gallery.schema import LATEST, migrate
from selfexplain.gallery.store import GalleryStore
from selfexplain.gallery.transfer import read_pins

ROOT = Path(__file__).resolve().parents[1]
PG_URL = os.environ.get("SELFEXPLAIN_TEST_PG_URL")
TEXT = "The visuals are gorgeous, but the story is thin."


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new PostgreSQL schema (dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'gallery.sqlite3'}"
        return
    if not PG_URL:
        pytest.skip("no PostgreSQL server: set SELFEXPLAIN_TEST_PG_URL (bash .ci/postgres starts one)")
    schema = f"gallery_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_URL)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
    url = sa.make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()


@pytest.fixture
def store(db_url: str) -> Iterator[GalleryStore]:
    opened = GalleryStore(db_url)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def explanation(tiny_explainer):
    return tiny_explainer.explain(TEXT, attentions=False)


def test_add_get_list_search_remove(store: GalleryStore, explanation) -> None:
    first = store.add(explanation, "tiny-sst", note="<b>100% sure</b> **bold**")
    second = store.add(explanation, "other-model", note="second")
    assert len(first.id) == 12 and first.id != second.id
    again = store.get(first.id)
    assert again == first  # note, time (UTC, microseconds) and the explanation survive the database
    assert again.explanation == json.loads(json.dumps(stored_explanation(explanation)))
    assert again.created.tzinfo is not None and again.label == explanation.label
    assert [p.id for p in store.list()] == [second.id, first.id]  # newest first
    assert [p.id for p in store.list(search="100%")] == [first.id]  # % is literal, not a wildcard
    assert [p.id for p in store.list(search="GORGEOUS")] == [second.id, first.id]
    assert [p.id for p in store.list(search="100_")] == []
    assert [p.id for p in store.list(model="other-model")] == [second.id]
    assert len(store.list(label=explanation.label)) == 2 and store.list(label="no such label") == []
    assert store.distinct("model") == ["other-model", "tiny-sst"] and store.distinct("label") == [explanation.label]
    store.remove(first.id)
    assert store.count() == 1
    with pytest.raises(PinNotFoundError, match=first.id):
        store.get(first.id)
    with pytest.raises(PinNotFoundError):
        store.remove(first.id)
    with pytest.raises(PinNotFoundError):
        store.get("../../etc/passwd")


def test_stored_json_is_bounded(tiny_explainer) -> None:
    long_text = " ".join(["a gorgeous film with a thin story"] * 12)
    explanation = tiny_explainer.explain(long_text, attentions=True)
    data = stored_explanation(explanation)
    assert explanation.num_tokens > 80 and data["num_valid_spans"] == int(explanation.span_mask.sum()) > 1000
    assert len(data["spans"]) == STORED_SPANS and len(data["tokens"]) == explanation.num_tokens
    assert [s["rank"] for s in data["spans"]] == list(range(1, STORED_SPANS + 1))
    assert data["stored"] == {"top_k": STORED_SPANS, "alpha_grid": False, "attentions": False}
    assert "attentions" not in data
    full = json.dumps(explanation.to_dict(top_k=None))
    assert len(json.dumps(data)) * 10 < len(full)  # every span listed is over ten times bigger


def test_export_import_round_trip(store: GalleryStore, explanation, tmp_path: Path) -> None:
    pins = [store.add(explanation, "tiny-sst", note=f"note {n} <i>x</i>") for n in range(3)]
    out = tmp_path / "pins.jsonl"
    assert store.export_jsonl(out) == 3
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [p.id for p in pins]  # oldest first
    other = GalleryStore(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    assert other.import_jsonl(out) == (3, 0)
    assert [other.get(p.id) for p in pins] == pins
    assert other.import_jsonl(out) == (0, 3)  # known ids are skipped
    store.remove(pins[1].id)
    assert store.import_jsonl(out) == (1, 2) and store.get(pins[1].id) == pins[1]


def _write_lines(path: Path, records: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def test_import_reports_the_bad_line_and_stores_nothing(store: GalleryStore, explanation, tmp_path: Path) -> None:
    good = store.add(explanation, "tiny-sst").to_dict()
    store.remove(good["id"])
    bad_span = json.loads(json.dumps(good))
    bad_span["id"] = "spanbad"
    bad_span["explanation"]["spans"][0]["end_char"] = 10_000
    cases = {
        "line 2: not JSON": [good, "{oops"],
        "line 2: missing field(s): note": [good, {k: v for k, v in good.items() if k != "note"}],
        "line 1: explanation.spans[1] is outside its text": [bad_span],
        "line 3: id '" + good["id"] + "' is already on line 1": [good, "", good],
        "line 1: created must be an ISO 8601 time": [{**good, "created": "yesterday"}],
        "line 1: explanation is of a different text or pair": [{**good, "text": "another text"}],
        "line 1: bad id": [{**good, "id": "a b"}],
        "holds no pins": ["", "  "],
    }
    for message, records in cases.items():
        path = _write_lines(tmp_path / "bad.jsonl", records)
        with pytest.raises(GalleryImportError, match=re.escape(message)):
            store.import_jsonl(path)
    assert store.count() == 0  # a file with a bad line adds nothing, not even its good lines
    (tmp_path / "latin.jsonl").write_bytes(b'{"caf\xe9": 1}\n')
    with pytest.raises(GalleryImportError, match="not UTF-8"):
        read_pins(tmp_path / "latin.jsonl")
    with pytest.raises(GalleryImportError, match="cannot read"):
        read_pins(tmp_path / "missing.jsonl")


def test_bad_urls_are_user_errors(tmp_path: Path) -> None:
    for url, message in [
        ("nosuchdb://host/x", "bad gallery database URL"),
        ("not a url at all", "bad gallery database URL"),
        ("postgresql+psycopg://nobody@127.0.0.1:1/x", "connection"),
        (f"sqlite:///{tmp_path}/missing-folder/g.sqlite3", "unable to open"),
    ]:
        with pytest.raises(GalleryDatabaseError, match=message):
            GalleryStore(url)


def test_version_1_database_is_migrated(db_url: str, explanation) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as connection:
        assert migrate(connection, target=1) == 0
        record = stored_explanation(explanation)
        row = {"id": "old1", "model": "tiny-sst", "text": TEXT, "pair": None, "note": "from v1"}
        connection.execute(
            sa.text(
                "INSERT INTO pins (id, created_at, model, text, pair, note, explanation) "
                "VALUES (:id, :created_at, :model, :text, :pair, :note, :explanation)"
            ),
            {**row, "created_at": datetime(2024, 5, 1, 12, 0, tzinfo=UTC), "explanation": json.dumps(record)},
        )
        columns = {c["name"] for c in sa.inspect(connection).get_columns("pins")}
        assert "label" not in columns
    store = GalleryStore(db_url)
    assert store.schema_before == 1
    with store.engine.connect() as connection:
        assert connection.execute(sa.text("SELECT version FROM schema_version")).scalar() == LATEST == 3
        indexes = {i["name"] for i in sa.inspect(connection).get_indexes("pins")}
        assert {"ix_pins_created_id", "ix_pins_model", "ix_pins_label"} <= indexes
        assert "ix_pins_created_at" not in indexes
    old = store.get("old1")
    assert old.label == explanation.label and old.note == "from v1" and old.created.year == 2024
    assert [p.id for p in store.list(label=explanation.label)] == ["old1"]
    assert GalleryStore(db_url).schema_before == LATEST  # opening again migrates nothing
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE schema_version SET version = 99"))
    with pytest.raises(GalleryDatabaseError, match="schema version 99, newer"):
        GalleryStore(db_url)
    store.close()
    engine.dispose()


def test_default_location_and_sqlite_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.delenv("SELFEXPLAIN_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert database_url() == f"sqlite:///{tmp_path / 'xdg' / 'selfexplain' / 'gallery.sqlite3'}"
    assert (tmp_path / "xdg" / "selfexplain").stat().st_mode & 0o777 == 0o700
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    store = GalleryStore()
    assert store.url == f"sqlite:///{tmp_path / 'home' / 'gallery.sqlite3'}" and store.backend == "SQLite"
    assert (tmp_path / "home").stat().st_mode & 0o777 == 0o700
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "sqlite:///" + str(tmp_path / "elsewhere.db"))
    assert database_url().endswith("elsewhere.db")


def test_switch_to_wal_waits_out_a_lock_that_fails_at_once(tmp_path: Path) -> None:
    """New files converted by several processes at once can deadlock in rollback mode, and SQLite then
    fails at once ("database is locked") without waiting: the switch to WAL retries. Here the other
    connection has no busy timeout, so without the retry its first attempt would raise."""
    path = tmp_path / "wal.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.3, holder.execute, args=("COMMIT",))
    release.start()
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    started = time.monotonic()
    switch_to_wal(other.cursor())
    assert time.monotonic() - started >= 0.25
    assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    release.join()
    holder.close()
    other.close()


def _add_many(url: str, explanation, worker: int, count: int, barrier) -> None:
    barrier.wait()  # every process opens a fresh database and starts adding at the same moment
    store = GalleryStore(url)
    for n in range(count):
        store.add(explanation, "tiny-sst", note=f"w{worker}-{n}")
    store.close()


@pytest.mark.slow
def test_eight_processes_adding_at_once_lose_nothing(db_url: str, explanation) -> None:
    workers, each = 8, 25
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers)
    processes = [
        context.Process(target=_add_many, args=(db_url, explanation, w, each, barrier)) for w in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    assert [p.exitcode for p in processes] == [0] * workers
    store = GalleryStore(db_url)
    pins = store.list()
    assert len(pins) == workers * each == store.count()
    assert sorted(p.note for p in pins) == sorted(f"w{w}-{n}" for w in range(workers) for n in range(each))
    assert len({p.id for p in pins}) == workers * each
    store.close()


KILLED_WRITER = """
import json, secrets, sys
from selfexplain.gallery.records import validate_record
from selfexplain.gallery.store import GalleryStore
store = GalleryStore(sys.argv[1])
record = json.loads(open(sys.argv[2], encoding="utf-8").read())
n = 0
while True:
    n += 1
    store.add_pin(validate_record({**record, "id": secrets.token_hex(6), "note": f"write {n}"}))
"""


def test_a_writer_killed_mid_loop_leaves_the_store_readable(db_url: str, explanation, tmp_path: Path) -> None:
    store = GalleryStore(db_url)
    template = store.add(explanation, "tiny-sst").to_dict()
    (tmp_path / "record.json").write_text(json.dumps(template), encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, db_url, str(tmp_path / "record.json")],
        cwd=ROOT,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 120
    while store.count() < 40 and time.time() < deadline and child.poll() is None:
        time.sleep(0.05)
    assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
    seen = store.count()
    os.kill(child.pid, signal.SIGKILL)  # most likely inside a transaction: it adds without pause
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    store.close()
    reopened = GalleryStore(db_url)
    pins = reopened.list()
    assert len(pins) >= seen >= 40
    notes = sorted(int(p.note.split()[1]) for p in pins if p.note)
    assert notes == list(range(1, len(notes) + 1))  # every committed add is there, none half-written
    assert all(reopened.get(p.id).explanation == template["explanation"] for p in pins)
    assert reopened.add(explanation, "tiny-sst").id in {p.id for p in reopened.list()}
    if db_url.startswith("sqlite"):
        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    reopened.close()


def test_pin_record_rejects_a_mismatched_label(explanation) -> None:
    record = {
        "id": "abc",
        "created": "2025-01-01T00:00:00+00:00",
        "model": "m",
        "text": TEXT,
        "pair": None,
        "note": "",
        "label": "not the label",
        "explanation": stored_explanation(explanation),
    }
    with pytest.raises(GalleryImportError, match="label differs"):
        validate_record(record)
    pin = validate_record({**record, "label": explanation.label, "created": "2025-01-01T02:00:00+02:00"})
    assert pin.created.isoformat() == "2025-01-01T00:00:00+00:00"  # times are kept in UTC
