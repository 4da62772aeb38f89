"""``selfexplain anatomy | probe | perturb``: corpus runs that write numbers and figures to a folder.

Registered by :func:`add_command` (discovered by ``selfexplain/cli.py``); heavy imports stay in the handlers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from selfexplain.cli_support import LABELLED_DATA_HELP, add_data_columns, note_figures, read_model_examples
from selfexplain.errors import InvalidInputError


class AnatomyInputError(InvalidInputError):
    """A bad option value for an anatomy command."""


def _common(parser: argparse.ArgumentParser, limit: int) -> None:
    parser.add_argument("--model", default=None, help="shipped model name or model folder (default sst5-minilm)")
    parser.add_argument("--data", required=True, help=f"data file: {LABELLED_DATA_HELP}")
    parser.add_argument("--out", required=True, type=Path, help="output folder (numbers, HTML and PNG figures)")
    parser.add_argument(
        "--limit", type=int, default=limit, help=f"random sample of at most this many examples ({limit})"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=16)
    add_data_columns(parser)
    parser.add_argument("--no-progress", action="store_true")


def add_command(subparsers: Any) -> None:
    anatomy = subparsers.add_parser("anatomy", help="attention statistics per layer x head (Clark et al. 2019)")
    _common(anatomy, 500)
    anatomy.add_argument("--no-gradients", action="store_true", help="skip the no-op gradient test")
    anatomy.add_argument("--head-sentences", type=int, default=100, help="sentences for head distances / MDS")
    anatomy.add_argument("--agreement", type=int, default=75, help="agreement sentences per template (0 = skip)")
    anatomy.set_defaults(handler=run_anatomy)
    probe = subparsers.add_parser("probe", help="linear probes on every layer (Lin et al. 2019)")
    _common(probe, 2000)
    probe.add_argument("--tokens-per-sentence", type=int, default=8)
    probe.add_argument("--max-position", type=int, default=10, help="positions 0..P-1 for the position probe")
    probe.add_argument("--test-fraction", type=float, default=0.2)
    probe.add_argument(
        "--folds", type=int, default=0, help="K >= 2: K-fold over sentences, every item scored once (small corpora)"
    )
    probe.set_defaults(handler=run_probe)
    perturb = subparsers.add_parser(
        "perturb", help="accuracy and explanation shift under perturbations (Si et al. 2019)"
    )
    _common(perturb, 300)
    perturb.add_argument("--perturbations", default=None, help="comma-separated subset (default: all)")
    perturb.add_argument("--antonyms", default=None, help="'good:bad,fun:dull' or @FILE with one pair a line")
    perturb.set_defaults(handler=run_perturb)


def _load(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    import numpy as np

    from selfexplain.core.pipeline import load_model

    if args.limit < 1:
        raise AnatomyInputError(f"--limit must be at least 1, got {args.limit}")
    explainer = load_model(args.model)
    examples = read_model_examples(args, args.data, explainer.config.label_names)
    if explainer.config.pair and any(e.pair is None for e in examples):
        raise AnatomyInputError(f"model {explainer.name!r} takes text pairs; name the second column with --pair-column")
    if len(examples) > args.limit:
        keep = np.sort(np.random.default_rng(args.seed).choice(len(examples), args.limit, replace=False))
        examples = [examples[i] for i in keep]
    return explainer, examples


def _write_figures(folder: Path, figures: dict[str, Any]) -> None:
    """HTML (offline) and PNG files of ``figures``; says on stderr when PNGs could not be made."""
    from selfexplain.views.files import write_figures

    note_figures(write_figures(folder, figures))


def run_anatomy(args: argparse.Namespace) -> int:
    from selfexplain.lab.anatomy import figures as F
    from selfexplain.lab.anatomy.agreement import agreement_sentences, confusion_by_layer
    from selfexplain.lab.anatomy.corpus import attention_anatomy

    explainer, examples = _load(args)
    result = attention_anatomy(
        explainer,
        examples,
        args.batch_size,
        not args.no_gradients,
        args.head_sentences,
        args.seed,
        not args.no_progress,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    result.save(args.out)
    table = F.stats_table(result)
    table.to_csv(args.out / "attention_stats.csv", index=False)
    figures = {
        f"heatmap_{n}": F.layer_head_heatmap(v, F.STAT_TITLES[n]) for n, v in result.stats.items() if n in F.STAT_TITLES
    }
    figures.update(lines=F.per_layer_lines(result), entropy=F.entropy_lines(result), noop=F.noop_figure(result))
    if result.mds is not None:
        figures["heads_mds"] = F.mds_figure(result)
    confusion = None
    if args.agreement > 0 and not explainer.config.pair:
        confusion = confusion_by_layer(explainer, agreement_sentences(args.agreement, args.seed), args.batch_size)
        confusion.to_csv(args.out / "confusion.csv", index=False)
        figures["confusion"] = F.confusion_figure(confusion)
    _write_figures(args.out, figures)
    by_layer = table.groupby("layer").mean(numeric_only=True)
    summary: dict[str, Any] = {
        "model": result.model,
        "sentences": result.sentences,
        "layers": result.shape[0],
        "heads": result.shape[1],
        "sep_by_layer": by_layer["sep"].round(3).tolist(),
        "cls_by_layer": by_layer["cls"].round(3).tolist(),
        "entropy_by_layer": by_layer["entropy"].round(3).tolist(),
    }
    if result.sep_gradient is not None:
        summary["sep_gradient_by_layer"] = [float(f"{v:.3g}") for v in by_layer["sep_gradient"]]
    if confusion is not None:
        summary["confusion_by_layer"] = {
            f"{k}{'+distractor' if d else ''}": rows["confusion"].round(3).tolist()
            for (k, d), rows in confusion.groupby(["kind", "distractor"])
        }
    print(json.dumps(summary))
    return 0


def run_probe(args: argparse.Namespace) -> int:
    from selfexplain.lab.anatomy.figures import probe_figure
    from selfexplain.lab.anatomy.probing import cache_hidden_states, probe_by_layer

    if not 0 < args.test_fraction < 1:
        raise AnatomyInputError(f"--test-fraction must be between 0 and 1, got {args.test_fraction}")
    if args.folds == 1 or args.folds < 0:
        raise AnatomyInputError(f"--folds must be 0 (one held-out share) or at least 2, got {args.folds}")
    explainer, examples = _load(args)
    cache = cache_hidden_states(
        explainer, examples, args.batch_size, args.tokens_per_sentence, args.seed, not args.no_progress
    )
    table = probe_by_layer(
        cache,
        seed=args.seed,
        test_fraction=args.test_fraction,
        max_position=args.max_position,
        progress=not args.no_progress,
        folds=args.folds,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "probes.csv", index=False)
    _write_figures(args.out, {"probes": probe_figure(table)})
    summary = {
        task: {"accuracy": rows["accuracy"].round(3).tolist(), "majority": round(float(rows["majority"].iloc[0]), 3)}
        for task, rows in table.groupby("task", sort=False)
    }
    print(json.dumps({"model": explainer.name, "sentences": len(examples), "probes": summary}))
    return 0


def run_perturb(args: argparse.Namespace) -> int:
    from selfexplain.lab.anatomy.figures import perturbation_figure
    from selfexplain.lab.anatomy.perturb import PERTURBATIONS, parse_antonyms
    from selfexplain.lab.anatomy.robustness import perturbation_study

    chosen = [p.strip() for p in args.perturbations.split(",")] if args.perturbations else list(PERTURBATIONS)
    unknown = sorted(set(chosen) - set(PERTURBATIONS))
    if unknown:
        raise AnatomyInputError(f"unknown perturbation {unknown[0]!r}; choose from {', '.join(PERTURBATIONS)}")
    antonyms = None
    if args.antonyms:
        text = args.antonyms
        if text.startswith("@"):
            path = Path(text[1:])
            if not path.is_file():
                raise AnatomyInputError(f"{path}: no such antonym file")
            text = path.read_text(encoding="utf-8")
        try:
            antonyms = parse_antonyms(text)
        except ValueError as err:
            raise AnatomyInputError(str(err)) from None
    explainer, examples = _load(args)
    summary, rows = perturbation_study(
        explainer, examples, chosen, args.seed, antonyms, args.batch_size, not args.no_progress
    )
    args.out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(args.out / "perturbation_summary.csv", index=False)
    rows.to_csv(args.out / "perturbation_examples.csv", index=False)
    if not summary.empty:
        _write_figures(args.out, {"perturbations": perturbation_figure(summary)})
    print(summary.round(3).to_string(index=False) if not summary.empty else "no perturbation applied")
    return 0
