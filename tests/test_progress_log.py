"""The resumable JSONL log shared by batch and the faithfulness lab: appends that reach the disk, finished
rows read back, a torn last line cut off, and a resumed run refused when its settings or input differ."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import selfexplain.support.progress_log as progress_log
from selfexplain.support.progress_log import (
    ProgressLog,
    check_same_run,
    fingerprint,
    iter_rows,
    read_state,
    write_state,
)

ROWS = [{"index": 0, "text": "a fine film"}, {"index": 1, "text": "café ☃"}]


class Refused(ValueError):
    pass


def test_appends_are_flushed_and_fsynced_once_a_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = progress_log.os.fsync
    monkeypatch.setattr(progress_log.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    path = tmp_path / "log.jsonl"
    with ProgressLog(path) as log:
        size = log.append(ROWS)
        assert path.stat().st_size == size  # on disk before the call returns
        assert log.append([{"index": 2}]) == size + len(b'{"index": 2}\n')
    assert len(synced) == 2
    text = path.read_text(encoding="utf-8")
    assert "café ☃" in text  # UTF-8, not \\u escapes
    assert [json.loads(line) for line in text.splitlines()] == [*ROWS, {"index": 2}]
    with pytest.raises(RuntimeError, match="inside 'with log:'"):
        ProgressLog(path).append(ROWS)


def test_finished_rows_are_read_back_and_a_torn_line_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = ProgressLog(path)
    assert log.finished() == [] and not path.exists()  # a new run: nothing written, nothing created
    with log:
        whole = log.append(ROWS)
    with path.open("ab") as handle:
        handle.write(b'{"index": 2, "te')  # killed in the middle of a write
    assert list(iter_rows(path)) == ROWS  # reading stops at the torn line
    assert log.finished() == ROWS
    assert path.stat().st_size == whole
    with log:
        log.append([{"index": 2}])
    assert [r["index"] for r in iter_rows(path)] == [0, 1, 2]


def test_a_whole_last_row_without_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"index": 0}\n{"index": 1}')
    assert ProgressLog(path).finished() == [{"index": 0}, {"index": 1}]
    assert path.read_bytes() == b'{"index": 0}\n{"index": 1}\n'


def test_everything_after_a_bad_line_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"index": 0}\n\xff\xfe\n{"index": 2}\n')
    assert ProgressLog(path).finished() == [{"index": 0}]
    assert path.read_bytes() == b'{"index": 0}\n'


def test_cut_goes_back_to_a_commit_point(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with ProgressLog(path) as log:
        committed = log.append(ROWS[:1])
        log.append(ROWS[1:])
    ProgressLog(path).cut(committed)
    assert list(iter_rows(path)) == ROWS[:1]


def test_fingerprint_of_a_file_is_that_of_its_bytes(tmp_path: Path) -> None:
    data = bytes(range(256)) * 5000  # over one 1 MiB block
    path = tmp_path / "input.csv"
    path.write_bytes(data)
    assert fingerprint(path) == fingerprint(data) == hashlib.sha256(data).hexdigest()
    assert fingerprint(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_run_with_other_settings_is_refused_naming_them() -> None:
    current = {"model": "m", "input_sha256": "b", "top_k": 3}
    check_same_run(None, current, "out.jsonl", "choose another", Refused)  # nothing stored: a new run
    check_same_run(dict(current), current, "out.jsonl", "choose another", Refused)
    stored = {"model": "m", "input_sha256": "a", "top_k": 5, "old": 1}
    with pytest.raises(Refused, match=r"^out.jsonl: holds a run with other settings \(input_sha256, old, top_k\); "):
        check_same_run(stored, current, "out.jsonl", "choose another", Refused)


def test_state_files_round_trip_and_damage_is_named(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    assert read_state(path, "the settings file", "delete it", Refused) is None
    write_state(path, {"meta": {"a": 1}, "bytes": 10}, indent=2)
    assert read_state(path, "the settings file", "delete it", Refused, required=("meta", "bytes")) == {
        "meta": {"a": 1},
        "bytes": 10,
    }
    assert path.read_text(encoding="utf-8").startswith("{\n  ")  # indented for people
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]  # no temporary file left
    with pytest.raises(Refused, match=r"run.json: the settings file is damaged \(fields are missing\); delete it"):
        read_state(path, "the settings file", "delete it", Refused, required=("complete",))
    path.write_text("", encoding="utf-8")
    with pytest.raises(Refused, match=r"run.json: the settings file is damaged \(invalid JSON"):
        read_state(path, "the settings file", "delete it", Refused)
