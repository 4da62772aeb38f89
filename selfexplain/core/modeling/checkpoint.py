"""Saving and loading model directories: JSON config, safetensors weights, tokenizer.

Two weight layouts:
- full: ``weights.safetensors`` holds every parameter, ``encoder/config.json``
  rebuilds the encoder without any download;
- compact (for shipped models): ``head.safetensors`` plus
  ``encoder_delta.safetensors``, the difference from the pretrained encoder named
  in the config, matrices stored as int8 with one scale per row. A shipped model
  is then a few MB instead of the encoder's 90 MB.

Beside them, as in the Hugging Face layout, ``config.json`` holds the label maps and names the
library (metadata only: loading reads ``selfexplain.json``, and folders without it load as before),
and ``train`` adds a model card, ``README.md`` (:mod:`selfexplain.core.modeling.model_card`).

Writes are atomic: a directory is built beside its target and renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file
from transformers import AutoConfig, AutoModel, PreTrainedModel, PreTrainedTokenizerBase

from selfexplain.core.modeling.config import CONFIG_FILE, ModelConfig
from selfexplain.core.modeling.encoders import load_encoder, load_tokenizer
from selfexplain.core.modeling.model import SelfExplainingModel
from selfexplain.errors import EncoderNotInstalledError, ModelDirectoryError, UnsafeWeightsError

FULL_WEIGHTS = "weights.safetensors"
HEAD_WEIGHTS = "head.safetensors"
DELTA_WEIGHTS = "encoder_delta.safetensors"
ENCODER_CONFIG_DIR = "encoder"
HUB_CONFIG = "config.json"
# Delta matrices at least this large are stored as int8 rows; smaller tensors as float32.
QUANTISE_MIN_ELEMENTS = 4096


def _umask() -> int:
    current = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(current)
    return current


@contextmanager
def atomic_directory(target: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder that replaces ``target`` only if the block succeeds."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield staging
        retired = target.with_name(f".{target.name}.old")
        if retired.exists():
            shutil.rmtree(retired)
        if target.exists():
            os.replace(target, retired)
        staging.chmod(0o777 & ~_umask())  # mkdtemp makes 0700; a saved model follows the umask like any folder
        os.replace(staging, target)
        shutil.rmtree(retired, ignore_errors=True)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _quantise_rows(delta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``[R, C]`` float -> int8 ``[R, C]`` and per-row scale ``[R]`` (symmetric)."""
    scale = delta.abs().amax(dim=1).clamp_min(1e-12) / 127.0
    return torch.round(delta / scale.unsqueeze(1)).to(torch.int8), scale.float()


def _encoder_delta(model: SelfExplainingModel) -> dict[str, torch.Tensor]:
    base = load_encoder(model.config.encoder).state_dict()
    tensors: dict[str, torch.Tensor] = {}
    for name, value in model.encoder.state_dict().items():
        reference = base.get(name)
        if reference is None or reference.shape != value.shape:
            raise ModelDirectoryError(f"encoder tensor {name} does not match {model.config.encoder}")
        if not value.is_floating_point():
            continue
        delta = (value.float() - reference.float()).cpu()
        if not torch.any(delta):
            continue
        if delta.dim() == 2 and delta.numel() >= QUANTISE_MIN_ELEMENTS:
            tensors[f"{name}.q"], tensors[f"{name}.scale"] = _quantise_rows(delta)
        else:
            tensors[f"{name}.delta"] = delta.contiguous()
    return tensors


def hub_config(config: ModelConfig) -> dict[str, object]:
    """The metadata-only ``config.json`` of the Hugging Face layout. It has no ``model_type``: transformers
    reads this file when it loads the folder's tokenizer and would warn about an unknown model type."""
    return {
        "library_name": "selfexplain",
        "architectures": ["SelfExplainingModel"],
        "selfexplain_config": CONFIG_FILE,
        "encoder": config.encoder,
        "pair": config.pair,
        "problem_type": "single_label_classification",
        "num_labels": config.num_labels,
        "id2label": {str(i): name for i, name in enumerate(config.label_names)},
        "label2id": {name: i for i, name in enumerate(config.label_names)},
    }


