"""Building, caching and loading the native span kernels' shared library (used by
:mod:`selfexplain.core.modeling.native_spans`).

The library is compiled with the system C compiler (``cc`` or ``$CC``) into
``$SELFEXPLAIN_CACHE/native`` (default ``~/.cache/selfexplain/native``), named by a hash of the source, the
flags, the compiler and the CPU (:func:`cpu_name`), so a home folder shared by machines never loads a build
for another CPU. Both cache folders are private (:func:`selfexplain.support.private_paths.private_folder`); a
library that is a link, belongs to another user or is writable by others is refused.

**Verified before it is loaded.** ``ctypes.CDLL`` maps the file into the process: a truncated library kills
the process with SIGBUS instead of raising, so the rebuild path behind an ``OSError`` is never reached.
Each build therefore records the library's SHA-256 and size beside it (``<library>.sha256``, written
before the library is renamed into place), and :func:`load_library` loads a file only when it matches that
record. A file that does not match (truncated, emptied, replaced) is rebuilt with one warning; a library
without a record (an older cache) is rebuilt quietly. If the rebuilt file still does not match, loading
raises and the caller runs the eager span layer.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import stat
import subprocess
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

from selfexplain import settings
from selfexplain.support.private_paths import file_digest, private_folder, read_small_file

RECORD_SUFFIX = ".sha256"
CACHE_HINT = "the kernel cache must be private (chmod 700, or point SELFEXPLAIN_CACHE at a folder of your own)"


def cpu_name() -> str:
    """The CPU's model and instruction-set flags: a library built with -march=native for one CPU
    must never be loaded on another (a home folder shared between machines)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return f"{platform.machine()} {platform.processor()}"
    model = next((line for line in lines if line.startswith("model name")), "")
    flags = next((line for line in lines if line.startswith(("flags", "Features"))), "")
    return f"{platform.machine()} {model} {flags}"


def cache_root() -> Path:
    return settings.cache_dir() / "native"


def library_path(source: Path, flags: Sequence[str], compiler: str) -> Path:
    """Where the build of ``source`` with these flags, this compiler and this CPU is cached."""
    key = hashlib.sha256(
        b"\0".join([source.read_bytes(), " ".join(flags).encode(), compiler.encode(), cpu_name().encode()])
    )
    return cache_root() / f"{source.stem}-{key.hexdigest()[:16]}.so"


def record_path(target: Path) -> Path:
    return target.with_name(target.name + RECORD_SUFFIX)


def trusted_library(target: Path) -> bool:
    """True for a non-empty regular file owned by this user and writable by nobody else. A missing or
    empty file of ours is rebuilt (False); a file planted by someone else, or a link, raises."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        raise RuntimeError(f"{target} is not a library this user built; remove it")
    if info.st_mode & 0o022:
        raise RuntimeError(f"{target} is writable by other users; remove it")
    return info.st_size > 0


def recorded_digest(target: Path) -> tuple[str, int] | None:
    """The (SHA-256, size) recorded when ``target`` was built; None when there is no readable record."""
    data = read_small_file(record_path(target), limit=200)
    fields = data.decode("ascii", "replace").split() if data else []
    if len(fields) != 2 or len(fields[0]) != 64 or not fields[1].isdigit():
        return None
    return fields[0], int(fields[1])


QUIET = ("missing", "no checksum recorded")  # rebuilt without a warning: a new cache, or one from before records


def mismatch(target: Path) -> str | None:
    """Why ``target`` may not be loaded, or None. :data:`QUIET` reasons are a missing file or record; any
    other is a damaged file: emptied, truncated, or not the file that was built."""
    if not os.path.lexists(target):
        return "missing"
    trusted_library(target)  # raises for a link, another user's file, or one others can write
    recorded = recorded_digest(target)
    if recorded is None:
        return "no checksum recorded"
    digest, size = file_digest(target)
    if size != recorded[1]:
        return f"{size:,} bytes where {recorded[1]:,} were built"
    if digest != recorded[0]:
        return "its checksum differs from the one recorded when it was built"
    return None


def compile_library(compiler: str, source: Path, target: Path, flags: Sequence[str], link: Sequence[str]) -> None:
    """Compile into a private scratch folder, record the checksum, and rename both into place (each rename
    is atomic, so concurrent processes see a whole file or none)."""
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        built, objects = Path(scratch) / target.name, Path(scratch) / f"{source.stem}.o"
        for command in (
            [compiler, *flags, "-c", str(source), "-o", str(objects)],
            [compiler, *link, str(objects), "-o", str(built), "-lm"],
        ):
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"{compiler} failed: {result.stderr.strip().splitlines()[-1:]}")
        os.chmod(built, 0o700)
        digest, size = file_digest(built)
        record = Path(scratch) / record_path(target).name
        record.write_text(f"{digest} {size}\n", encoding="ascii")
        os.chmod(record, 0o600)
        os.replace(record, record_path(target))
        os.replace(built, target)


def load_library(source: Path, flags: Sequence[str], link: Sequence[str]) -> ctypes.CDLL:
    """The compiled ``source``, built when missing and rebuilt when it does not match its recorded checksum
    (one warning when a recorded file was damaged); raises when it cannot be built or verified."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError("no C compiler found (set CC)")
    target = library_path(source, [*flags, *link], compiler)
    private_folder(target.parent.parent, CACHE_HINT)
    private_folder(target.parent, CACHE_HINT)
    problem = mismatch(target)
    if problem is not None:
        damaged = problem not in QUIET
        try:
            compile_library(compiler, source, target, flags, link)
        except Exception as err:  # the caller's one warning says both: damaged, and why no rebuild
            if not damaged:
                raise
            raise RuntimeError(f"{target} is damaged ({problem}) and was not rebuilt: {err}") from err
        problem_after = mismatch(target)
        if problem_after is not None:
            raise RuntimeError(f"the rebuilt kernel library {target} does not verify ({problem_after})")
        if damaged:
            warnings.warn(f"the cached kernel library {target} was damaged ({problem}); rebuilt it", stacklevel=3)
    return ctypes.CDLL(str(target))
