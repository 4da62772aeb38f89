"""Tiny random encoders of every supported family, with tokenizers built here (no download).

BERT-like families reuse the MiniLM WordPiece vocabulary (the model does not care which tokenizer
produced its ids); decoder-only families get a byte-level BPE trained on a few hundred made-up
sentences, without a pad token, as GPT-2's and Llama's tokenizers ship.
"""

from __future__ import annotations

import random
from pathlib import Path

import torch
from tokenizers import ByteLevelBPETokenizer, processors
from transformers import (
    AutoTokenizer,
    DebertaV2Config,
    DebertaV2Model,
    GPT2Config,
    GPT2Model,
    GPT2TokenizerFast,
    LlamaConfig,
    LlamaModel,
    MPNetConfig,
    MPNetModel,
    MPNetTokenizerFast,
    PreTrainedTokenizerFast,
    RobertaConfig,
    RobertaModel,
    RobertaTokenizerFast,
)

from selfexplain.core.modeling.encoders import packaged_minilm_path

WORDS = (
    "the a film movie story cast is was good bad great dull slow fast warm cold but and not very quite ending "
    "plot acting music man woman dog runs sleeps sits park bench long short fine awful moving boring"
).split()
SIZE = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
FAMILIES = ("bert", "roberta", "mpnet", "deberta-v2", "modernbert", "gpt2", "llama")


def _corpus() -> list[str]:
    rng = random.Random(0)
    return [" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(600)]


def _byte_bpe(special: list[str]) -> ByteLevelBPETokenizer:
    tokenizer = ByteLevelBPETokenizer()
    tokenizer.train_from_iterator(_corpus(), vocab_size=420, min_frequency=1, special_tokens=special)
    return tokenizer


def build_family_encoder(family: str, directory: Path) -> Path:
    """Save a tiny random ``family`` encoder and its tokenizer in ``directory``; returns it."""
    torch.manual_seed(0)
    directory.mkdir(parents=True, exist_ok=True)
    if family in ("bert", "deberta-v2", "modernbert"):
        tokenizer = AutoTokenizer.from_pretrained(packaged_minilm_path())
        vocab = tokenizer.vocab_size
        if family == "bert":
            from transformers import BertConfig, BertModel

            model = BertModel(BertConfig(vocab_size=vocab, max_position_embeddings=128, **SIZE))
        elif family == "deberta-v2":
            model = DebertaV2Model(DebertaV2Config(vocab_size=vocab, max_position_embeddings=128, **SIZE))
        else:
            from transformers import ModernBertConfig, ModernBertModel

            config = ModernBertConfig(vocab_size=vocab, max_position_embeddings=128, pad_token_id=0,
                                      global_attn_every_n_layers=1, **SIZE)  # fmt: skip
            model = ModernBertModel(config)
    elif family == "roberta":
        bpe = _byte_bpe(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
        bpe.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True)
        bpe.save(str(directory / "tokenizer.json"))
        tokenizer = RobertaTokenizerFast(tokenizer_file=str(directory / "tokenizer.json"))
        model = RobertaModel(RobertaConfig(vocab_size=len(tokenizer), max_position_embeddings=130, pad_token_id=1,
                                           **SIZE))  # fmt: skip
    elif family == "mpnet":
        # MPNet's tokenizer is WordPiece with RoBERTa-style specials (<s> 0, <pad> 1, </s> 2) and positions that
        # start after the padding index, as all-mpnet-base-v2's
        vocab = AutoTokenizer.from_pretrained(packaged_minilm_path()).vocab
        words = ["<s>", "<pad>", "</s>", "<unk>"] + sorted(vocab, key=vocab.__getitem__) + ["<mask>"]
        tokenizer = MPNetTokenizerFast(vocab={word: i for i, word in enumerate(words)})
        model = MPNetModel(MPNetConfig(vocab_size=len(tokenizer), max_position_embeddings=130, pad_token_id=1,
                                       **SIZE), add_pooling_layer=False)  # fmt: skip
    elif family == "gpt2":
        bpe = _byte_bpe(["<|endoftext|>"])
        bpe.save(str(directory / "tokenizer.json"))
        tokenizer = GPT2TokenizerFast(tokenizer_file=str(directory / "tokenizer.json"), eos_token="<|endoftext|>",
                                      bos_token="<|endoftext|>", unk_token="<|endoftext|>")  # fmt: skip
        model = GPT2Model(GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=2, n_positions=128,
                                     bos_token_id=0, eos_token_id=0))  # fmt: skip
    elif family == "llama":
        bpe = _byte_bpe(["<s>", "</s>"])
        bpe.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", 0)]
        )
        bpe.save(str(directory / "tokenizer.json"))
        tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(directory / "tokenizer.json"), bos_token="<s>",
                                            eos_token="</s>")  # fmt: skip
        model = LlamaModel(LlamaConfig(vocab_size=len(tokenizer), max_position_embeddings=128, bos_token_id=0,
                                       eos_token_id=1, num_key_value_heads=2, **SIZE))  # fmt: skip
    else:
        raise ValueError(family)
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory
