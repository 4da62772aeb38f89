"""``load_model`` and ``SelfExplainer`` at their old address (``from selfexplain.pipeline import load_model``):
the pipeline lives in :mod:`selfexplain.core.pipeline`; this module only re-exports its names. Nothing in
the package imports it."""

from selfexplain.core.pipeline import *  # noqa: F403
from selfexplain.core.pipeline import __all__  # noqa: F401
