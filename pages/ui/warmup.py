"""Work done once when the server starts (``streamlit run serve.py``), before the first visitor: the
default model loaded and its opening example explained, in the same caches the pages read, so a new
session paints an explained example instead of waiting for the model (issue 23 item 6)."""

from __future__ import annotations

import importlib
import logging
import pkgutil
import time

from streamlit.logger import get_logger

import pages.parts
import pages.ui
from pages.ui.examples import examples_for, opening_example
from pages.ui.loading import cached_explainer, cached_explanation
from selfexplain.core.pipeline import DEFAULT_MODEL, resolve_model
from selfexplain.core.results.explanation import Explanation
from selfexplain.errors import USER_ERRORS
from selfexplain.settings import apply_app_defaults

LOG = get_logger(__name__)  # Streamlit's handler: the lines appear in the server's log


def warm_default_model(model: str = DEFAULT_MODEL) -> float | None:
    """Load ``model`` and explain its opening example into the shared caches; returns the seconds it
    took, or None (with the reason logged) when the model cannot load: the app then loads it on first
    use and shows the error there, as without a warm-up."""
    apply_app_defaults()  # as the pages do on every run: the model resolves as a visitor's would
    started = time.perf_counter()
    # outside any session the caches warn "missing ScriptRunContext" on each call; expected here
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
    try:
        directory = str(resolve_model(model))
        explainer = cached_explainer(directory)
        example = opening_example(examples_for(explainer.name))
        if example is not None:
            pair = example.get("pair") if explainer.config.pair else None
            warm_page_code(cached_explanation(directory, example["text"], pair))
    except USER_ERRORS as err:
        LOG.warning("not warmed up: %s", err)
        return None
    seconds = time.perf_counter() - started
    LOG.info("model %s loaded and its example explained in %.1f s", model, seconds)
    return seconds


def warm_page_code(explanation: Explanation) -> list[str]:
    """Import every module the pages share and build and serialise the alpha grid of ``explanation`` once,
    so the first session's run does not pay for them (about 0.8 s on 2 cores: the difference between the
    first session's title and a later one's in ``benchmarks/browser_load.py --first``). Returns the
    modules imported."""
    from selfexplain.views.figures import span_grid_figure

    names = [
        module.name
        for package in (pages.parts, pages.ui)
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}.")
    ]
    for name in names:
        importlib.import_module(name)
    span_grid_figure(explanation, level="word").to_json()  # plotly loads its validators on first use
    return names
