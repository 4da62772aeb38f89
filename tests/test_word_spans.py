"""Word-level spans: spans start on a word's first piece and end on a word's last piece, in single
texts, pairs and windows; piece-level models keep working."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from helpers import make_explainer

from selfexplain.core.inputs import encode
from selfexplain.core.inputs.windows import plan_windows
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.results.words import word_of_token
from selfexplain.lab.sharpness.measures import splits_word

SENTENCE = "Despite a sluggish first act, the unforgettable finale isn't mediocre."


def test_word_boundaries_follow_the_pre_tokenizer(tiny_explainer) -> None:
    batch = encode(tiny_explainer.tokenizer, [SENTENCE, "a b"])
    pieces = batch.tokens[0]
    starts = [p for p, s in zip(pieces, batch.word_start[0].tolist()) if s]
    ends = [p for p, e in zip(pieces, batch.word_end[0].tolist()) if e]
    assert "slug" in pieces and "##h" in pieces and "##gis" in pieces
    assert "slug" in starts and "##h" not in starts and "##h" in ends and "slug" not in ends
    assert "," in starts and "," in ends and "'" in starts  # punctuation is a word of its own
    assert not batch.word_start[0, 0] and not batch.word_end[0, 0]  # [CLS]
    assert int(batch.word_start[1].sum()) == 2 and not batch.word_start[1, 4:].any()  # padding


def test_word_level_model_never_splits_a_word(tiny_explainer) -> None:
    explanation = tiny_explainer.explain(SENTENCE)
    assert explanation.span_unit == "word"
    assert not any(splits_word(explanation, span) for span in explanation.spans)
    pieces = [t.piece for t in explanation.tokens]
    words = int(sum(not p.startswith("##") for p in pieces))
    assert int(explanation.span_mask.sum()) == words * (words + 1) // 2
    assert abs(float(explanation.alpha.sum()) - 1.0) < 1e-5
    groups = word_of_token(explanation)
    assert groups[pieces.index("##h")] == groups[pieces.index("slug")]
    assert explanation.to_dict()["span_unit"] == "word"


def test_piece_level_model_keeps_every_piece_span(tiny_encoder) -> None:
    explainer = make_explainer(tiny_encoder, span_unit="piece")
    explanation = explainer.explain(SENTENCE)
    count = explanation.num_tokens
    assert int(explanation.span_mask.sum()) == count * (count + 1) // 2
    assert any(splits_word(explanation, span) for span in explanation.spans)


def test_pair_spans_stay_inside_one_text_and_one_word_range(tiny_pair_explainer) -> None:
    explanation = tiny_pair_explainer.explain("A man plays a sluggish guitar.", "Someone makes music.")
    assert explanation.spans
    for span in explanation.spans:
        first, last = explanation.tokens[span.start_token], explanation.tokens[span.end_token]
        assert first.segment == last.segment
        assert not splits_word(explanation, span)


def test_windows_keep_only_word_spans(tiny_explainer) -> None:
    text = " ".join(["an unforgettable, sluggish masterpiece"] * 40)
    plan = plan_windows(tiny_explainer.tokenizer, text, 64, 32, None, "word")
    pieces = np.array(plan.pieces)
    index = plan.global_index.reshape(-1).numpy()
    first, last = index[plan.span_starts.numpy()], index[plan.span_ends.numpy()]
    continues = np.char.startswith(pieces, "##")
    assert not continues[first].any()
    assert (last == len(pieces) - 1).any() or not continues[np.minimum(last + 1, len(pieces) - 1)].all()
    ends_word = np.ones(len(pieces), dtype=bool)
    ends_word[:-1] = ~continues[1:]
    assert ends_word[last].all()
    explanation = tiny_explainer.explain(text)
    assert explanation.windows is not None
    assert not any(splits_word(explanation, span) for span in explanation.top_spans(50))


def test_folders_from_before_span_units_load_as_piece_level(tmp_path: Path) -> None:
    raw = json.loads(ModelConfig(encoder="e", label_names=["a", "b"]).to_json())
    del raw["span_unit"]
    assert ModelConfig.from_json(json.dumps(raw)).span_unit == "piece"
    assert ModelConfig(encoder="e", label_names=["a"]).span_unit == "word"
