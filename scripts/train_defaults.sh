#!/usr/bin/env bash
# Trains the shipped models and their shipped baselines (docs/accuracy.md):
#   stage 1: the mean-pooling baselines sst5-minilm-mean and snli-minilm-mean (shipped as they are);
#   stage 2: the self-explaining models, starting from their baseline's fine-tuned encoder and
#            distilling from it (--init-from and --teacher), with the recipe in RECIPE, one epoch.
# A finished run (its metrics.json exists) is skipped, so the script can be rerun after an
# interruption. About 35 + 10 minutes (SST-5) and 10 + 10 minutes (SNLI) on 2 cores.
# Usage: bash scripts/train_defaults.sh [DATA_DIR] [RUNS_DIR]   (defaults: ../shared/data, runs)
# Then: cp -r RUNS/sst5p-mean-s42/best assets/models/sst5-minilm-mean (and the others, see README).
set -euo pipefail
DATA=${1:-../shared/data}
RUNS=${2:-runs}
RECIPE=${RECIPE:-"--normaliser sparsemax --lambda 1 --anneal-temperature 10"}
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

# stage 1: SST-5 train sentences + their treebank phrases of >= 10 words, 1 epoch; SNLI 8,842 pairs, 3 epochs
[ -f "$RUNS/sst5p-mean-s42/metrics.json" ] || train --head mean "${SST5[@]}" --train "$DATA/sst_trees/train.txt" \
  --phrases --min-phrase-words 10 --epochs 1 --lr 3e-5 --name sst5-minilm-mean --out "$RUNS/sst5p-mean-s42"
[ -f "$RUNS/snli-mean-s42/metrics.json" ] || train --head mean "${SNLI[@]}" --epochs 3 --lr 3e-5 \
  --name snli-minilm-mean --out "$RUNS/snli-mean-s42"
# stage 2: one epoch over the sentences (SST-5) or pairs (SNLI), encoder lr 1e-5
# shellcheck disable=SC2086
[ -f "$RUNS/sst5-ship-span/metrics.json" ] || train --head span $RECIPE "${SST5[@]}" --train "$DATA/sst5/train.txt" \
  --init-from "$RUNS/sst5p-mean-s42/best" --teacher "$RUNS/sst5p-mean-s42/best" --epochs 1 --lr 1e-5 \
  --name sst5-minilm --out "$RUNS/sst5-ship-span"
# shellcheck disable=SC2086
[ -f "$RUNS/snli-span-s42/metrics.json" ] || train --head span $RECIPE "${SNLI[@]}" --pair-alpha per-segment \
  --init-from "$RUNS/snli-mean-s42/best" --teacher "$RUNS/snli-mean-s42/best" --epochs 1 --lr 1e-5 \
  --name snli-minilm --out "$RUNS/snli-span-s42"
