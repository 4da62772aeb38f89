#!/usr/bin/env bash
# The sharpness sweep of docs/sharpness.md: every recipe with the same budget (SST-5 train
# sentences, 1 epoch, batch 32, lr 3e-5, seed 42, word-level spans), then the equal-budget
# mean-pooling baseline. A finished run (its metrics.json exists) is skipped, so the script
# can be rerun after an interruption.
# Usage: bash scripts/sharpness_sweep.sh [DATA_DIR] [RUNS_DIR]   (defaults: ../shared/data, runs)
set -euo pipefail
DATA=${1:-../shared/data}
RUNS=${2:-runs}
mkdir -p "$RUNS"
SST5_LABELS="very negative,negative,neutral,positive,very positive"
# each variant: NAME HEAD [extra train options]
VARIANTS=(
  "sparsemax-l1 span --normaliser sparsemax --lambda 1"
  "entmax15-l1 span --normaliser entmax15 --lambda 1"
  "softmax-l1 span --lambda 1"
  "softmax-l10 span --lambda 10"
  "softmax-l0.1 span --lambda 0.1"
  "softmax-l3 span --lambda 3"
  "mean mean"
  "sparsemax-l0 span --normaliser sparsemax --lambda 0"
  "sparsemax-l1-t10 span --normaliser sparsemax --lambda 1 --anneal-temperature 10"
  "sparsemax-l1-t10-c1 span --normaliser sparsemax --lambda 1 --anneal-temperature 10 --complement-weight 1"
  "sparsemax-l1-t10-s1 span --normaliser sparsemax --lambda 1 --anneal-temperature 10 --sufficiency-weight 1"
)
for variant in "${VARIANTS[@]}"; do
  set -- $variant
  name=$1; head=$2; shift 2
  out="$RUNS/sweep-sst5-$name"
  if [ -f "$out/metrics.json" ]; then echo "skip $name"; continue; fi
  echo "== $name $(date +%H:%M:%S)"
  python -m selfexplain.cli train --encoder all-MiniLM-L6-v2 --head "$head" "$@" \
    --train "$DATA/sst5/train.txt" --dev "$DATA/sst5/dev.txt" --labels "$SST5_LABELS" \
    --epochs 1 --batch-size 32 --lr 3e-5 --seed 42 --compact \
    --name sst5-minilm --out "$out"
  echo "== done $name $(date +%H:%M:%S)"
done
