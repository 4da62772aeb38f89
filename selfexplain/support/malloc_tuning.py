"""Keep glibc's malloc from hoarding the span layer's large temporary blocks.

glibc serves blocks above its mmap threshold with ``mmap`` and returns them to the
system on free, but it raises that threshold (up to 32 MB) each time such a block is
freed. After that, the eager span layer's chunk blocks (16 MB each) come from the heap,
where a long document's hundreds of chunks can fragment it: a 4,096-token document was
measured at +6 GB resident in some runs instead of +0.47 GB (benchmarks/long_inputs.py,
eager). Fixing the threshold at 8 MB keeps those blocks mmapped (+0.47 GB in every run)
while the encoder's smaller tensors stay on the heap. It changes process-wide state, so
the library never calls it on import: the command line and the app do, at start-up.
"""

from __future__ import annotations

import ctypes
import os
import platform

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
DEFAULT_THRESHOLD = 8 << 20


def fix_mmap_threshold(threshold: int = DEFAULT_THRESHOLD) -> bool:
    """Set glibc's mmap threshold to ``threshold`` bytes; True if it was set.

    A no-op (False) off Linux, on C libraries without ``mallopt`` (musl), and when the user
    chose a threshold with ``MALLOC_MMAP_THRESHOLD_``.
    """
    if platform.system() != "Linux" or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))
