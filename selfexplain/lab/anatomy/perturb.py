"""Text perturbations (Si et al., 2019), each reproducible by seed, and the registry that names them.

Words are whitespace-delimited. Every function takes the text and returns the
perturbed text; random ones take a ``numpy.random.Generator`` (use
:func:`example_rng` to give example ``i`` its own stream for a seed).

:data:`REGISTRY` (a :class:`~selfexplain.support.registry.Registry`) holds the named perturbations the CLI,
the corpus study (:mod:`selfexplain.lab.anatomy.robustness`) and the Adversarial page offer, each registered by
the :func:`perturbation` decorator with its title; :data:`PERTURBATIONS` (names, in registration order) and
:data:`PERTURBATION_TITLES` are read from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import word_of_token
from selfexplain.data import Example
from selfexplain.support.registry import Registry


def example_rng(seed: int, index: int) -> np.random.Generator:
    """The random stream of example ``index`` under ``seed`` (independent of the other examples)."""
    return np.random.default_rng([seed, index])


def shuffle_words(text: str, rng: np.random.Generator) -> str:
    """The words in a random order."""
    words = text.split()
    return " ".join(words[i] for i in rng.permutation(len(words)))


def shuffled_examples(examples: Sequence[Example], seed: int) -> list[Example]:
    """Every example with the words of its text (and pair) shuffled, reproducibly per seed and position
    (Si et al. 2019: a model trained on such text tests how much it needs word order)."""
    shuffled = []
    for index, example in enumerate(examples):
        rng = example_rng(seed, index)
        pair = shuffle_words(example.pair, rng) if example.pair else example.pair
        shuffled.append(replace(example, text=shuffle_words(example.text, rng), pair=pair))
    return shuffled


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two word sequences; each DP row is one vector step
    (insertions via ``new[j] = j + cummin(cand[k] - k)``)."""
    if not a or not b:
        return max(len(a), len(b))
    b_arr = np.array(b, dtype=object)
    previous = np.arange(len(b) + 1)
    steps = np.arange(len(b) + 1)
    for i, word in enumerate(a, start=1):
        cost = (b_arr != word).astype(int)
        candidate = np.empty(len(b) + 1, dtype=int)
        candidate[0] = i
        candidate[1:] = np.minimum(previous[1:] + 1, previous[:-1] + cost)
        previous = steps + np.minimum.accumulate(candidate - steps)
    return int(previous[-1])


def shuffle_degree(original: str, perturbed: str) -> float:
    """Word edit distance divided by the original's number of words (0 = unchanged)."""
    words = original.split()
    return edit_distance(words, perturbed.split()) / max(len(words), 1)


def append_distractor(text: str, other: str, rng: np.random.Generator) -> str:
    """``text`` followed by the words of ``other`` in a random order."""
    return f"{text.rstrip()} {shuffle_words(other, rng)}"


def delete_chars(text: str, start: int, end: int) -> str:
    """``text`` without ``text[start:end]``, with the whitespace around the cut collapsed."""
    return " ".join((text[:start] + " " + text[end:]).split())


def drop_top_span(explanation: Explanation) -> str:
    """The text without its highest-alpha span (the first text's span only for pairs)."""
    top = explanation.top_spans(1)[0]
    if top.segment != 0:
        return explanation.text
    return delete_chars(explanation.text, top.start_char, top.end_char)


def top_attention_token(explanation: Explanation) -> int:
    """Index of the real token the [CLS] row of the last layer (mean over heads) attends to most."""
    if explanation.attentions is None or explanation.token_positions is None:
        raise ValueError("the explanation has no attention maps; explain with attentions=True")
    row = explanation.attentions[-1].mean(axis=0)[0, explanation.token_positions]
    if explanation.pair is not None:
        row = np.where([t.segment == 0 for t in explanation.tokens], row, -np.inf)
    return int(np.argmax(row))


def drop_top_attention(explanation: Explanation) -> str:
    """The text without the word holding the token that [CLS] attends to most in the last layer."""
    index = top_attention_token(explanation)
    words = word_of_token(explanation)
    members = np.nonzero(words == words[index])[0]
    first, last = explanation.tokens[members[0]], explanation.tokens[members[-1]]
    return delete_chars(explanation.text, first.start, last.end)


