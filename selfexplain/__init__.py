"""selfexplain: Self-Explaining text classifiers and the tools to inspect them.

``load_model(name_or_path=None).explain(text, pair=None)`` returns an :class:`Explanation`.

The package in floors (``docs/architecture.md``), one folder a floor, each importing only from those below it:

- :mod:`selfexplain.errors`, :mod:`selfexplain.settings`, :mod:`selfexplain.support` (infrastructure) and
  :mod:`selfexplain.data` (a labelled example);
- :mod:`selfexplain.core`: the model (``core/modeling``: encoder, span layer, native kernels, config, encoder
  families, model folders, cards), every example reader (``core/formats``), one tokenisation (``core/inputs``),
  what an explained input is (``core/results``: Explanation, Document, the JSON schema) and ``core/pipeline.py``:
  ``load_model`` and :class:`SelfExplainer`, the one route to the model;
- :mod:`selfexplain.methods`: attribution methods (``methods/explainers``), training (``methods/training``)
  and analyses (``methods/analysis``); :mod:`selfexplain.views` (figures and HTML);
- the wings, each feature with its ``cli.py``: :mod:`selfexplain.lab` (faithfulness, anatomy, plausibility,
  sharpness, distill), :mod:`selfexplain.batch`, :mod:`selfexplain.gallery`; and :mod:`selfexplain.cli`,
  the command. ``selfexplain.pipeline`` is ``load_model``'s old address, kept for users.

The names below are imported on first use: ``import selfexplain`` loads neither torch nor numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from selfexplain.core.results import display as _display

__version__ = "0.1.0"

# public name -> the module that defines it (imported lazily by __getattr__)
_EXPORTS: dict[str, str] = {
    # load a model, explain text
    "load_model": "selfexplain.core.pipeline",
    "SelfExplainer": "selfexplain.core.pipeline",
    "available_models": "selfexplain.core.modeling.model_folders",
    # results
    "Explanation": "selfexplain.core.results.explanation",
    "Document": "selfexplain.core.results.document",
    "Span": "selfexplain.core.results.schema",
    "Token": "selfexplain.core.results.schema",
    "Instance": "selfexplain.core.results.instance",
    # the model
    "ModelConfig": "selfexplain.core.modeling.config",
    "SelfExplainingModel": "selfexplain.core.modeling.model",
    # data and training
    "Example": "selfexplain.data",
    "read_examples": "selfexplain.core.formats.examples",
    "TrainOptions": "selfexplain.methods.training.loop",
    "train": "selfexplain.methods.training.loop",
    "predict_examples": "selfexplain.methods.training.evaluation",
    # registries
    "METHODS": "selfexplain.methods.explainers",
    "AttributionMethod": "selfexplain.methods.explainers",
    "get_method": "selfexplain.methods.explainers",
    "SUFFIXES": "selfexplain.core.formats",
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
    from selfexplain.core.formats import SUFFIXES
    from selfexplain.core.formats.examples import read_examples
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.core.modeling.model import SelfExplainingModel
    from selfexplain.core.modeling.model_folders import available_models
    from selfexplain.core.pipeline import SelfExplainer, load_model
    from selfexplain.core.results.document import Document
    from selfexplain.core.results.explanation import Explanation
    from selfexplain.core.results.instance import Instance
    from selfexplain.core.results.schema import Span, Token
    from selfexplain.data import Example
    from selfexplain.errors import InputTooLongError, InvalidInputError, UnknownModelError
    from selfexplain.methods.explainers import METHODS, AttributionMethod, get_method
    from selfexplain.methods.training.evaluation import predict_examples
    from selfexplain.methods.training.loop import TrainOptions, train


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
