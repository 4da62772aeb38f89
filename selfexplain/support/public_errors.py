"""What a visitor of a shared deployment is told when a model cannot be loaded: one line that names the
model as the visitor chose it, never the server's paths nor a library's internal message.

A model folder that does not load (a broken ``selfexplain.json``, an encoder config so large the allocator
refuses it, missing weights) raises an error whose message names the folder's path on the server and, often,
what PyTorch or transformers said (``alloc_cpu.cpp ... 17179869184 bytes``). On the operator's own machine
(``SELFEXPLAIN_RESTRICT_MODELS`` off) that message is what helps, so it is shown whole; in a restricted
deployment the visitor sees :func:`load_failure` and the full message goes to the server's log.
"""

from __future__ import annotations

import logging

from selfexplain.errors import EncoderNotInstalledError, UnknownModelError

LOG = logging.getLogger("selfexplain.app")


def load_failure(name: str, err: BaseException, restricted: bool) -> str:
    """The one line shown for ``err``, raised loading the model chosen as ``name``. Unrestricted: the error's
    own first line. Restricted: an unknown name keeps its message (it names only what the visitor typed and
    the deployment's models), as does a packaged encoder that is not installed (it names the packages to
    install); any other failure is logged whole and replaced by a line without paths."""
    first = (str(err).strip().splitlines() or [type(err).__name__])[0]
    if not restricted or isinstance(err, (UnknownModelError, EncoderNotInstalledError)):
        return first
    LOG.warning("model %r cannot be loaded: %s", name, str(err))
    return (
        f"model {name!r} cannot be loaded: its folder is damaged or was written for another selfexplain "
        "(the server's log has the details)"
    )
