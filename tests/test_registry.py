"""The one registry base (selfexplain/support/registry.py) and the kinds of extension built on it: each
kind's registry is a Registry, and each list the command line, the config and the app offer is read from
one (issue 60 item 2)."""

from __future__ import annotations

import pytest

from selfexplain.errors import InvalidInputError
from selfexplain.support.registry import Registry, import_modules


def test_entries_keep_registration_order_and_list_the_choices_when_unknown() -> None:
    colours: Registry[str] = Registry("colour")
    assert colours.register("red", "#f00") == "#f00"
    colours.register("blue", "#00f", aliases=("navy",))
    assert colours.names() == ("red", "blue") == tuple(colours) and len(colours) == 2
    assert colours.get("navy") == "#00f" == colours["blue"] and colours.canonical("navy") == "blue"
    assert colours.known("navy") and "navy" not in colours  # an alias resolves but is not listed
    assert colours.names(lambda hex_: hex_.endswith("f")) == ("blue",)
    with pytest.raises(ValueError, match=r"^unknown colour 'green'; choose from red, blue$"):
        colours.get("green")
    assert colours.get("green", None) is None  # with a default, a mapping's get
    assert dict(colours) == {"red": "#f00", "blue": "#00f"}


def test_a_taken_name_is_refused_and_the_same_entry_again_changes_nothing() -> None:
    colours: Registry[str] = Registry("colour", error=InvalidInputError)
    colours.register("red", "#f00", aliases=("scarlet",))
    colours.register("red", "#f00")
    with pytest.raises(ValueError, match="colour name 'red' is taken by '#f00'"):
        colours.register("red", "#e00")
    with pytest.raises(ValueError, match="'scarlet' is taken"):
        colours.register("scarlet", "#e00")
    assert dict(colours) == {"red": "#f00"}
    with pytest.raises(InvalidInputError, match="unknown colour"):
        colours.get("pink")


def test_an_order_key_keeps_the_entries_sorted_and_the_decorator_registers() -> None:
    ranked: Registry[tuple[int, str]] = Registry("rank", order=lambda item: item[1][0])
    ranked.register("late", (9, "z"))
    ranked.register("early", (1, "a"))
    assert ranked.names() == ("early", "late")
    functions: Registry[object] = Registry("function")

    @functions.add("double")
    def double(x: int) -> int:
        return 2 * x

    assert functions.get("double") is double and double(2) == 4


def test_a_fill_runs_once_before_the_first_read_and_again_after_a_failure() -> None:
    calls: list[int] = []

    def fill() -> None:
        calls.append(len(calls))
        if len(calls) == 1:
            raise ImportError("not yet")
        shapes.register("square", 4)

    shapes: Registry[int] = Registry("shape", fill=fill)
    shapes.register("triangle", 3)  # registering does not fill
    assert calls == []
    with pytest.raises(ImportError):
        shapes.names()
    assert shapes.names() == ("triangle", "square") and shapes.get("square") == 4 and len(shapes) == 2
    assert calls == [0, 1]  # filled once it succeeded, never again


def test_the_sharpness_measures_carry_their_computation_and_fill_on_first_read() -> None:
    from selfexplain.lab.sharpness.registry import COLUMNS, MEASURES, file_order

    assert all(COLUMNS[key] is measure and callable(measure.compute) for key, measure in MEASURES.items())
    assert [m.rank for m in MEASURES.values()] == sorted(m.rank for m in MEASURES.values())  # the tables' order
    assert list(COLUMNS.items()) == sorted(COLUMNS.items(), key=file_order)  # the file's order


def test_import_modules_imports_every_module_of_a_package() -> None:
    import selfexplain.methods.explainers as explainers

    names = import_modules(explainers.__name__, explainers.__path__)
    assert "selfexplain.methods.explainers.alpha" in names and list(names) == sorted(names)


def test_every_kind_of_extension_is_a_registry() -> None:
    from selfexplain.lab.anatomy.perturb import REGISTRY as PERTURBATIONS
    from selfexplain.lab.sharpness.registry import MEASURES
    from selfexplain.methods.explainers import METHODS

    assert isinstance(METHODS, Registry) and isinstance(PERTURBATIONS, Registry) and isinstance(MEASURES, Registry)
    assert all(measure.key == key for key, measure in MEASURES.items())
    from pages.ui.page_registry import PAGES

    assert isinstance(PAGES, Registry) and all(page.address == address for address, page in PAGES.items())


def test_the_normaliser_choices_and_the_config_check_read_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from selfexplain.cli import build_parser
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.core.modeling.normalisers import NORMALISERS, NormaliserSpec, masked_softmax

    def choices(command: str) -> tuple[str, ...]:
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command").choices[command]
        return tuple(next(a for a in sub._actions if a.dest == "normaliser").choices)

    assert isinstance(NORMALISERS, Registry)
    assert choices("train") == choices("distill") == NORMALISERS.names()
    assert [name for name, spec in NORMALISERS.items() if spec.fused] == ["softmax"]  # the span layer's own path
    monkeypatch.setitem(NORMALISERS._entries, "softmax_again", NormaliserSpec("softmax_again", masked_softmax))
    assert "softmax_again" in choices("train") and "softmax_again" in choices("distill")
    ModelConfig(encoder="e", label_names=["a", "b"], normaliser="softmax_again")  # the one new file is enough
    with pytest.raises(ValueError, match="unknown normaliser 'nope'; use one of softmax, "):
        ModelConfig(encoder="e", label_names=["a", "b"], normaliser="nope")


def test_the_encoder_families_are_read_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from selfexplain.core.modeling.families import FAMILIES, Family, family_of

    assert isinstance(FAMILIES, Registry) and all(family.name == name for name, family in FAMILIES.items())
    assert family_of(SimpleNamespace(model_type="gpt2")) == FAMILIES["gpt2"]
    assert family_of(SimpleNamespace(model_type="roberta")) == FAMILIES["roberta"]
    assert family_of(SimpleNamespace(model_type="bert")) == Family("bert", causal=False, summary="first")
    assert family_of(SimpleNamespace(model_type="new", is_decoder=True)).summary == "last"
    monkeypatch.setitem(FAMILIES._entries, "new", Family("new", causal=True, summary="last", position_offset=2))
    assert family_of(SimpleNamespace(model_type="new")) == FAMILIES["new"]  # one registration is enough
