"""The input layer (selfexplain.core.inputs): one tokenisation per text, the tokenizer's own padding and
truncation reproduced from it, short batches and window plans from one call, and the position map
and dense alpha built in one place."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer

from selfexplain.batch.reader import Row
from selfexplain.batch.runner import BatchOptions, explain_window
from selfexplain.core.inputs import dense_alpha, encode, longest_first, plan_inputs, span_tokens, token_index, tokenise
from selfexplain.errors import InputTooLongError

WORDS = "the a film movie story cast is was good bad great dull slow unbelievably overwrought , !".split()


@pytest.fixture(scope="module")
def tokenizer(tiny_encoder):
    return AutoTokenizer.from_pretrained(tiny_encoder)


def random_text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def test_longest_first_is_the_tokenizers_rule(tokenizer) -> None:
    rng = random.Random(0)
    for _ in range(300):
        text, pair, limit = random_text(rng, 1, 40), random_text(rng, 1, 40), rng.randint(6, 90)
        cut = tokenizer(text, pair, truncation="longest_first", max_length=limit).sequence_ids()
        n1, n2 = (len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in (text, pair))
        assert longest_first(n1, n2, limit - 3) == (cut.count(0), cut.count(1)), (n1, n2, limit)


@pytest.mark.parametrize("pairs", [False, True])
def test_encode_pads_and_cuts_as_the_tokenizer_does(tokenizer, pairs: bool) -> None:
    rng = random.Random(1)
    texts = [random_text(rng, 1, 50) for _ in range(6)]
    seconds = [random_text(rng, 1, 50) for _ in range(6)] if pairs else None
    batch = encode(tokenizer, texts, seconds, max_length=40)
    reference = tokenizer(texts, seconds, padding=True, truncation="longest_first", max_length=40, return_tensors="pt")
    assert torch.equal(batch.input_ids, reference["input_ids"])
    assert torch.equal(batch.attention_mask, reference["attention_mask"])
    assert torch.equal(batch.token_type_ids, reference["token_type_ids"])
    assert batch.sequence_ids == [reference.sequence_ids(i) for i in range(len(texts))]
    with pytest.raises(InputTooLongError, match="tokens long"):
        encode(tokenizer, texts, seconds, max_length=40, truncate=False)


def test_one_call_plans_short_batches_and_windows(tokenizer) -> None:
    long = " ".join(["the film is good but slow"] * 30)
    texts = ["good film", long, "a dull, lifeless film"]
    plan = plan_inputs(tokenizer, texts, window=64, long="windows")
    assert [indices for indices, _ in plan.batches] == [[0, 2]] and list(plan.windows) == [1]
    _, batch = plan.batches[0]
    assert torch.equal(batch.input_ids, encode(tokenizer, [texts[0], texts[2]], max_length=64).input_ids)
    windows = plan.windows[1]
    assert windows.tokens.ids == tokenise(tokenizer, long).ids and windows.input_ids.shape[1] == 64
    cut = plan_inputs(tokenizer, texts, window=6, long="truncate", batch_size=2)
    assert cut.truncated == {1, 2} and not cut.windows
    assert sorted(i for indices, _ in cut.batches for i in indices) == [0, 1, 2]
    text, _ = cut.text_of(1)
    assert long.startswith(text) and len(tokenizer(text)["input_ids"]) == 6
    assert cut.text_of(0) == ("good film", None)
    with pytest.raises(InputTooLongError):
        plan_inputs(tokenizer, texts, window=64, long="refuse")


def test_every_input_is_tokenised_once(tiny_explainer, monkeypatch: pytest.MonkeyPatch) -> None:
    """explain_batch (a short text, a long one in windows) and a batch window (a fitting row and one
    cut to fit) hand each text to the tokenizer once."""
    seen: list[str] = []
    tokenizer = tiny_explainer.tokenizer
    original = type(tokenizer).__call__

    def counting(self, text, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        seen.extend([text] if isinstance(text, str) else list(text))
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(type(tokenizer), "__call__", counting)
    long = " ".join(["the film is good but slow and the ending is dull"] * 30)
    explanations = tiny_explainer.explain_batch(["good film", long])
    assert explanations[1].windows is not None
    assert seen.count("good film") == 1 and seen.count(long) == 1
    seen.clear()
    rows = [Row(index=0, line=1, text="a dull film"), Row(index=1, line=2, text=long)]
    records = explain_window(tiny_explainer, rows, BatchOptions(batch_size=4))
    assert [r["truncated"] for r in records] == [False, True]
    assert seen.count("a dull film") == 1 and seen.count(long) == 1


def test_position_map_and_dense_alpha() -> None:
    mask = np.array([False, True, True, False, True, False])  # [CLS] a b [SEP] c [PAD]
    index = token_index(mask)
    assert index.tolist() == [-1, 0, 1, -1, 2, -1]
    slots_start, slots_end = np.array([1, 1, 2, 4, 0]), np.array([1, 4, 2, 4, 0])
    valid = np.array([True, True, True, True, False])
    starts, ends = span_tokens(index, slots_start, slots_end, valid)
    assert starts.tolist() == [0, 0, 1, 2] and ends.tolist() == [0, 2, 1, 2]
    alpha, span_mask = dense_alpha(3, starts, ends, np.array([0.1, 0.2, 0.3, 0.4]))
    assert alpha.dtype == np.float64 and alpha[0, 2] == 0.2 and alpha.sum() == pytest.approx(1.0)
    assert span_mask.sum() == 4 and not span_mask[2, 0]
