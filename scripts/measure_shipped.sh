#!/usr/bin/env bash
# Every figure README.md, docs/sharpness.md and docs/faithfulness.md quote for the shipped models,
# after scripts/train_defaults.sh (RUNS holds the trained folders). Writes OUT/*.
# Usage: bash scripts/measure_shipped.sh [DATA_DIR] [RUNS_DIR] [OUT]   (defaults: ../shared/data runs runs/measure)
set -euo pipefail
DATA=${1:-../shared/data}
RUNS=${2:-runs}
OUT=${3:-runs/measure}
mkdir -p "$OUT"
for name in sst5-minilm-span sst5-minilm-mean; do
  if [ -d "$RUNS/$name/best" ]; then
    selfexplain eval --model "$RUNS/$name/best" --data "$DATA/sst5/test.txt" --no-progress > "$OUT/eval-$name.json"
  fi
done
for name in snli-minilm-span snli-minilm-mean; do
  if [ -d "$RUNS/$name/best" ]; then
    selfexplain eval --model "$RUNS/$name/best" --data "$DATA/snli/test.tsv" --no-progress > "$OUT/eval-$name.json"
  fi
done
selfexplain sharpness --model "$RUNS/sst5-minilm-span/best" --data "$DATA/sst5/test.txt" --out "$OUT/sharp-sst5" --no-progress
selfexplain sharpness --model "$RUNS/snli-minilm-span/best" --data "$DATA/snli/test.tsv" --limit 2000 \
  --out "$OUT/sharp-snli" --no-progress
if [ -d "$RUNS/old-sst5-minilm" ]; then  # the models shipped before (piece-level, softmax, lambda 0.1)
  selfexplain sharpness --model "$RUNS/old-sst5-minilm" --data "$DATA/sst5/test.txt" --out "$OUT/sharp-old-sst5" --no-progress
  selfexplain sharpness --model "$RUNS/old-snli-minilm" --data "$DATA/snli/test.tsv" --limit 2000 \
    --out "$OUT/sharp-old-snli" --no-progress
fi
selfexplain faithfulness --model "$RUNS/sst5-minilm-span/best" --data "$DATA/sst5/test.txt" --limit 200 --workers 2 \
  --no-progress --trees "$DATA/sst_trees/test.txt" --out "$OUT/faith-sst5-test300"
selfexplain rationales "$DATA/movie_rationales" --out "$OUT"
selfexplain plausibility --model "$RUNS/sst5-minilm-span/best" --data "$OUT/movies-test.jsonl" --limit 6 \
  --explainers integrated_gradients,loo --no-progress --out "$OUT/plausibility-movies.json"
