"""Bounded reads (issue 24.2): ``explain --file`` and ``explain -`` read at most the character limit plus
one chunk, then refuse in one line (exit 2); an endless input is refused quickly in little memory."""

from __future__ import annotations

import io
import time
import tracemalloc
from pathlib import Path

import pytest

from selfexplain.cli import main
from selfexplain.errors import InvalidInputError
from selfexplain.support.limits import READ_CHUNK_BYTES, read_limited_text

NO_MODEL = "/nonexistent/selfexplain-model"  # reads come before the model loads: refusals need no model


class EndlessZeros(io.RawIOBase):
    """An endless stream of NUL bytes that fails the test once more than ``budget`` bytes are read."""

    def __init__(self, budget: int) -> None:
        self.budget, self.served = budget, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # noqa: ANN001
        assert self.served <= self.budget, f"read {self.served:,} bytes: the reader is not bounded"
        size = min(len(buffer), 1 << 20)
        buffer[:size] = bytes(size)
        self.served += size
        return size


def test_endless_standard_input_is_refused_after_the_limit_plus_one_chunk(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = EndlessZeros(budget=4 << 20)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(stream, buffer_size=READ_CHUNK_BYTES)))
    tracemalloc.start()
    try:
        code = main(["explain", "-", "--model", NO_MODEL, "--max-chars", "1000"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("selfexplain: error: standard input holds more than 1,000 characters")
    assert stream.served <= 2 * READ_CHUNK_BYTES + 1000  # the limit plus one chunk (and a buffered one)
    assert peak < 2 * 1024 * 1024, peak


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_as_a_file_is_refused_quickly(capsys: pytest.CaptureFixture[str]) -> None:
    began = time.perf_counter()
    code = main(["explain", "--file", "/dev/zero", "--model", NO_MODEL])
    err = capsys.readouterr().err
    assert code == 2 and time.perf_counter() - began < 5
    assert err == (
        "selfexplain: error: /dev/zero holds more than 100,000 characters, the limit (set SELFEXPLAIN_MAX_CHARS "
        "or --max-chars to raise it); it was not read further\n"
    )


def test_limited_text_is_exact_below_the_limit_and_names_bad_bytes() -> None:
    text = "\ufeff" + "é" * 70_000 + "x"  # characters straddle chunk boundaries
    assert read_limited_text(io.BytesIO(text.encode()), "t", limit=70_001) == text[1:]
    with pytest.raises(InvalidInputError, match="more than 70,000 characters"):
        read_limited_text(io.BytesIO(text.encode()), "t", limit=70_000)
    data = b"\xef\xbb\xbf" + b"a" * (READ_CHUNK_BYTES + 5) + b"\xff"
    with pytest.raises(InvalidInputError, match=rf"^t is not UTF-8 text \(byte {len(data) - 1}\)$"):
        read_limited_text(io.BytesIO(data), "t", limit=10**6)
    with pytest.raises(InvalidInputError, match=r"byte 0\)$"):
        read_limited_text(io.BytesIO(b"\xff\xfe"), "t")
    assert read_limited_text(io.BytesIO(b""), "t") == ""
