"""Folders and files only this user may change: the kernel cache (a library loaded into the process)
and the gallery (pins shown to the app's visitors).

A folder is created mode 0700 (exactly: ``mkdir``'s mode is reduced by the umask, so it is set again);
an existing one must be a real folder (not a symbolic link) owned by this user that neither the group nor
others can write to, or :class:`UnsafePathError` says why and what to do; one that others can read (0755)
is narrowed to 0700. Files are created mode 0600 and
an existing one of ours is narrowed to 0600; a link or a file of another user is refused. Folders and files
are never widened and never taken over from another user.

:func:`file_digest` and :func:`read_small_file` read a file without following a link at its last step,
for checksums recorded beside what they describe.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

DIGEST_CHUNK = 1 << 20


class UnsafePathError(RuntimeError):
    """A folder or file that others could change (or a link to one) where this user's data must live."""


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def private_folder(folder: Path, hint: str) -> None:
    """Create ``folder`` (and missing parents) with ``folder`` itself mode 0700, or check that the existing
    one is private enough: a real folder, owned by this user, not writable by group or others (then it is
    narrowed to 0700 if others could read it). ``hint`` ends the error message (what to do instead)."""
    folder = Path(folder)
    if _lstat(folder) is None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # mkdir's mode is reduced by the umask, never widened; make it exact
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafePathError(f"{folder} is not a plain folder (a link or a file); {hint}")
    if info.st_uid != os.getuid():
        raise UnsafePathError(f"{folder} is owned by another user; {hint}")
    if info.st_mode & 0o022:
        raise UnsafePathError(f"{folder} is writable by other users (mode {stat.S_IMODE(info.st_mode):o}); {hint}")
    if info.st_mode & 0o055:  # ours, readable or listable by others (a 0755 folder made before): narrowed
        os.chmod(folder, stat.S_IMODE(info.st_mode) & 0o700)


def private_file(path: Path, hint: str) -> None:
    """Create ``path`` empty with mode 0600 unless it exists; an existing one must be a regular file of this
    user (not a link) and is narrowed to 0600 when its mode is wider."""
    path = Path(path)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        os.fchmod(descriptor, 0o600)  # the umask cannot widen it, but a umask of 0o777 would leave 000
        os.close(descriptor)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise UnsafePathError(f"{path} is not a plain file (a link or a folder); {hint}")
    if info.st_uid != os.getuid():
        raise UnsafePathError(f"{path} is owned by another user; {hint}")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o600)


def file_digest(path: Path) -> tuple[str, int]:
    """The SHA-256 (hex) and size of the regular file at ``path``, read through a descriptor that does not
    follow a link; OSError when it cannot be read."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(descriptor, "rb") as handle:
        digest = hashlib.sha256()
        size = 0
        while chunk := handle.read(DIGEST_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def read_small_file(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of this user that nobody else can write, at most ``limit`` of them;
    None when it is missing, larger, a link, or not private."""
    info = _lstat(Path(path))
    if info is None or not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    if info.st_size > limit:
        return None
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read(limit + 1)[:limit]
