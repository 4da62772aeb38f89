#!/usr/bin/env bash
# Reruns the claims of README.md, docs/sharpness.md and docs/faithfulness.md on text written for this
# project and never used for training, tuning or choosing a recipe (assets/heldout/): 40 reviews with
# SST-5 style labels and 24 premise/hypothesis pairs. Writes OUT/{sharpness-*,faith-*}.
# Usage: bash scripts/heldout_check.sh [OUT] [OLD_SST5_MODEL]   (defaults: runs/heldout, none)
set -euo pipefail
OUT=${1:-runs/heldout}
OLD=${2:-}
mkdir -p "$OUT"
selfexplain sharpness --model sst5-minilm --data assets/heldout/reviews.txt --out "$OUT/sharpness-sst5" --no-progress
selfexplain sharpness --model snli-minilm --data assets/heldout/pairs.tsv --out "$OUT/sharpness-snli" --no-progress
if [ -n "$OLD" ]; then
  selfexplain sharpness --model "$OLD" --data assets/heldout/reviews.txt --out "$OUT/sharpness-old" --no-progress
fi
selfexplain faithfulness --model sst5-minilm --data assets/heldout/reviews.txt --workers 2 --no-progress \
  --out "$OUT/faith-sst5"
