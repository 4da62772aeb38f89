#!/usr/bin/env bash
# After scripts/mpnet_runs.sh: every figure docs/accuracy.md and the cards quote for an MPNet model, then the
# folder copied into assets/models. Usage: bash scripts/mpnet_measure.sh NAME [BASELINE_NAME]
#   NAME: sst2-mpnet, sst5-mpnet, snli-mpnet (or a baseline alone: sst5-mpnet-mean, snli-mpnet-mean)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-../shared/data}
RUNS=${RUNS:-runs/mpnet}
OUT=${OUT:-runs/mpnet-measure}
name=$1; baseline=${2:-}
mkdir -p "$OUT"
case $name in
  sst2-*) test="$DATA/sst2/test.txt"; dev="$DATA/sst2/dev.txt" ;;
  sst5-*) test="$DATA/sst5/test.txt"; dev="$DATA/sst5/dev.txt" ;;
  snli-*) test="$DATA/snli/test.tsv"; dev="$RUNS/snli-dev.tsv" ;;
esac
# held-out text nobody trained or chose on; the binary model reads the reviews without their neutral ones
heldout=assets/heldout/reviews.txt
if [[ $name == sst2-* ]]; then
  bash scripts/heldout_binary.sh "$OUT/reviews-binary.txt"
  heldout="$OUT/reviews-binary.txt"
fi
[[ $name == snli-* ]] && heldout=assets/heldout/pairs.tsv
for model in "$name" $baseline; do
  selfexplain eval --model "$RUNS/$model/best" --data "$test" --no-progress --predictions "$OUT/$model-test.jsonl" \
    > "$OUT/$model-eval.json"
done
if [ -n "$baseline" ]; then
  selfexplain paired-test "$OUT/$name-test.jsonl" "$OUT/$baseline-test.jsonl" | tee "$OUT/$name-mcnemar.txt"
fi
if [ "$(python -c "import json,sys; print(json.load(open(sys.argv[1]))['head'])" "$RUNS/$name/best/selfexplain.json")" = span ]; then
  limit=300; [[ $name == snli-* ]] && limit=1000
  selfexplain sharpness --model "$RUNS/$name/best" --data "$dev" --limit 300 --out "$OUT/$name-sharp-dev" --no-progress
  selfexplain sharpness --model "$RUNS/$name/best" --data "$test" --limit "$limit" --out "$OUT/$name-sharp-test" \
    --no-progress
  selfexplain sharpness --model "$RUNS/$name/best" --data "$heldout" --out "$OUT/$name-sharp-heldout" --no-progress
  if [ -n "$baseline" ]; then
    python scripts/finish_card.py "$RUNS/$name/best" --baseline "$RUNS/$baseline/best" \
      --sharpness "$OUT/$name-sharp-test" "first $limit test inputs" \
      --sharpness "$OUT/$name-sharp-heldout" "held-out text (assets/heldout)"
  fi
fi
for model in "$name" $baseline; do
  rm -rf "assets/models/$model"; cp -r "$RUNS/$model/best" "assets/models/$model"
  python benchmarks/model_speed.py "$model" --record $([[ $model == snli-* ]] || echo --document)
  du -sh "assets/models/$model"
done
