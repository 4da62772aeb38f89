"""selfexplain: Self-Explaining text classifiers and the tools to inspect them.

``load_model(name_or_path=None).explain(text, pair=None)`` returns an
:class:`~selfexplain.results.explanation.Explanation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"
__all__ = ["Explanation", "SelfExplainer", "load_model"]

if TYPE_CHECKING:
    from selfexplain.pipeline import SelfExplainer, load_model
    from selfexplain.results.explanation import Explanation


def __getattr__(name: str) -> object:
    # Lazy: `import selfexplain` stays light for the CLI and the feature modules.
    if name in ("SelfExplainer", "load_model"):
        from selfexplain import pipeline

        return getattr(pipeline, name)
    if name == "Explanation":
        from selfexplain.results.explanation import Explanation

        return Explanation
    raise AttributeError(f"module 'selfexplain' has no attribute {name!r}")
