"""Token attribution methods behind one verb: ``get_method(name).attribute(explainer, instance)``.

``instance = explainer.instance(text, pair)`` runs the input once (attentions and hidden states
included; a text longer than one window in windows, which only the methods with ``windows = True``
score); every method returns token scores ``[T]`` for ``instance.target`` (higher = more
important). Each method registers itself (:mod:`selfexplain.methods.explainers.registry`): importing this
package imports every module in it, so :data:`METHODS` (name -> class, in rank order) is what the CLI
and the app offer, and the default sets are read from the methods' own flags:

- :data:`CORE_METHODS`: the twelve methods ``selfexplain faithfulness`` runs by default;
- :data:`FAST_METHODS`: the quick default selection of the lab's ``LabOptions`` and the Faithfulness page.

The methods known from captum (saliency, integrated gradients, DeepLift, feature ablation, occlusion, LIME,
KernelSHAP) run through captum on the word embeddings.
"""

from __future__ import annotations

from selfexplain.methods.explainers.base import AttributionMethod, Instance
from selfexplain.methods.explainers.registry import (
    ALIASES,
    METHODS,
    get_method,
    is_method,
    method_class,
    method_label,
    method_names,
)
from selfexplain.support.registry import import_modules

import_modules(__name__, __path__)  # each method module registers its classes

CORE_METHODS: tuple[str, ...] = method_names("core")
FAST_METHODS: tuple[str, ...] = method_names("fast")

__all__ = [
    "ALIASES",
    "CORE_METHODS",
    "FAST_METHODS",
    "METHODS",
    "AttributionMethod",
    "Instance",
    "get_method",
    "is_method",
    "method_class",
    "method_label",
    "method_names",
]
