"""The encoder runs only as far as the head reads: same output as the whole encoder, fewer layers."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import selfexplain.core.modeling.model as model_module
from selfexplain.core.modeling.checkpoint import load_model_directory, save_model
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.families import cut_encoder
from selfexplain.core.modeling.model import SelfExplainingModel
from selfexplain.core.pipeline import SelfExplainer, load_model

TEXT = "Despite a sluggish first act, the film finds its footing and the final scenes make it unforgettable."


def _uncut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_module, "cut_encoder", lambda encoder, keep: ())


def test_shipped_model_gives_the_same_output_on_the_cut_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    cut = load_model("snli-minilm")
    assert cut.model.read_layer == 3 and cut.model.num_encoder_layers == 3
    assert cut.model.dropped_layers == ("encoder.layer.3", "encoder.layer.4", "encoder.layer.5")
    assert not any(".layer.3." in key for key in cut.model.state_dict())
    with monkeypatch.context() as patch:
        _uncut(patch)
        whole = SelfExplainer(*load_model_directory(cut.directory))
    assert whole.model.num_encoder_layers == 6
    pair = "A film with a slow start." if cut.config.pair else None
    a, b = cut.explain(TEXT, pair=pair), whole.explain(TEXT, pair=pair)
    assert torch.allclose(torch.as_tensor(a.probabilities), torch.as_tensor(b.probabilities), atol=1e-6)
    assert torch.allclose(torch.as_tensor(a.alpha), torch.as_tensor(b.alpha), atol=1e-6)
    # the views get exactly the layers on the path to the decision
    assert a.attentions is not None and a.attentions.shape[0] == 3
    assert b.attentions is not None and b.attentions.shape[0] == 6
    assert torch.allclose(torch.as_tensor(a.attentions), torch.as_tensor(b.attentions[:3]), atol=1e-6)


def test_a_model_that_reads_the_top_layer_keeps_every_layer() -> None:
    explainer = load_model("sst5-minilm")  # distilled on the last hidden state: nothing to cut
    assert explainer.model.read_layer == explainer.model.num_encoder_layers == 6
    assert explainer.model.dropped_layers == ()
    explanation = explainer.explain(TEXT)
    assert explanation.attentions is not None and explanation.attentions.shape[0] == 6


def test_a_full_folder_saved_before_the_cut_still_loads(
    tiny_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], encoder_layer=1, name="t")
    with monkeypatch.context() as patch:
        _uncut(patch)
        torch.manual_seed(0)
        old = SelfExplainingModel(config)
        assert old.num_encoder_layers == 2
        tokenizer = SelfExplainer(old, __import__("transformers").AutoTokenizer.from_pretrained(tiny_encoder)).tokenizer
        save_model(old, tokenizer, tmp_path / "old")  # full layout: layer 2's weights are in the file
        before = SelfExplainer(old.eval(), tokenizer).explain("the film is good but slow")
    model, tokenizer = load_model_directory(tmp_path / "old")
    assert model.num_encoder_layers == 1
    after = SelfExplainer(model, tokenizer).explain("the film is good but slow")
    assert torch.allclose(torch.as_tensor(before.alpha), torch.as_tensor(after.alpha), atol=1e-6)
    save_model(model, tokenizer, tmp_path / "new")  # and a folder saved after the cut loads as it is
    again, _ = load_model_directory(tmp_path / "new")
    assert again.num_encoder_layers == 1


def test_negative_read_out_layers_count_from_the_uncut_top(tiny_encoder: Path) -> None:
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["a", "b"], encoder_layer=-2, name="t")
    model = SelfExplainingModel(config)
    assert model.read_layer == 1 and model.config.encoder_layer == 1 and model.num_encoder_layers == 1
    last = SelfExplainingModel(ModelConfig(encoder=str(tiny_encoder), label_names=["a", "b"], name="t"))
    assert last.read_layer == 2 and last.dropped_layers == ()


def test_cut_encoder_leaves_unknown_architectures_whole() -> None:
    class Plain(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])

    plain = Plain()
    assert cut_encoder(plain, 1) == () and len(plain.blocks) == 3


def test_an_encoder_config_far_larger_than_its_weights_is_refused_unbuilt(tiny_model_dir: Path, tmp_path: Path) -> None:
    import json
    import shutil

    from selfexplain.errors import ModelDirectoryError

    folder = tmp_path / "huge"
    shutil.copytree(tiny_model_dir, folder)
    assert (folder / "weights.safetensors").is_file()
    load_model_directory(folder)  # as saved, it loads
    config = json.loads((folder / "encoder" / "config.json").read_text())
    config.update(vocab_size=2**31 - 1, hidden_size=4096)  # ~35 GB of embeddings
    (folder / "encoder" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelDirectoryError, match="does not belong to these weights"):
        load_model_directory(folder)
