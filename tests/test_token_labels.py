"""selfexplain token-labels (lab/measures): the share of a mean-pooling model's tokens whose logits give its label."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import make_explainer

from selfexplain.cli import main
from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.errors import InvalidInputError
from selfexplain.lab.measures.token_labels import token_agreement

TEXTS = ["the acting was wooden and it dragged", "a fine film", "not bad at all , in fact rather good !"]


def test_each_text_counts_the_tokens_that_give_the_label_alone(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=6, head="mean")
    shares, decisive = token_agreement(explainer, TEXTS)
    model = explainer.model
    for text, share, sure in zip(TEXTS, shares, decisive):  # one text at a time, token by token
        batch = explainer.encode([text])
        out = explainer.run(batch, hidden_states=True)
        label = int(out.logits.argmax())
        hidden = out.hidden_states[-1][0]
        real = [i for i in range(hidden.shape[0]) if batch.token_mask[0, i]]
        with torch.no_grad():
            own = [int(model.output(hidden[i]).argmax()) for i in real]
        assert share == pytest.approx(np.mean([o == label for o in own]))
        top = out.logits.softmax(-1)[0].sort(descending=True).values
        assert sure == bool(top[0] - top[1] >= 0.2)


def test_a_head_that_ignores_the_tokens_gives_every_token_the_label(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=6, head="mean")
    with torch.no_grad():
        explainer.model.output.weight.zero_()
        explainer.model.output.bias.copy_(torch.tensor([0.0, 3.0] + [0.0] * (explainer.model.output.bias.numel() - 2)))
    shares, decisive = token_agreement(explainer, TEXTS)
    assert shares.tolist() == [1.0, 1.0, 1.0] and decisive.all()


def test_a_span_model_is_refused(tiny_explainer) -> None:
    with pytest.raises(InvalidInputError, match="not a mean-pooling model"):
        token_agreement(tiny_explainer, TEXTS)


def test_the_command_reads_a_plain_text_file(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    explainer = make_explainer(tiny_encoder, seed=6, head="mean")
    save_model(explainer.model, explainer.tokenizer, tmp_path / "mean")
    (tmp_path / "texts.txt").write_text("\n".join(TEXTS) + "\n")
    assert main(["token-labels", "--model", str(tmp_path / "mean"), "--data", str(tmp_path / "texts.txt")]) == 0
    shares, _ = token_agreement(explainer, TEXTS)
    printed = capsys.readouterr().out
    assert f"3 texts of {tmp_path / 'texts.txt'}" in printed
    assert f"mean {shares.mean():.1%}, median {np.median(shares):.1%}" in printed