def save_model(
    model: SelfExplainingModel,
    tokenizer: PreTrainedTokenizerBase,
    directory: Path,
    compact: bool = False,
) -> None:
    """Write ``model`` and ``tokenizer`` to ``directory`` (atomically)."""
    with atomic_directory(Path(directory)) as staging:
        model.config.save(staging)
        (staging / HUB_CONFIG).write_text(json.dumps(hub_config(model.config), indent=2) + "\n", encoding="utf-8")
        tokenizer.save_pretrained(staging)
        state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
        if compact:
            head = {k: v.half() for k, v in state.items() if not k.startswith("encoder.")}
            save_file(head, str(staging / HEAD_WEIGHTS), metadata={"format": "selfexplain-head"})
            save_file(_encoder_delta(model), str(staging / DELTA_WEIGHTS), metadata={"base": model.config.encoder})
        else:
            model.encoder.config.save_pretrained(staging / ENCODER_CONFIG_DIR)
            save_file(state, str(staging / FULL_WEIGHTS), metadata={"format": "selfexplain-full"})


def shift_output_bias(directory: Path, delta: torch.Tensor) -> None:
    """Add ``delta`` ``[C]`` to the output layer's bias in a folder written by :func:`save_model` (the head
    file of a compact folder, else the full weights; rewritten atomically, metadata kept)."""
    directory = Path(directory)
    path = directory / (HEAD_WEIGHTS if (directory / HEAD_WEIGHTS).is_file() else FULL_WEIGHTS)
    with safe_open(str(path), "pt") as handle:
        metadata = handle.metadata()
    tensors = load_file(str(path))
    bias = tensors["output.bias"]
    if tuple(delta.shape) != tuple(bias.shape):
        raise ValueError(f"an output bias of shape {tuple(bias.shape)} cannot take a shift of {tuple(delta.shape)}")
    tensors["output.bias"] = (bias.double() + delta.double()).to(bias.dtype)
    staging = path.with_name(f".{path.name}.tmp")
    save_file(tensors, str(staging), metadata=metadata)
    staging.replace(path)


def _above_cut(model: SelfExplainingModel, name: str) -> bool:
    """Whether encoder tensor ``name`` (relative to the encoder) belongs to a layer the model does not run
    (a folder saved before the encoder was cut at the layer its head reads still holds them)."""
    return any(name.startswith(f"{layer}.") for layer in model.dropped_layers)


def _apply_delta(model: SelfExplainingModel, tensors: dict[str, torch.Tensor]) -> None:
    state = model.encoder.state_dict()
    names = {key.rsplit(".", 1)[0] for key in tensors}
    names = {name for name in names if not _above_cut(model, name)}
    with torch.no_grad():
        for name in names:
            if name not in state:
                raise ModelDirectoryError(f"delta names an unknown encoder tensor {name}")
            if f"{name}.q" in tensors:
                delta = tensors[f"{name}.q"].float() * tensors[f"{name}.scale"].unsqueeze(1)
            else:
                delta = tensors[f"{name}.delta"]
            state[name].add_(delta.to(state[name].dtype))


