"""The gallery at scale (issue 24.5, attack row 8): keyset pages in the store and the CLI, an export
streamed from the stored rows through an index range per batch, an import that holds one batch."""

from __future__ import annotations

import io
import json
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from selfexplain.cli import main
from selfexplain.errors import GalleryImportError, PinNotFoundError
from selfexplain.gallery import store as store_module
from selfexplain.gallery.records import validate_record
from selfexplain.gallery.schema import PINS
from selfexplain.gallery.store import GalleryStore
from selfexplain.gallery.transfer import MAX_RECORD_BYTES, pins_jsonl, scan_pins


@pytest.fixture(scope="module")
def template(tiny_explainer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    store = GalleryStore(f"sqlite:///{tmp_path_factory.mktemp('tpl') / 'g.sqlite3'}")
    explanation = tiny_explainer.explain("A gorgeous film, but the story is thin.", attentions=False)
    record = store.add(explanation, "tiny-sst").to_dict()
    store.close()
    return record


def records(template: dict, count: int, start: int = 0) -> list[dict]:
    """``count`` pins of the template, a second apart (two share each second: ids break the tie)."""
    base = datetime(2025, 1, 1, tzinfo=UTC)
    return [
        {**template, "id": f"p{n:06d}", "note": f"n{n}", "created": (base + timedelta(seconds=n // 2)).isoformat()}
        for n in range(start, start + count)
    ]


def jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GalleryStore:
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    return GalleryStore()


def test_keyset_pages_walk_every_pin_once_newest_first(store: GalleryStore, template: dict) -> None:
    store.import_pins(validate_record(r) for r in records(template, 123))
    newest_first = [f"p{n:06d}" for n in reversed(range(123))]
    seen, after, sizes = [], None, []
    while True:
        pins, after = store.page(limit=50, after=after)
        seen += [p.id for p in pins]
        sizes.append(len(pins))
        if after is None:
            break
    assert seen == newest_first and sizes == [50, 50, 23]
    assert [p.id for p in store.list(limit=3)] == newest_first[:3] and len(store.list()) == 123
    pins, after = store.page(search="N12", limit=5)  # n12, n120..n122 match
    assert [p.id for p in pins] == ["p000122", "p000121", "p000120", "p000012"] and after is None
    assert store.count(search="n12") == 4 and store.count() == 123
    with pytest.raises(PinNotFoundError):
        store.page(after="gone")


def test_the_cli_lists_a_page_and_says_how_to_go_on(
    store: GalleryStore, template: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    store.import_pins(validate_record(r) for r in records(template, 7))
    assert main(["gallery", "list", "--limit", "3"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == ["p000006", "p000005", "p000004"]
    assert err == "more pins: selfexplain gallery list --after p000004 (with the same filters)\n"
    assert main(["gallery", "list", "--limit", "3", "--after", "p000004", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [p["id"] for p in json.loads(out)] == ["p000003", "p000002", "p000001"] and "--after p000001" in err
    assert main(["gallery", "list", "--limit", "0", "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 7 and err == ""
    assert main(["gallery", "list", "--after", "nosuchpin"]) == 2
    assert capsys.readouterr().err.startswith("selfexplain: error: no pin with id 'nosuchpin'")


@pytest.mark.slow
def test_export_streams_the_stored_rows_and_round_trips(store: GalleryStore, template: dict, tmp_path: Path) -> None:
    store.import_pins(validate_record(r) for r in records(template, 1_001))
    queries: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *a: queries.append(a[2]))
    out = tmp_path / "all.jsonl"
    assert store.export_jsonl(out) == 1_001
    pages = [q for q in queries if "FROM pins" in q and "ORDER BY pins.created_at, pins.id" in q]
    assert len(pages) == 3  # 500 rows a query, each an index range (checked below), not a scan
    assert pins_jsonl(store.iter_pins()) != ""  # every stored row passes the schema
    with store.engine.connect() as connection:
        plan = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + pages[-1], ("2025-01-01", "p", 500, 0)).all()
    assert "USING INDEX ix_pins_created_id" in str(plan)
    lines = out.read_bytes().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [f"p{n:06d}" for n in range(1_001)]  # oldest first
    other = GalleryStore(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    assert other.import_jsonl(out) == (1_001, 0)
    assert [pin.to_dict() for pin in other.iter_pins()] == [pin.to_dict() for pin in store.iter_pins()]


@pytest.mark.slow
def test_import_memory_does_not_grow_with_the_file(
    store: GalleryStore, template: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "BATCH", 100)  # batches of 100 pins: the peak is reached by 300
    peaks, sizes = {}, {}
    for count in (300, 1_200):
        data = jsonl(records(template, count, start=10_000 * count))
        sizes[count] = len(data)
        tracemalloc.start()
        store.import_stream(io.BytesIO(data), "pins.jsonl")
        peaks[count] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert store.count() == 1_500
    assert peaks[1_200] < 1.5 * peaks[300], peaks  # four times the pins, about the same peak (one batch)
    assert peaks[1_200] < sizes[1_200] / 2, (peaks, sizes)  # well under the file's own size (was 9.5 times it)


def test_an_endless_or_oversized_line_is_refused_without_reading_on(tmp_path: Path) -> None:
    class Zeros(io.RawIOBase):
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:  # noqa: ANN001
            assert self.served < 3 * MAX_RECORD_BYTES, "the reader is not bounded"
            buffer[: len(buffer)] = bytes(len(buffer))
            self.served += len(buffer)
            return len(buffer)

    with pytest.raises(GalleryImportError, match=r"^zeros, line 1: the record is longer than 4,000,000 bytes$"):
        list(scan_pins(io.BufferedReader(Zeros()), "zeros"))
    assert main(["gallery", "import", "/dev/zero"]) == 2


def test_a_bad_line_late_in_a_big_file_adds_nothing(store: GalleryStore, template: dict) -> None:
    rows = records(template, 1_100)
    data = jsonl(rows) + b'{"id": "late", "text": 5}\n'
    with pytest.raises(GalleryImportError, match="pins.jsonl, line 1101: missing field"):
        store.import_stream(io.BytesIO(data), "pins.jsonl")
    assert store.count() == 0
    with store.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(PINS)).scalar() == 0
