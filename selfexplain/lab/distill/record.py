"""Writing a surrogate's fidelity where every reader finds it: ``metrics`` of its ``selfexplain.json``
(``surrogate_agreement``, ``surrogate_tvd``, ``surrogate_examples``, ``surrogate_dev_agreement``) and its
model card (``surrogate_of``, the ``fidelity`` measures, each with the inputs it was measured on)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import (
    Measure,
    ModelCard,
    card_from_config,
    has_model_card,
    read_model_card,
    write_model_card,
)
from selfexplain.lab.distill.carrier import CARRIER_PREFIX, TopSpanRepeat
from selfexplain.lab.distill.fidelity import DECISIVE_MARGIN, Fidelity
from selfexplain.lab.distill.offsets import OFFSET_KEY, applied_offsets, describe_offsets

AGREEMENT_MEANING = "share of inputs on which this model predicts its teacher's label"
TVD_MEANING = "mean total-variation distance of the two probability vectors (0 identical, 1 disjoint)"
SURROGATE_LIMITATIONS = (
    "A surrogate: its alpha explains its own decision. Where it predicts another label than the teacher, "
    "its explanation says nothing about the teacher's decision.",
    "Even where the two agree, the teacher may decide for other reasons: the spans show what suffices for "
    "the surrogate to reproduce the teacher's answer, not what the teacher read.",
)


def fidelity_measures(fidelity: Fidelity, measured_on: str) -> tuple[Measure, ...]:
    measures = (
        Measure("agreement with the teacher", f"{fidelity.agreement:.1%}", AGREEMENT_MEANING, measured_on),
        Measure("mean TVD to the teacher", f"{fidelity.tvd:.3f}", TVD_MEANING, measured_on),
    )
    if fidelity.decisive_agreement is None:
        return measures
    decisive = Measure(
        "agreement where the teacher is decisive",
        f"{fidelity.decisive_agreement:.1%}",
        f"on the {fidelity.decisive_share:.0%} of inputs whose two most probable labels (teacher) are "
        f"{DECISIVE_MARGIN:g} or more apart",
        measured_on,
    )
    return (*measures, decisive)


def _merged(old: tuple[Measure, ...], new: tuple[Measure, ...]) -> tuple[Measure, ...]:
    """``old`` with the rows measured on the same inputs as ``new`` replaced, ``new`` appended."""
    keys = {(m.name, m.measured_on) for m in new}
    return tuple(m for m in old if (m.name, m.measured_on) not in keys) + new


def _card(folder: Path, config: ModelConfig) -> ModelCard:
    return read_model_card(folder) if has_model_card(folder) else card_from_config(config)


def record_distillation(
    folder: Path,
    teacher_name: str,
    holdout: Fidelity,
    dev: Fidelity,
    data: tuple[tuple[str, str], ...],
    command: str,
    teacher_folder: str = "",
    alpha: TopSpanRepeat | None = None,
) -> ModelConfig:
    """After ``selfexplain distill``: the student's config metrics and card say whose surrogate it is and
    how faithful it is on the held-out split. The dev split's agreement (what chose the checkpoint) is
    kept apart: ``train`` stored it as ``dev_accuracy``, which here would read as accuracy on gold labels.
    ``alpha``: the held-out top-span check (``surrogate_top_span_share``, ``surrogate_closing_share``; a
    carrier adds a limitation)."""
    config = ModelConfig.load(folder)
    metrics = {k: v for k, v in config.metrics.items() if k != "dev_accuracy"}
    metrics.update(
        surrogate_agreement=holdout.agreement,
        surrogate_tvd=holdout.tvd,
        surrogate_examples=float(holdout.examples),
        surrogate_dev_agreement=dev.agreement,
    )
    metrics.pop("surrogate_top_span_share", None)
    metrics.pop("surrogate_closing_share", None)
    if alpha is not None and not math.isnan(alpha.share):
        metrics["surrogate_top_span_share"] = alpha.share
    if alpha is not None and not math.isnan(alpha.closing):
        metrics["surrogate_closing_share"] = alpha.closing
    config.metrics = metrics
    config.save(folder)
    card = _card(folder, config)
    measured = fidelity_measures(holdout, f"{holdout.examples:,} held-out inputs, never trained on")
    offsets = applied_offsets(config) if OFFSET_KEY.format(0) in config.metrics else None
    use = "chose the checkpoint" + (" and fitted the label offsets" if offsets is not None else "")
    chosen = Measure(
        "agreement with the teacher (dev split)", f"{dev.agreement:.1%}",
        f"{use}, so slightly optimistic", f"{dev.examples:,} dev inputs",
    )  # fmt: skip
    carrier = alpha.limitation() if alpha is not None else None
    old = tuple(line for line in card.limitations if not line.startswith(CARRIER_PREFIX))  # a rerun measures anew
    limitations = tuple(dict.fromkeys((*SURROGATE_LIMITATIONS, *((carrier,) if carrier else ()), *old)))
    recipe = tuple((k, v) for k, v in card.recipe if k not in ("teacher_folder", "label_offsets"))
    recipe += (("teacher_folder", teacher_folder),) if teacher_folder else ()  # where the app finds the teacher
    if offsets is not None:
        recipe += (("label_offsets", describe_offsets(offsets, config.label_names)),)
    card = replace(
        card,
        dev_accuracy=None,
        surrogate_of=teacher_name,
        fidelity=_merged(card.fidelity, (*measured, chosen)),
        data=data,
        recipe=recipe,
        limitations=limitations,
        sources=tuple(dict.fromkeys((command, *card.sources))),
    )
    write_model_card(folder, card)
    return config


def record_fidelity(folder: Path, teacher_name: str, fidelity: Fidelity, data: str, command: str) -> None:
    """After ``selfexplain fidelity --record``: the card gains the agreement and TVD measured on ``data``
    (rows measured on the same data are replaced); the config's ``metrics`` keep the held-out figures."""
    config = ModelConfig.load(folder)
    card = _card(folder, config)
    measured = fidelity_measures(fidelity, f"{data} ({fidelity.examples:,} inputs)")
    card = replace(
        card,
        surrogate_of=card.surrogate_of or teacher_name,
        fidelity=_merged(card.fidelity, measured),
        sources=tuple(dict.fromkeys((*card.sources, command))),
    )
    write_model_card(folder, card)
