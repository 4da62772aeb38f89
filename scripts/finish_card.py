"""Write measured figures into a shipped model's card: its baseline and the sharpness summary.

    python scripts/finish_card.py MODEL_DIR --baseline BASELINE_DIR --sharpness RUN_DIR "MEASURED_ON" \
        [--sharpness RUN_DIR "MEASURED_ON" ...] [--limitation TEXT ...] [--seeds TEXT]
    python scripts/finish_card.py MODEL_DIR --name NAME --own-model --dev-accuracy EVAL_JSON

``--name`` ships the folder under another name (its config and card). ``--own-model`` ships a student of
``selfexplain distill`` as a classifier of its own, not as a surrogate: the app then shows its decisions with
no teacher beside them; the card keeps the agreement with its teacher as a section of its own. Its dev
accuracy on gold labels, which ``distill`` does not measure, comes from ``selfexplain eval``'s output
(``--dev-accuracy``).

``BASELINE_DIR`` is a model folder whose ``selfexplain.json`` holds ``test_accuracy`` (``eval --record``);
each ``RUN_DIR`` holds a ``sharpness.csv`` of ``selfexplain sharpness``, summarised with the registry's
own aggregation (mean or median, NaNs skipped). Nothing here is typed by hand: every value is read.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import pandas as pd

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import Measure, base_model_of, read_model_card, write_model_card
from selfexplain.lab.distill.record import SURROGATE_LIMITATIONS
from selfexplain.lab.sharpness.registry import MEASURES

SHOWN = ("accuracy", "top_span_words", "nonzero_spans", "both_sides_share", "deletion_beats_random",
         "uniform_agreement", "top_out_flip", "top1_agreement", "sst_phrase_agreement")  # fmt: skip


def sharpness_measures(run: Path, measured_on: str) -> list[Measure]:
    table = pd.read_csv(run / "sharpness.csv")
    out = []
    for measure in MEASURES.values():
        if measure.key not in SHOWN or measure.key not in table or table[measure.key].notna().sum() == 0:
            continue
        column = table[measure.key]
        value = column.median() if measure.aggregate == "median" else column.mean()
        shown = f"{value:.1f}" if measure.key in ("top_span_words", "nonzero_spans") else f"{value:.3f}"
        meaning = f"{measure.better} is better" if measure.better else "descriptive"
        out.append(Measure(measure.label, shown, meaning, f"{measured_on} (n={int(column.notna().sum())})"))
    return out


def _relative(value: object) -> object:
    """A path inside this checkout as the checkout-relative path a reader can use (other values as they are)."""
    root = Path(__file__).resolve().parents[1]
    if isinstance(value, str) and Path(value).is_absolute() and Path(value).is_relative_to(root):
        return str(Path(value).relative_to(root))
    return value


def rename(folder: Path, name: str | None, own: bool, dev: Path | None) -> None:
    """The config and card under ``name``; ``own``: no surrogate metrics, teacher link or surrogate limitations
    (its agreement with the teacher stays in the card's fidelity rows); ``dev``: an eval JSON whose accuracy
    is the dev accuracy."""
    config, card = ModelConfig.load(folder), read_model_card(folder)
    if name:
        config.name = name
        card = replace(card, name=name)
    if own:
        config.metrics = {k: v for k, v in config.metrics.items() if not k.startswith("surrogate_")}
        card = replace(
            card,
            surrogate_of="",
            recipe=tuple((k, _relative(v)) for k, v in card.recipe if k != "teacher_folder"),
            limitations=tuple(line for line in card.limitations if line not in SURROGATE_LIMITATIONS),
        )
    if dev is not None:
        config.metrics["dev_accuracy"] = float(json.loads(dev.read_text(encoding="utf-8"))["accuracy"])
        card = replace(card, dev_accuracy=config.metrics["dev_accuracy"])
    config.save(folder)
    write_model_card(folder, card)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--baseline", type=Path, default=None, help="its baseline's folder (none: left as it is)")
    parser.add_argument(
        "--sharpness",
        nargs=2,
        action="append",
        default=[],
        metavar=("RUN_DIR", "MEASURED_ON"),
        help="replaces the card's sharpness table (none: left as it is)",
    )
    parser.add_argument("--limitation", action="append", default=[])
    parser.add_argument("--dataset", action="append", default=[], help="Hub id of the data set (model card metadata)")
    parser.add_argument("--data", nargs=2, action="append", default=[], metavar=("PART", "DESCRIPTION"),
                        help="a row of 'What it was trained on' (what a bare file name does not say)")  # fmt: skip
    parser.add_argument("--name", default=None, help="the name the model ships under (config and card)")
    parser.add_argument("--own-model", action="store_true", help="a distilled student as a model of its own")
    parser.add_argument("--dev-accuracy", type=Path, default=None, metavar="EVAL_JSON",
                        help="selfexplain eval's output on dev: the dev accuracy of config and card")  # fmt: skip
    args = parser.parse_args()
    rename(args.model, args.name, args.own_model, args.dev_accuracy)
    card = read_model_card(args.model)
    measures = [m for run, on in args.sharpness for m in sharpness_measures(Path(run), on)]
    if args.baseline is not None:
        baseline = json.loads((args.baseline / "selfexplain.json").read_text(encoding="utf-8"))
        same = (
            "the teacher this model was distilled from, same encoder"
            if args.own_model
            else "same encoder, data and seed"
        )
        card = replace(
            card,
            baseline=f"{baseline['name']}: linear head on mean pooling, {same} "
            "(its budget and its part in training: docs/accuracy.md)",
            baseline_accuracy=float(baseline["metrics"]["test_accuracy"]),
        )
    card = replace(
        card,
        base_model=card.base_model or base_model_of(ModelConfig.load(args.model).encoder),
        sharpness=tuple(measures) if args.sharpness else card.sharpness,  # none given: the card's stay
        limitations=tuple(dict.fromkeys((*args.limitation, *card.limitations))),
        datasets=tuple(dict.fromkeys((*card.datasets, *args.dataset))),
        data=tuple({**dict(card.data), **dict((k, v) for k, v in args.data)}.items()),
    )
    write_model_card(args.model, card)
    baseline_text = f"baseline {card.baseline_accuracy:.4f}" if card.baseline_accuracy is not None else "no baseline"
    print(f"{args.model}: {baseline_text}, {len(measures)} sharpness figures")


if __name__ == "__main__":
    main()
