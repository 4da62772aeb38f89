"""Long computations on a page with a time bound: a progress bar that states the bound, and a stop when the
bound passes or the browser session that asked for the run has ended (a closed tab)."""

from __future__ import annotations

import time
from collections.abc import Callable

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx


class RunStopped(Exception):
    """A bounded run stopped before it finished; ``reason`` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def session_alive() -> bool:
    """Whether the browser session running this script is still connected (True outside a server)."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(ctx.session_id)


def bounded_report(
    report: Callable[[float, str], None],
    label: str,
    bound_s: float,
    alive: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[float], None]:
    """A progress callback: each call shows ``fraction`` (0..1) with the time spent and the bound through
    ``report(fraction, text)``, and raises :class:`RunStopped` once ``bound_s`` seconds have passed or the
    session has ended (``alive()``; default :func:`session_alive`). Computations that call it stop there."""
    start = clock()
    check = alive if alive is not None else session_alive

    def update(fraction: float) -> None:
        if not check():
            raise RunStopped("the browser session that started it has ended")
        spent = clock() - start
        if spent > bound_s:
            raise RunStopped(f"it passed its time bound of {bound_s:.0f} s")
        share = min(max(float(fraction), 0.0), 1.0)
        report(share, f"{label} {share:.0%} · {spent:.0f} s of at most {bound_s:.0f} s")

    return update
