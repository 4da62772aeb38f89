"""The kernel library is verified before it is loaded (issue 24.3, attack row 6).

``ctypes.CDLL`` on a truncated library kills the process with SIGBUS, so no test here ever hands it one:
every test replaces ``ctypes.CDLL`` with a guard that fails the test when the file it is asked to load is not
byte for byte the library that was built. Rebuilds are simulated by copying that library into place (one
real compile per module).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import warnings
from pathlib import Path

import pytest

from selfexplain.core.modeling import native_cache, native_spans
from selfexplain.support.private_paths import file_digest

needs_compiler = pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None, reason="the native kernels need a C compiler"
)
ARGS = (native_spans.SOURCE, native_spans.COMPILE_FLAGS, native_spans.LINK_FLAGS)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real build (library and record) in a cache of its own, never touched again."""
    cache = tmp_path_factory.mktemp("pristine-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SELFEXPLAIN_CACHE", str(cache))
        native_cache.load_library(*ARGS)
        (library,) = (cache / "native").glob("sic_kernels-*.so")
    return library


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pristine: Path) -> Path:
    """A fresh cache holding a copy of the pristine build; CDLL guarded; a rebuild copies the pristine files."""
    folder = tmp_path / "cache" / "native"
    folder.mkdir(parents=True, mode=0o700)
    os.chmod(folder.parent, 0o700)
    for source in (pristine, native_cache.record_path(pristine)):
        shutil.copy2(source, folder / source.name)
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(folder.parent))
    whole = file_digest(pristine)
    real_cdll = ctypes.CDLL

    def guarded_cdll(name: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if Path(name).parent == folder and file_digest(Path(name)) != whole:
            pytest.fail(f"CDLL was asked to load a damaged library {name} (SIGBUS in real life)")
        return real_cdll(name, *args, **kwargs)

    def fake_compile(compiler: str, source: Path, target: Path, flags, link) -> None:  # noqa: ANN001
        for built in (pristine, native_cache.record_path(pristine)):
            scratch = target.parent / f".{built.name}.new"
            shutil.copy2(built, scratch)
            os.replace(scratch, target.parent / built.name)
        fake_compile.calls += 1

    fake_compile.calls = 0
    monkeypatch.setattr(ctypes, "CDLL", guarded_cdll)
    monkeypatch.setattr(native_cache, "compile_library", fake_compile)
    return folder


def _library(cache: Path) -> Path:
    (library,) = cache.glob("sic_kernels-*.so")
    return library


@needs_compiler
def test_a_build_records_its_checksum_and_a_whole_library_loads_without_a_rebuild(cache: Path) -> None:
    library = _library(cache)
    digest, size = file_digest(library)
    assert native_cache.record_path(library).read_text() == f"{digest} {size}\n"
    assert native_cache.record_path(library).stat().st_mode & 0o777 == 0o600
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        native_cache.load_library(*ARGS)
    assert native_cache.compile_library.calls == 0


@needs_compiler
@pytest.mark.parametrize(
    "damage",
    ["truncated", "empty", "foreign ELF", "same size, other bytes"],
)
def test_a_damaged_library_is_rebuilt_with_one_warning_and_never_loaded(cache: Path, damage: str) -> None:
    library = _library(cache)
    size = library.stat().st_size
    if damage == "truncated":  # the attack: 12,000 bytes, mode 0700
        library.write_bytes(library.read_bytes()[:12_000])
    elif damage == "empty":
        library.write_bytes(b"")
    elif damage == "foreign ELF":
        library.write_bytes(Path(shutil.which("true") or "/bin/true").read_bytes())
    else:
        library.write_bytes(b"\x7fELF" + bytes(size - 4))
    os.chmod(library, 0o700)
    with pytest.warns(UserWarning, match="is damaged|was damaged") as caught:
        native_cache.load_library(*ARGS)
    assert len(caught) == 1 and native_cache.compile_library.calls == 1
    assert file_digest(library) == file_digest(_library(cache)) and library.stat().st_size == size


@needs_compiler
def test_a_library_without_a_record_is_rebuilt_quietly(cache: Path) -> None:
    native_cache.record_path(_library(cache)).unlink()  # a cache from before checksums were recorded
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        native_cache.load_library(*ARGS)
    assert native_cache.compile_library.calls == 1 and native_cache.record_path(_library(cache)).is_file()


@needs_compiler
def test_a_damaged_library_that_cannot_be_rebuilt_falls_back_to_eager_with_one_warning(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = _library(cache)
    library.write_bytes(library.read_bytes()[:12_000])

    def no_compiler(*_args: object) -> None:
        raise RuntimeError("cc failed: no compiler today")

    monkeypatch.setattr(native_cache, "compile_library", no_compiler)
    monkeypatch.setenv("SELFEXPLAIN_FUSED", "1")
    monkeypatch.setattr(native_spans, "_library", None)
    monkeypatch.setattr(native_spans, "_failure", None)
    with pytest.warns(UserWarning) as caught:
        assert native_spans.native_library() is None
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "running eager" in message and "is damaged (" in message and "no compiler today" in message
    assert not native_spans.fusion_allowed()
