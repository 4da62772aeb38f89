#!/usr/bin/env bash
# Trains the two shipped models (lambda 0.1, chosen on dev), the lambda 1.0 variants and the plain
# mean-pooling baselines (same encoder, data, budget and seed). Each run takes 20-45 minutes on 2 cores.
# The shipped folders are runs/sst5-minilm-span-phr/best and runs/snli-minilm-span-l0.1/best,
# copied to assets/models/NAME.
# Usage: bash scripts/train_defaults.sh [DATA_DIR] [RUNS_DIR]   (defaults: ../shared/data, runs)
set -euo pipefail
DATA=${1:-../shared/data}
RUNS=${2:-runs}
mkdir -p "$RUNS"
SST5_LABELS="very negative,negative,neutral,positive,very positive"
NLI_LABELS="entailment,neutral,contradiction"

# SNLI has no train split here: train on validation.tsv less its last 1,000 pairs (dev), report on test.tsv.
head -n -1000 "$DATA/snli/validation.tsv" > "$RUNS/snli-train.tsv"
{ head -n 1 "$DATA/snli/validation.tsv"; tail -n 1000 "$DATA/snli/validation.tsv"; } > "$RUNS/snli-dev.tsv"

# The shipped sst5-minilm and its baseline: sentences + treebank phrases of >= 10 words, 1 epoch.
for variant in "span-phr span --lambda 0.1" "mean-phr mean"; do
  set -- $variant
  name=$1; head=$2; shift 2
  python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --head "$head" "$@" \
    --train "$DATA/sst_trees/train.txt" --phrases --min-phrase-words 10 --dev "$DATA/sst5/dev.txt" \
    --labels "$SST5_LABELS" --epochs 1 --batch-size 32 --lr 3e-5 --seed 42 --compact --no-progress \
    --name sst5-minilm --out "$RUNS/sst5-minilm-$name"
done

# Sentence-only variants (the ablation table in README.md) and every SNLI model.
# each variant: NAME HEAD [extra train options]
for variant in "span-l0.1 span --lambda 0.1" "span span --lambda 1.0" "mean mean"; do
  set -- $variant
  name=$1; head=$2; shift 2
  python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --head "$head" "$@" \
    --train "$DATA/sst5/train.txt" --dev "$DATA/sst5/dev.txt" --labels "$SST5_LABELS" \
    --epochs 3 --batch-size 32 --lr 3e-5 --seed 42 --compact --no-progress \
    --name sst5-minilm --out "$RUNS/sst5-minilm-$name"
  python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --head "$head" "$@" \
    --train "$RUNS/snli-train.tsv" --dev "$RUNS/snli-dev.tsv" --labels "$NLI_LABELS" \
    --text-column premise --pair-column hypothesis --label-column label \
    --epochs 3 --batch-size 32 --lr 3e-5 --seed 42 --compact --no-progress \
    --name snli-minilm --out "$RUNS/snli-minilm-$name"
done
