"""The one registry of named perturbations (selfexplain/lab/anatomy/perturb.py, a
selfexplain.support.registry.Registry): the names and titles are read from it, the registered perturbations
give the texts of the dispatch the corpus study and the Adversarial page each wrote out before (issue 25
item 2), and the page reads it instead of dispatching itself. The old dispatch below is a record of the old
behaviour, not a list the registry must equal: a new perturbation needs no edit of this file."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

from selfexplain.core.results.explanation import Explanation
from selfexplain.lab.anatomy.perturb import (
    PERTURBATION_TITLES,
    PERTURBATIONS,
    REGISTRY,
    PerturbationInputs,
    append_distractor,
    drop_top_attention,
    drop_top_span,
    example_rng,
    get_perturbation,
    perturbation,
    shuffle_words,
    swap_antonyms,
)
from selfexplain.lab.anatomy.robustness import perturb_texts

PAGE = Path(__file__).resolve().parents[1] / "pages" / "5_Adversarial.py"
OLD_NAMES = ("shuffle", "distractor", "drop_top_span", "drop_top_attention", "antonyms")  # the old dispatch's
TEXTS = ["a good movie with a bad ending .", "the best and the worst of it .", "I love it", "ugly", "fun"]
ANTONYMS = {"good": "bad", "bad": "good", "love": "hate", "hate": "love"}


def old_corpus_texts(name: str, originals: list[Explanation], seed: int, antonyms: Mapping[str, str]) -> list[str]:
    """robustness.perturb_texts as it was before the registry."""
    texts = [e.text for e in originals]
    count = len(texts)
    makers = {
        "shuffle": lambda i: shuffle_words(texts[i], example_rng(seed, i)),
        "distractor": lambda i: append_distractor(
            texts[i],
            texts[(i + 1 + int(example_rng(seed, i).integers(max(count - 1, 1)))) % count],
            example_rng(seed, i),
        ),
        "drop_top_span": lambda i: drop_top_span(originals[i]),
        "drop_top_attention": lambda i: drop_top_attention(originals[i]),
        "antonyms": lambda i: swap_antonyms(texts[i], antonyms or {}),
    }
    return [makers[name](i) for i in range(count)]


def old_page_text(name: str, text: str, original: Explanation, seed: int, distractor: str, antonyms: dict) -> str:
    """The Adversarial page's one-example dispatch as it was before the registry."""
    makers = {
        "shuffle": lambda: shuffle_words(text, example_rng(seed, 0)),
        "distractor": lambda: append_distractor(text, distractor, example_rng(seed, 0)),
        "drop_top_span": lambda: drop_top_span(original),
        "drop_top_attention": lambda: drop_top_attention(original),
        "antonyms": lambda: swap_antonyms(text, antonyms),
    }
    return makers[name]()


def test_the_names_and_titles_are_read_from_the_registry() -> None:
    assert PERTURBATIONS == tuple(REGISTRY) and set(OLD_NAMES) <= set(PERTURBATIONS)
    assert PERTURBATION_TITLES == {name: spec.title for name, spec in REGISTRY.items()}
    assert all(spec.title and spec.name == name for name, spec in REGISTRY.items())
    assert REGISTRY["antonyms"].needs_antonyms and not REGISTRY["shuffle"].needs_antonyms
    with pytest.raises(ValueError, match=f"^unknown perturbation 'nope'; choose from {', '.join(PERTURBATIONS)}$"):
        get_perturbation("nope")
    before = dict(REGISTRY)
    with pytest.raises(ValueError, match="registered twice"):
        perturbation("shuffle", "Again")(lambda text, original, inputs: text)
    assert dict(REGISTRY) == before


@pytest.mark.parametrize("seed", [0, 3])
def test_the_registry_gives_the_texts_of_both_old_dispatches(tiny_explainer, seed: int) -> None:
    originals = tiny_explainer.explain_batch(TEXTS, attentions=True)
    for name in OLD_NAMES:
        for antonyms in (ANTONYMS, {}):
            assert perturb_texts(name, originals, seed, antonyms) == old_corpus_texts(name, originals, seed, antonyms)
        for text, original in zip(TEXTS, originals):
            inputs = PerturbationInputs(seed, 0, "The weather was cold.", ANTONYMS)
            expected = old_page_text(name, text, original, seed, "The weather was cold.", ANTONYMS)
            assert get_perturbation(name).apply(text, original, inputs) == expected


def test_the_page_reads_the_registry_and_dispatches_nothing_itself() -> None:
    tree = ast.parse(PAGE.read_text(encoding="utf-8"))
    strings = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert not strings & set(PERTURBATIONS)  # no perturbation named in the page
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "get_perturbation" in called
    assert not called & {"shuffle_words", "append_distractor", "drop_top_span", "drop_top_attention", "swap_antonyms"}