def parse_antonyms(text: str) -> dict[str, str]:
    """``good:bad, fun:dull`` or one ``word:antonym`` a line -> a symmetric lower-case mapping."""
    mapping: dict[str, str] = {}
    for item in text.replace("\n", ",").split(","):
        if not item.strip():
            continue
        left, sep, right = item.partition(":")
        if not sep or not left.strip() or not right.strip():
            raise ValueError(f"antonym pair {item.strip()!r} is not 'word:antonym'")
        a, b = left.strip().lower(), right.strip().lower()
        mapping[a], mapping[b] = b, a
    return mapping


def swap_antonyms(text: str, antonyms: Mapping[str, str]) -> str:
    """Every word found in ``antonyms`` (case-insensitive, surrounding punctuation kept) swapped."""
    out = []
    for word in text.split():
        core = word.strip(".,;:!?\"'()")
        lead = word[: word.find(core)] if core else ""
        swapped = antonyms.get(core.lower())
        if swapped is None:
            out.append(word)
            continue
        if core[:1].isupper():
            swapped = swapped[:1].upper() + swapped[1:]
        out.append(lead + swapped + word[len(lead) + len(core) :])
    return " ".join(out)


@dataclass(frozen=True)
class PerturbationInputs:
    """What a named perturbation may use besides the text and its explanation: ``seed`` and ``index``
    (the example's random stream, :func:`example_rng`), ``distractor`` (the text the distractor appends:
    another example of the corpus, or the sentence typed on the page) and ``antonyms`` (word -> antonym)."""

    seed: int = 0
    index: int = 0
    distractor: str = ""
    antonyms: Mapping[str, str] = field(default_factory=dict)


Apply = Callable[[str, Explanation, PerturbationInputs], str]


@dataclass(frozen=True)
class Perturbation:
    """A named perturbation: ``apply(text, original, inputs)`` -> the perturbed text, where ``original``
    is the explanation of ``text``; ``needs_antonyms``: it changes nothing without an antonym mapping."""

    name: str
    title: str
    apply: Apply
    needs_antonyms: bool = False


REGISTRY: Registry[Perturbation] = Registry("perturbation")


def perturbation(name: str, title: str, needs_antonyms: bool = False) -> Callable[[Apply], Apply]:
    """Decorator: register the function as the perturbation ``name`` shown as ``title`` (a name taken by
    another perturbation is a ``ValueError``)."""

    def register(apply: Apply) -> Apply:
        REGISTRY.register(name, Perturbation(name, title, apply, needs_antonyms))
        return apply

    return register


def get_perturbation(name: str) -> Perturbation:
    """The registered perturbation ``name``; an unknown name is a ``ValueError`` listing the known ones."""
    return REGISTRY.get(name)


@perturbation("shuffle", "Words shuffled")
def _shuffle(text: str, original: Explanation, inputs: PerturbationInputs) -> str:
    return shuffle_words(text, example_rng(inputs.seed, inputs.index))


@perturbation("distractor", "Distractor sentence added")
def _distractor(text: str, original: Explanation, inputs: PerturbationInputs) -> str:
    return append_distractor(text, inputs.distractor, example_rng(inputs.seed, inputs.index))


@perturbation("drop_top_span", "Top alpha span removed")
def _drop_top_span(text: str, original: Explanation, inputs: PerturbationInputs) -> str:
    return drop_top_span(original)


@perturbation("drop_top_attention", "Most-attended word removed")
def _drop_top_attention(text: str, original: Explanation, inputs: PerturbationInputs) -> str:
    return drop_top_attention(original)


@perturbation("antonyms", "Words swapped for antonyms", needs_antonyms=True)
def _antonyms(text: str, original: Explanation, inputs: PerturbationInputs) -> str:
    return swap_antonyms(text, inputs.antonyms)


PERTURBATIONS: tuple[str, ...] = tuple(REGISTRY)
PERTURBATION_TITLES: dict[str, str] = {name: spec.title for name, spec in REGISTRY.items()}
