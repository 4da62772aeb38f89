"""selfexplain: Self-Explaining text classifiers and the tools to inspect them.

``load_model(name_or_path=None).explain(text, pair=None)`` returns an :class:`Explanation`.

The package in floors (``docs/architecture.md``), each importing only from those below it:

- :mod:`selfexplain.errors`, :mod:`selfexplain.settings`, :mod:`selfexplain.support` (infrastructure) and
  :mod:`selfexplain.data` (a labelled example);
- :mod:`selfexplain.modeling`: the model (encoder, span layer, native kernels), its config, encoder families,
  model folders and cards; :mod:`selfexplain.formats`: every example reader;
- :mod:`selfexplain.inputs`: one tokenisation, batches, windows, positions;
- :mod:`selfexplain.results`: what an explained input is (Explanation, Document, words, the JSON schema);
- :mod:`selfexplain.pipeline`: ``load_model`` and :class:`SelfExplainer`, the one route to the model;
- :mod:`selfexplain.explainers` (attribution methods) and ``selfexplain/training/`` (loop, evaluation);
  :mod:`selfexplain.analysis`; :mod:`selfexplain.views` (figures and HTML);
- the wings, each with its ``cli.py``: :mod:`selfexplain.faithfulness`, :mod:`selfexplain.anatomy`,
  :mod:`selfexplain.sharpness`, :mod:`selfexplain.plausibility`, :mod:`selfexplain.distill`,
  :mod:`selfexplain.batch`, :mod:`selfexplain.gallery`; and :mod:`selfexplain.cli`, the command.

The names below are imported on first use: ``import selfexplain`` loads neither torch nor numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from selfexplain.results import display as _display

__version__ = "0.1.0"

# public name -> the module that defines it (imported lazily by __getattr__)
_EXPORTS: dict[str, str] = {
    # load a model, explain text
    "load_model": "selfexplain.pipeline",
    "SelfExplainer": "selfexplain.pipeline",
    "available_models": "selfexplain.modeling.model_folders",
    # results
    "Explanation": "selfexplain.results.explanation",
    "Document": "selfexplain.results.document",
    "Span": "selfexplain.results.schema",
    "Token": "selfexplain.results.schema",
    "Instance": "selfexplain.results.instance",
    # the model
    "ModelConfig": "selfexplain.modeling.config",
    "SelfExplainingModel": "selfexplain.modeling.model",
    # data and training
    "Example": "selfexplain.data",
    "read_examples": "selfexplain.formats.examples",
    "TrainOptions": "selfexplain.training.loop",
    "train": "selfexplain.training.loop",
    "predict_examples": "selfexplain.training.evaluation",
    # registries
    "METHODS": "selfexplain.explainers",
    "AttributionMethod": "selfexplain.explainers",
    "get_method": "selfexplain.explainers",
    "SUFFIXES": "selfexplain.formats",
    # errors a caller catches
    "InvalidInputError": "selfexplain.errors",
    "InputTooLongError": "selfexplain.errors",
    "UnknownModelError": "selfexplain.errors",
}
__all__ = [
    "AttributionMethod",
    "Document",
    "Example",
    "Explanation",
    "InputTooLongError",
    "Instance",
    "InvalidInputError",
    "METHODS",
    "ModelConfig",
    "SUFFIXES",
    "SelfExplainer",
    "SelfExplainingModel",
    "Span",
    "Token",
    "TrainOptions",
    "UnknownModelError",
    "available_models",
    "get_method",
    "load_model",
    "predict_examples",
    "read_examples",
    "train",
]

# Notebook display: an Explanation's _repr_html_ and show() come from the views layer (results import no
# view); naming the module here lets the first display import it.
_display.provided_by("selfexplain.views.notebook")

if TYPE_CHECKING:
    from selfexplain.data import Example
    from selfexplain.errors import InputTooLongError, InvalidInputError, UnknownModelError
    from selfexplain.explainers import METHODS, AttributionMethod, get_method
    from selfexplain.formats import SUFFIXES
    from selfexplain.formats.examples import read_examples
    from selfexplain.modeling.config import ModelConfig
    from selfexplain.modeling.model import SelfExplainingModel
    from selfexplain.modeling.model_folders import available_models
    from selfexplain.pipeline import SelfExplainer, load_model
    from selfexplain.results.document import Document
    from selfexplain.results.explanation import Explanation
    from selfexplain.results.instance import Instance
    from selfexplain.results.schema import Span, Token
    from selfexplain.training.evaluation import predict_examples
    from selfexplain.training.loop import TrainOptions, train


def __getattr__(name: str) -> object:
    # Lazy: `import selfexplain` stays light for the CLI and the feature modules.
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'selfexplain' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
