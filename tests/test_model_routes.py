"""One route to the model: ``SelfExplainer.run`` is the only caller of the model in the package
(training, which trains a model object of its own, and the model's own encoder call aside), and
every forward of explain, the lab, the attribution methods, anatomy, probing, evaluation, flip and
compare happens inside it, holding the model (``SelfExplainer.exclusive``, the one way to hold it: no
module but pipeline.py touches the lock behind it)."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import numpy as np
import pytest
from helpers import make_explainer

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.lab.anatomy.agreement import agreement_sentences, confusion_by_layer
from selfexplain.lab.anatomy.corpus import attention_anatomy
from selfexplain.lab.anatomy.probing import cache_hidden_states
from selfexplain.lab.faithfulness.experiment import LabOptions, analyse
from selfexplain.lab.faithfulness.flip import flip_certificate
from selfexplain.methods.explainers import get_method
from selfexplain.methods.training.evaluation import predict_examples

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "selfexplain"
# attribute / variable names the model object goes by: calling one of these is a forward pass
MODEL_NAMES = {"model", "core", "net", "network", "encoder"}
ALLOWED = {
    ("core/pipeline.py", "SelfExplainer.run"),  # the one route
    ("methods/training/loop.py", "batch_loss"),  # training's own model object
    ("methods/training/erasure_targets.py", "own_effects"),  # training's own model, on inputs with a word cut
    ("core/modeling/model.py", "SelfExplainingModel._encode"),  # the model calling its encoder
    ("methods/training/warm_start.py", "hf_probabilities"),  # a Hugging Face teacher, not a selfexplain model
}
LONG = " ".join(["the film is good but slow and the ending is dull"] * 30)


def model_calls(path: Path) -> list[tuple[str, int]]:
    """``(enclosing function, line)`` of every call of a model object or ``forward_windows`` in a module."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = (*scope, child.name)
            if isinstance(child, ast.Call):
                func = child.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name in MODEL_NAMES or name in ("forward_windows", "forward"):
                    found.append((".".join(scope), child.lineno))
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), ())
    return found


def test_only_run_training_and_the_model_call_the_model() -> None:
    sites = {
        (str(path.relative_to(PACKAGE)), scope): line
        for path in sorted(PACKAGE.rglob("*.py"))
        for scope, line in model_calls(path)
    }
    assert set(sites) == ALLOWED, sorted(sites)
    run = [line for scope, line in model_calls(PACKAGE / "core" / "pipeline.py") if scope == "SelfExplainer.run"]
    assert len(run) == 2  # the model on a batch, forward_windows on a windowed text


def lock_uses(path: Path) -> list[int]:
    """Lines of every ``.lock`` attribute (read, called or entered) in a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "lock"]


def test_no_module_but_the_pipeline_touches_the_lock() -> None:
    modules = [*PACKAGE.rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py", ROOT / "serve.py"]
    sites = {str(path.relative_to(ROOT)): lines for path in sorted(modules) if (lines := lock_uses(path))}
    assert set(sites) == {"selfexplain/core/pipeline.py"}, sites  # everyone else: ``with explainer.exclusive():``
    assert len(sites["selfexplain/core/pipeline.py"]) == 2  # made in __init__, held in exclusive()


def test_lock_uses_are_found(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f(explainer):\n    with explainer.lock:\n        pass\n    explainer.lock.acquire()\n")
    assert lock_uses(module) == [2, 4]


def test_exclusive_holds_the_one_lock_and_keeps_others_out(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=7)
    got: list[bool] = []
    with explainer.exclusive():
        assert explainer.lock._is_owned()  # type: ignore[attr-defined]
        with explainer.exclusive():  # re-entrant: a holder may call run, which holds it too
            explainer.predict(["good film"])
        other = threading.Thread(target=lambda: got.append(explainer.lock.acquire(timeout=0.05)))
        other.start()
        other.join()
        assert got == [False]  # another thread (another session) waits
    assert not explainer.lock._is_owned()  # type: ignore[attr-defined]

    def hold() -> None:
        with explainer.exclusive():
            got.append(explainer.lock._is_owned())  # type: ignore[attr-defined]

    other = threading.Thread(target=hold)
    other.start()
    other.join()
    assert got == [False, True]  # free again once released


@pytest.fixture
def watched(tiny_encoder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SelfExplainer, list[str]]:
    """A fresh tiny explainer whose every model forward records whether it ran inside
    ``SelfExplainer.run`` holding the lock ("ok"), or not (the caller's name)."""
    explainer = make_explainer(tiny_encoder, seed=7)
    depth = threading.local()
    calls: list[str] = []
    original_run = SelfExplainer.run

    def run(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        depth.value = getattr(depth, "value", 0) + 1
        try:
            return original_run(self, *args, **kwargs)
        finally:
            depth.value -= 1

    def watch(method):  # noqa: ANN001, ANN202
        def wrapped(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            inside = getattr(depth, "value", 0) > 0 and explainer.lock._is_owned()  # type: ignore[attr-defined]
            calls.append("ok" if inside else method.__name__)
            return method(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(SelfExplainer, "run", run)
    model = explainer.model
    monkeypatch.setattr(model, "forward", watch(model.forward))
    monkeypatch.setattr(model, "forward_windows", watch(model.forward_windows))
    return explainer, calls


@pytest.mark.slow
def test_every_forward_goes_through_run_under_the_lock(watched, tiny_encoder: Path) -> None:
    explainer, calls = watched
    examples = [Example("good plot bad acting", label=3), Example("a dull, lifeless film", label=0)]
    explainer.explain("The visuals are gorgeous, but the story is thin.")
    explainer.explain(LONG)
    explainer.explain_batch(["good film", LONG], long="truncate")
    explainer.window_attentions(LONG, 0)
    explainer.predict(["good film", LONG], uniform_alpha=True)
    predict_examples(explainer, examples, progress=False)
    instance = explainer.instance("good plot bad acting")
    for name in ("alpha", "gradient", "loo", "integrated_gradients", "deeplift", "lime", "attention_rows"):
        get_method(name).attribute(explainer, instance)
    analyse(explainer, examples[0], 0, LabOptions(adversarial_steps=2, permutations=2))
    analyse(explainer, Example(LONG), 1, LabOptions(explainers=("alpha", "loo"), adversarial_steps=2, permutations=2))
    flip_certificate(explainer, "good plot bad acting")
    attention_anatomy(explainer, examples, gradients=True, progress=False)
    confusion_by_layer(explainer, agreement_sentences(per_template=1))
    cache_hidden_states(explainer, examples, progress=False)
    assert len(calls) > 50
    assert set(calls) == {"ok"}, [c for c in calls if c != "ok"]
    assert np.isfinite(explainer.predict(["good film"])).all()
