"""Where an export may write: a new path, or a regular file it may replace; never a device, a FIFO, a
socket, a folder or a symbolic link (followed or replaced).

``selfexplain gallery export /dev/null`` run as root used to rename a regular file over the device node,
and an export to a link replaced the link (``/proc/self/fd/1``) with a file. Every writer of a file the user
names calls :func:`check_output` first, and a writer that renames a temporary file into place calls
:func:`replace_output`, which checks again just before the rename. The target's last component is checked
with ``lstat`` (a link is refused, not followed); its folder may be reached through links.

Imports nothing but :mod:`selfexplain.errors` and :mod:`selfexplain.support.terminal`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from selfexplain.errors import InvalidInputError
from selfexplain.support.terminal import printable

KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def check_output(path: Path | str) -> None:
    """Refuse (:class:`InvalidInputError`, one line) an output path that exists and is not a regular file;
    a path that does not exist yet, or a regular file, passes."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as err:
        raise InvalidInputError(f"cannot write {printable(path, lines=False)}: {err.strerror or err}") from None
    for test, kind in KINDS:
        if test(info.st_mode):
            raise InvalidInputError(
                f"{printable(path, lines=False)} is {kind}; exports write only to a new path or a regular file"
            )
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInputError(f"{printable(path, lines=False)} is not a regular file; choose another output")


def replace_output(temporary: Path | str, path: Path | str) -> None:
    """Rename the finished ``temporary`` file over ``path`` after checking ``path`` again (it may have been
    swapped for a link or a device while the export ran); the temporary file is left for the caller to
    remove when the check fails."""
    check_output(path)
    os.replace(temporary, path)