def load_model_directory(directory: Path) -> tuple[SelfExplainingModel, PreTrainedTokenizerBase]:
    """Load a model folder written by :func:`save_model` (eval mode, CPU).

    Every way a folder can be broken (missing, empty, pickle-only, corrupted safetensors,
    a config that disagrees with the weights) raises :class:`ModelDirectoryError` or
    :class:`UnsafeWeightsError` with a one-line reason.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ModelDirectoryError(f"{directory} is not a folder")
    try:
        return _load(directory)
    except (SafetensorError, RuntimeError, OSError, ValueError, KeyError) as err:
        if isinstance(err, (ModelDirectoryError, UnsafeWeightsError, EncoderNotInstalledError)):
            raise  # already one line that says what to do
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ModelDirectoryError(f"{directory} cannot be loaded: {reason[:300]}") from err


def _load(directory: Path) -> tuple[SelfExplainingModel, PreTrainedTokenizerBase]:
    if not (directory / CONFIG_FILE).is_file():
        pickles = sorted(p.name for p in directory.glob("*.bin")) + sorted(p.name for p in directory.glob("*.pt"))
        if pickles:
            raise UnsafeWeightsError(
                f"{directory} holds pickle weights ({', '.join(pickles)}) and no {CONFIG_FILE}; "
                "selfexplain loads only its own safetensors model folders"
            )
        raise ModelDirectoryError(f"{directory} is not a selfexplain model folder (no {CONFIG_FILE})")
    try:
        config = ModelConfig.load(directory)
    except (ValueError, TypeError) as err:
        raise ModelDirectoryError(f"{directory / CONFIG_FILE} is invalid: {err}") from err
    _check_plain_files(directory)
    tokenizer = load_tokenizer(str(directory))
    if (directory / FULL_WEIGHTS).is_file():
        encoder_config = AutoConfig.from_pretrained(directory / ENCODER_CONFIG_DIR, trust_remote_code=False)
        _check_encoder_size(directory, encoder_config, (directory / FULL_WEIGHTS).stat().st_size)
        encoder = AutoModel.from_config(encoder_config, attn_implementation="eager")
        model = _build(directory, config, encoder)
        state = load_file(str(directory / FULL_WEIGHTS))
        state = {k: v for k, v in state.items() if not (k.startswith("encoder.") and _above_cut(model, k[8:]))}
        _load_strict(model, state, directory / FULL_WEIGHTS, partial=False)
    elif (directory / HEAD_WEIGHTS).is_file() and (directory / DELTA_WEIGHTS).is_file():
        model = _build(directory, config)
        head = {k: v.float() for k, v in load_file(str(directory / HEAD_WEIGHTS)).items()}
        _load_strict(model, head, directory / HEAD_WEIGHTS, partial=True)
        _apply_delta(model, load_file(str(directory / DELTA_WEIGHTS)))
    else:
        raise ModelDirectoryError(f"{directory} has no {FULL_WEIGHTS} nor {HEAD_WEIGHTS} + {DELTA_WEIGHTS}")
    model.eval()
    _check_vocabulary(directory, tokenizer, model)
    return model, tokenizer


def _build(directory: Path, config: ModelConfig, encoder: PreTrainedModel | None = None) -> SelfExplainingModel:
    """The model of ``config``; a config that does not fit its encoder (``encoder_layer`` out of range)
    is a broken folder, reported as such."""
    try:
        return SelfExplainingModel(config, encoder=encoder)
    except ValueError as err:
        raise ModelDirectoryError(f"{directory / CONFIG_FILE} is invalid: {err}") from err


# A model's weights file holds every parameter, so a config that builds far more than the file could hold
# is not this folder's encoder; it is refused before anything is allocated (an edited config could ask for
# many GB). The margin allows float16 files and an encoder config that also counts a pooler.
SIZE_MARGIN = 4


def encoder_parameters(config: object) -> int:
    """About how many parameters an encoder config builds: embeddings and positions plus its layers
    (~12 H^2 each), from ``vocab_size``, ``hidden_size``, ``num_hidden_layers``, ``intermediate_size``."""

    def field(*names: str) -> int:
        for name in names:
            value = getattr(config, name, None)
            if isinstance(value, int) and value > 0:
                return value
        return 0

    hidden = field("hidden_size", "n_embd", "d_model")
    layers = field("num_hidden_layers", "n_layer")
    inner = field("intermediate_size", "n_inner") or 4 * hidden
    tables = field("vocab_size") + field("max_position_embeddings", "n_positions")
    return hidden * tables + layers * (4 * hidden * hidden + 2 * hidden * inner)


def _check_encoder_size(directory: Path, config: object, weights_bytes: int) -> None:
    wanted = encoder_parameters(config)
    if wanted * 2 > SIZE_MARGIN * max(weights_bytes, 1):  # at least 2 bytes a parameter in any real file
        raise ModelDirectoryError(
            f"{directory} cannot be loaded: its encoder config describes about {wanted:,} parameters, far more "
            f"than its {weights_bytes:,}-byte weights file holds; the config does not belong to these weights"
        )


def _check_plain_files(directory: Path) -> None:
    """Every file the loader reads must be a regular file: a FIFO would block forever, a device
    (``/dev/zero``) would be read without end."""
    if not any((directory / name).exists() for name in ("tokenizer.json", "vocab.txt", "vocab.json")):
        raise ModelDirectoryError(f"{directory} has no tokenizer (tokenizer.json or vocab.txt)")
    for path in directory.iterdir():
        if path.name.startswith("."):
            continue
        if not (path.is_dir() or path.is_file()):  # follows links: a link to a device is refused too
            raise ModelDirectoryError(f"{path} is not a regular file")
    _check_sizes(directory)


# Parsing amplifies: a tokenizer file costs ~6x its size in memory, a safetensors header ~25x. Real ones
# are far below these caps (MiniLM's tokenizer.json is 0.7 MB, its header a few KB).
MAX_TOKENIZER_BYTES = 64 * 2**20
MAX_HEADER_BYTES = 8 * 2**20


def _check_sizes(directory: Path) -> None:
    """Refuse a tokenizer file or a safetensors header too large to be real before parsing it."""
    for name in ("tokenizer.json", "vocab.txt", "vocab.json", "merges.txt", "tokenizer_config.json"):
        path = directory / name
        if path.is_file() and path.stat().st_size > MAX_TOKENIZER_BYTES:
            raise ModelDirectoryError(
                f"{path} is {path.stat().st_size / 2**20:,.0f} MB, over the {MAX_TOKENIZER_BYTES // 2**20} MB a "
                "tokenizer file may have"
            )
    for path in directory.rglob("*.safetensors"):
        with path.open("rb") as handle:
            prefix = handle.read(8)
        if len(prefix) == 8 and int.from_bytes(prefix, "little") > MAX_HEADER_BYTES:
            raise ModelDirectoryError(
                f"{path} declares a {int.from_bytes(prefix, 'little') / 2**20:,.0f} MB header, over the "
                f"{MAX_HEADER_BYTES // 2**20} MB a model's tensor index needs"
            )


def _check_vocabulary(directory: Path, tokenizer: PreTrainedTokenizerBase, model: SelfExplainingModel) -> None:
    """The tokenizer must fit the encoder: ids past the embedding table crash, and a tokenizer far
    smaller than it (a broken or stub tokenizer.json) reads every word as [UNK] and predicts garbage."""
    rows = int(model.encoder.get_input_embeddings().weight.shape[0])
    size = len(tokenizer)
    if size > rows or size < rows // 2:
        raise ModelDirectoryError(
            f"{directory}: the tokenizer has {size:,} tokens but the encoder's embedding table has {rows:,}; "
            "tokenizer.json does not belong to this model"
        )


def _load_strict(model: SelfExplainingModel, state: dict[str, torch.Tensor], source: Path, partial: bool) -> None:
    expected = model.state_dict()
    for name, value in state.items():
        if name in expected and expected[name].shape != value.shape:
            hint = ""
            if name.startswith("output."):
                hint = f" (the config names {model.config.num_labels} labels, the head has {value.shape[0]})"
            raise ModelDirectoryError(
                f"{source}: {name} has shape {tuple(value.shape)} but the config builds {tuple(expected[name].shape)}"
                + hint
            )
    result = model.load_state_dict(state, strict=False)
    missing = [k for k in result.missing_keys if not (partial and k.startswith("encoder."))]
    if missing or result.unexpected_keys:
        raise ModelDirectoryError(
            f"{source} does not match the model: missing {missing[:5]}, unexpected {result.unexpected_keys[:5]}"
        )
