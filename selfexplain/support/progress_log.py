"""One resumable JSONL log of finished rows, shared by ``selfexplain batch`` and the faithfulness lab.

A run appends one JSON object a finished row (:meth:`ProgressLog.append` flushes and fsyncs every call:
batch calls it once a window, the lab once a row), so what is on disk survives a kill. A resumed run first
checks that it is the same run (:func:`check_same_run`: its settings, which hold a :func:`fingerprint` of
the input) and then reads its finished rows back (:meth:`ProgressLog.finished`), cutting off a last line
torn by the kill; or, where it keeps its own commit point, cuts the log back to it (:meth:`ProgressLog.cut`).
Settings and commit points are small JSON files replaced atomically (:func:`write_state`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from selfexplain.support.jsonl import RecordError, parse_record

_BLOCK = 1 << 20


def fingerprint(source: Path | bytes) -> str:
    """The SHA-256 (hex) of a file's bytes, read in 1 MiB blocks, or of the bytes given: the same name and
    size is not the same input."""
    digest = hashlib.sha256()
    if isinstance(source, bytes):
        digest.update(source)
    else:
        with Path(source).open("rb") as handle:
            for block in iter(lambda: handle.read(_BLOCK), b""):
                digest.update(block)
    return digest.hexdigest()


def check_same_run(
    stored: Mapping[str, Any] | None, current: Mapping[str, Any], where: str, remedy: str, error: type[Exception]
) -> None:
    """Refuse to resume a run with other settings: ``error`` names ``where``, the settings that differ
    and the ``remedy``. Nothing stored (a new run) passes."""
    if stored is None or dict(stored) == dict(current):
        return
    changed = sorted(key for key in {*stored, *current} if stored.get(key) != current.get(key))
    raise error(f"{where}: holds a run with other settings ({', '.join(changed)}); {remedy}")


def read_state(
    path: Path, what: str, remedy: str, error: type[Exception], required: Iterable[str] = ()
) -> dict[str, Any] | None:
    """The JSON object in ``path`` (a run's settings or commit point), ``None`` when there is no file; an
    empty or damaged file, or one without the ``required`` fields, raises ``error`` naming ``what``."""
    if not path.exists():
        return None
    try:
        state = parse_record(path.read_text(encoding="utf-8", errors="replace"))
        if not set(required) <= set(state):
            raise RecordError("fields are missing")
    except RecordError as err:
        raise error(f"{path}: {what} is damaged ({err}); {remedy}") from None
    return state


def write_state(path: Path, state: Mapping[str, Any], indent: int | None = None) -> None:
    """Write ``state`` as JSON to ``path`` atomically (a temporary file, then a rename)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(state, indent=indent), encoding="utf-8")
    os.replace(temporary, path)


def iter_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Stream the rows of a log; reading stops at a line that does not parse (a write torn by a kill)."""
    for row, _, _ in _good_lines(path):
        yield row


def _good_lines(path: Path) -> Iterator[tuple[dict[str, Any], int, bool]]:
    """``(row, byte end of its line, line ends with a newline)`` of every line before the first bad one."""
    if not Path(path).is_file():
        return
    end = 0
    with Path(path).open("rb") as handle:
        for raw in handle:
            try:
                row = parse_record(raw.decode("utf-8"))
            except (RecordError, UnicodeDecodeError):
                return
            end += len(raw)
            yield row, end, raw.endswith(b"\n")


class ProgressLog:
    """An append-only JSONL file of finished rows (UTF-8, one JSON object a line). Use it as a context
    manager around the appends: ``with log: log.append(rows)``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._handle: BinaryIO | None = None

    def finished(self) -> list[dict[str, Any]]:
        """The rows already written, in file order. A torn last line (and anything after a line that does
        not parse) is cut off the file, and a whole last row missing only its newline gets one."""
        lines = list(_good_lines(self.path))
        if self.path.is_file():
            _, end, newline = lines[-1] if lines else ({}, 0, True)
            self.cut(end)
            if not newline:
                with self.path.open("ab") as handle:
                    handle.write(b"\n")
        return [row for row, _, _ in lines]

    def cut(self, size: int) -> None:
        """Cut the file back to its first ``size`` bytes (a commit point kept by the caller)."""
        with self.path.open("ab") as handle:
            handle.truncate(size)

    def __enter__(self) -> ProgressLog:
        self._handle = self.path.open("ab")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def append(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append ``rows`` (one line each), flushed and fsynced before returning; the file's size after.
        Whole lines only: when the write fails (a full disk), the file is cut back to its size before the
        call and the error is raised, so no half-written line is left for a rerun to trip on."""
        if self._handle is None:
            raise RuntimeError("append inside 'with log:'")
        data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
        self._handle.flush()
        start = os.fstat(self._handle.fileno()).st_size
        try:
            self._handle.write(data)
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError:
            self._discard(start)
            raise
        return self._handle.tell()

    def _discard(self, size: int) -> None:
        """After a failed append: close the handle (its buffer may still hold part of the rows, which the
        close may write or fail to write), then cut the file back to ``size`` bytes and reopen it."""
        assert self._handle is not None
        try:
            self._handle.close()
        except OSError:
            pass
        os.truncate(self.path, size)
        self._handle = self.path.open("ab")
