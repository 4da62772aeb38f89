#!/usr/bin/env bash
# Trains the shipped models and their shipped baselines (docs/accuracy.md):
#   first the mean-pooling baselines sst5-minilm-mean and snli-minilm-mean (shipped as they are);
#   then the self-explaining models with the recipe in RECIPE, from the pretrained encoder (no warm
#   start), with the identical data, budget and seed as their baseline, plus a KL term towards it
#   (--teacher).
# A finished run (its metrics.json exists) is skipped, so the script can be rerun after an
# interruption. About 25 + 30 minutes (SST-5) and 11 + 15 minutes (SNLI) on 2 cores.
# Usage: bash scripts/train_defaults.sh [DATA_DIR] [RUNS_DIR]   (defaults: ../shared/data, runs)
# Then: cp -r RUNS/sst5p-mean-s42/best assets/models/sst5-minilm-mean (and the others, see README).
set -euo pipefail
DATA=${1:-../shared/data}
RUNS=${2:-runs}
RECIPE=${RECIPE:-"--normaliser entmax15 --lambda 1 --anneal-temperature 10 --encoder-layer 3 --max-span-width 4"}
mkdir -p "$RUNS"
SST5_LABELS="very negative,negative,neutral,positive,very positive"
NLI_LABELS="entailment,neutral,contradiction"
train() { python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --batch-size 32 --seed 42 --compact --no-progress "$@"; }

# SNLI has no train split here: train on validation.tsv less its last 1,000 pairs (dev), report on test.tsv.
head -n -1000 "$DATA/snli/validation.tsv" > "$RUNS/snli-train.tsv"
{ head -n 1 "$DATA/snli/validation.tsv"; tail -n 1000 "$DATA/snli/validation.tsv"; } > "$RUNS/snli-dev.tsv"
SST5=(--dev "$DATA/sst5/dev.txt" --labels "$SST5_LABELS")
SNLI=(--train "$RUNS/snli-train.tsv" --dev "$RUNS/snli-dev.tsv" --labels "$NLI_LABELS"
      --text-column premise --pair-column hypothesis --label-column label)

# baselines: SST-5 train sentences + their treebank phrases of >= 10 words, 1 epoch; SNLI 8,842 pairs, 3 epochs
[ -f "$RUNS/sst5p-mean-s42/metrics.json" ] || train --head mean "${SST5[@]}" --train "$DATA/sst_trees/train.txt" \
  --phrases --min-phrase-words 10 --epochs 1 --lr 3e-5 --name sst5-minilm-mean --out "$RUNS/sst5p-mean-s42"
[ -f "$RUNS/snli-mean-s42/metrics.json" ] || train --head mean "${SNLI[@]}" --epochs 3 --lr 3e-5 \
  --name snli-minilm-mean --out "$RUNS/snli-mean-s42"
# the span models: the baselines' data, epochs and seed, from the pretrained encoder, KL to the baseline
# shellcheck disable=SC2086
[ -f "$RUNS/sst5p-span-s42/metrics.json" ] || train --head span $RECIPE "${SST5[@]}" --train "$DATA/sst_trees/train.txt" \
  --phrases --min-phrase-words 10 --teacher "$RUNS/sst5p-mean-s42/best" --epochs 1 --lr 3e-5 \
  --name sst5-minilm --out "$RUNS/sst5p-span-s42"
# shellcheck disable=SC2086
[ -f "$RUNS/snli-kd-s42/metrics.json" ] || train --head span $RECIPE "${SNLI[@]}" --pair-alpha per-segment \
  --teacher "$RUNS/snli-mean-s42/best" --epochs 3 --lr 3e-5 --name snli-minilm --out "$RUNS/snli-kd-s42"
