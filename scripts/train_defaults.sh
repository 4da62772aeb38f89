#!/usr/bin/env bash
# Trains the two shipped models with the recipe chosen in docs/sharpness.md (word-level spans, the
# normaliser and lambda in RECIPE) and the plain mean-pooling baselines with the identical command
# (same encoder, data, budget and seed; only --head differs). Each run takes 10-25 minutes on 2 cores.
# The shipped folders are RUNS/sst5-minilm-span/best and RUNS/snli-minilm-span/best, copied to
# assets/models/NAME.
# Usage: bash scripts/train_defaults.sh [DATA_DIR] [RUNS_DIR]   (defaults: ../shared/data, runs)
set -euo pipefail
DATA=${1:-../shared/data}
RUNS=${2:-runs}
RECIPE="--span-unit word --normaliser sparsemax --lambda 1 --anneal-temperature 10"
mkdir -p "$RUNS"
SST5_LABELS="very negative,negative,neutral,positive,very positive"
NLI_LABELS="entailment,neutral,contradiction"

# SNLI has no train split here: train on validation.tsv less its last 1,000 pairs (dev), report on test.tsv.
head -n -1000 "$DATA/snli/validation.tsv" > "$RUNS/snli-train.tsv"
{ head -n 1 "$DATA/snli/validation.tsv"; tail -n 1000 "$DATA/snli/validation.tsv"; } > "$RUNS/snli-dev.tsv"

# each variant: NAME HEAD [extra train options]
for variant in "span span $RECIPE" "mean mean"; do
  set -- $variant
  name=$1; head=$2; shift 2
  # sst5-minilm: SST-5 train sentences + their treebank phrases of >= 10 words, 1 epoch
  if [ ! -f "$RUNS/sst5-minilm-$name/metrics.json" ]; then
    python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --head "$head" "$@" \
      --train "$DATA/sst_trees/train.txt" --phrases --min-phrase-words 10 --dev "$DATA/sst5/dev.txt" \
      --labels "$SST5_LABELS" --epochs 1 --batch-size 32 --lr 3e-5 --seed 42 --compact --no-progress \
      --name sst5-minilm --out "$RUNS/sst5-minilm-$name"
  fi
  # snli-minilm: 8,842 pairs, 3 epochs
  if [ ! -f "$RUNS/snli-minilm-$name/metrics.json" ]; then
    python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --head "$head" "$@" \
      --train "$RUNS/snli-train.tsv" --dev "$RUNS/snli-dev.tsv" --labels "$NLI_LABELS" \
      --text-column premise --pair-column hypothesis --label-column label \
      --epochs 3 --batch-size 32 --lr 3e-5 --seed 42 --compact --no-progress \
      --name snli-minilm --out "$RUNS/snli-minilm-$name"
  fi
done
