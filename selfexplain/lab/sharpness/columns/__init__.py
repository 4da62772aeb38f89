"""The columns of ``sharpness.csv``, one module per what they read; each registers its columns and measures
(:func:`~selfexplain.lab.sharpness.registry.register_measure`) where it defines them.

Importing this package imports every module in it, which the registries of
:mod:`selfexplain.lab.sharpness.registry` do when first read: a new measure is one registration in one of
these modules, or one new module here.
"""

from __future__ import annotations

from selfexplain.support.registry import import_modules

import_modules(__name__, __path__)  # each module registers its columns
