"""The self-filled registry of attribution methods (selfexplain/methods/explainers/registry.py, a
selfexplain.support.registry.Registry): every method module's class is in it, the default sets (the CLI's,
the lab's and the page's) are read from the methods' own flags, and the alias input_x_gradient is
grad_x_input. No list of methods is written here: a new method module needs no edit of this file."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import SimpleNamespace

import numpy as np
import pytest

import selfexplain.methods.explainers as explainers
from selfexplain.errors import InvalidInputError
from selfexplain.lab.faithfulness.cli import default_explainers
from selfexplain.lab.faithfulness.experiment import FAST_EXPLAINERS, LabOptions
from selfexplain.methods.explainers import (
    ALIASES,
    CORE_METHODS,
    FAST_METHODS,
    METHODS,
    get_method,
    is_method,
    method_class,
    method_label,
    method_names,
)
from selfexplain.methods.explainers.base import AttributionMethod
from selfexplain.methods.explainers.grad_x_input import GradXInputMethod
from selfexplain.methods.explainers.registry import register

TEXT = "The visuals are gorgeous, but the story is thin."


def module_classes() -> dict[str, type[AttributionMethod]]:
    """Every class of a module of the package that sets its own ``name``, found by reading the modules."""
    found: dict[str, type[AttributionMethod]] = {}
    for info in pkgutil.iter_modules(explainers.__path__):
        module = importlib.import_module(f"selfexplain.methods.explainers.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, AttributionMethod) and cls.__module__ == module.__name__ and cls.__dict__.get("name"):
                found[cls.name] = cls
    return found


def test_the_registry_lists_every_method_module_class() -> None:
    found = module_classes()
    assert "alpha" in found and "grad_x_input" in found
    assert {name: METHODS[name] for name in found} == found and set(METHODS) == set(found)
    assert all(cls.label for cls in METHODS.values())
    ranks = [cls.rank for cls in METHODS.values()]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)  # METHODS is in rank order, no ties


def test_the_default_sets_are_read_from_the_flags() -> None:
    ordered = sorted(module_classes().values(), key=lambda cls: (cls.rank, cls.name))
    flagged = {flag: tuple(c.name for c in ordered if getattr(c, flag)) for flag in ("core", "fast", "windows")}
    assert FAST_METHODS == flagged["fast"] == method_names("fast")
    assert FAST_EXPLAINERS == FAST_METHODS and LabOptions().explainers == FAST_METHODS
    assert CORE_METHODS == flagged["core"] == method_names("core")
    assert default_explainers() == CORE_METHODS  # what `selfexplain faithfulness` runs unasked
    assert set(FAST_METHODS) <= set(CORE_METHODS) and FAST_METHODS and CORE_METHODS
    assert method_names("windows") == flagged["windows"] and "alpha" in flagged["windows"]
    assert method_names() == tuple(METHODS) == tuple(c.name for c in ordered)


class _Stop(Exception):
    """Raised by the stand-in for run_lab once it has seen the options."""


def test_the_cli_runs_the_core_set_when_not_told(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from selfexplain.cli import main

    seen: list[tuple[str, ...]] = []

    def stop(explainer: object, examples: object, options: LabOptions, *args: object, **kwargs: object) -> list:
        seen.append(options.explainers)
        raise _Stop

    model = SimpleNamespace(config=SimpleNamespace(label_names=("neg", "pos")))
    monkeypatch.setattr("selfexplain.lab.faithfulness.experiment.run_lab", stop)
    monkeypatch.setattr("selfexplain.core.pipeline.load_model", lambda *args, **kwargs: model)
    monkeypatch.setattr("selfexplain.lab.faithfulness.cli.read_model_examples", lambda *args, **kwargs: [])
    for extra, expected in (([], CORE_METHODS), (["--explainers", " alpha, loo,"], ("alpha", "loo"))):
        with pytest.raises(_Stop):
            main(["faithfulness", "--data", "x.txt", "--out", str(tmp_path), "--no-progress", *extra])
        assert seen.pop() == expected


def test_the_alias_resolves_to_the_same_class_and_scores(tiny_explainer) -> None:
    assert ALIASES == {alias: cls.name for cls in module_classes().values() for alias in cls.aliases}
    assert "input_x_gradient" not in METHODS and is_method("input_x_gradient")
    assert method_class("input_x_gradient") is GradXInputMethod is method_class("grad_x_input")
    LabOptions(explainers=("input_x_gradient", "grad_x_input")).check()  # old commands still run
    instance = tiny_explainer.instance(TEXT)
    alias = get_method("input_x_gradient").attribute(tiny_explainer, instance)
    np.testing.assert_array_equal(alias, get_method("grad_x_input").attribute(tiny_explainer, instance))
    # results folders that name it keep a label of their own
    assert method_label("input_x_gradient") == "Gradient x input (input_x_gradient)"
    assert method_label("grad_x_input") == "Gradient x input" and method_label("old_method") == "old_method"


def test_unknown_names_and_taken_names_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="unknown attribution method 'shap'; choose from alpha, "):
        get_method("shap")
    with pytest.raises(InvalidInputError, match="unknown explainers"):
        LabOptions(explainers=("shap",)).check()
    before = dict(METHODS)
    with pytest.raises(ValueError, match="'loo' is taken by LeaveOneOutMethod"):

        class Clash(AttributionMethod):
            name = "loo"
            label = "Another leave-one-out"

    with pytest.raises(ValueError, match="'input_x_gradient' is taken by GradXInputMethod"):

        class AliasClash(AttributionMethod):
            name = "input_x_gradient"
            label = "Another input x gradient"

    class Unnamed(GradXInputMethod):  # no name of its own: not registered
        pass

    assert METHODS == before and list(METHODS) == list(before)
    assert register(GradXInputMethod) is GradXInputMethod and list(METHODS) == list(before)  # idempotent
