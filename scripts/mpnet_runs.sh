#!/usr/bin/env bash
# The MPNet models, one after another (2 CPU cores: ~2.5 h in all; a GPU: minutes with DEVICE=cuda).
# Resumable: a finished run is skipped, an interrupted one continues from its last checkpoint.
# Each run trains into runs/mpnet/NAME, then records its test accuracy in NAME/best.
#   bash scripts/mpnet_runs.sh            # all of them
#   ONLY="sst2-mpnet" bash scripts/mpnet_runs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-../shared/data}
OUT=${OUT:-runs/mpnet}
SEED=${SEED:-42}
DEVICE=${DEVICE:-auto}  # cpu, cuda or auto (a GPU when there is one)
LAYER=${LAYER:-8}
# layers kept as pretrained (with the embeddings): each trained layer is ~7 MB of int8 delta in the folder
FREEZE_SST2=${FREEZE_SST2:-2}
FREEZE=${FREEZE:-4}
mkdir -p "$OUT"
SST5_LABELS='very negative,negative,neutral,positive,very positive'
COMMON=(--encoder all-mpnet-base-v2 --encoder-layer "$LAYER" --batch-size 32
        --lr 3e-5 --seed "$SEED" --compact --encoder-precision bfloat16 --checkpoint-steps 50 --device "$DEVICE")
SPAN=(--head span --normaliser entmax15 --lambda 1 --anneal-temperature 10 --max-span-width 4)

run() {  # NAME TEST_DATA [train arguments...]
  local name=$1 test=$2; shift 2
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
  if [ ! -f "$OUT/$name/metrics.json" ]; then
    echo "== $(date -u +%H:%M) training $name"
    selfexplain train "${COMMON[@]}" --name "$name" --out "$OUT/$name" "$@"
  fi
  if ! grep -q test_accuracy "$OUT/$name/best/selfexplain.json"; then
    echo "== $(date -u +%H:%M) testing $name"
    selfexplain eval --model "$OUT/$name/best" --data "$test" --record --no-progress
  fi
}

# SNLI has no train split here: train on validation.tsv less its last 1,000 pairs (dev), as the MiniLM models
if [ ! -f "$OUT/snli-train.tsv" ]; then
  head -n -1000 "$DATA/snli/validation.tsv" > "$OUT/snli-train.tsv"
  { head -n 1 "$DATA/snli/validation.tsv"; tail -n 1000 "$DATA/snli/validation.tsv"; } > "$OUT/snli-dev.tsv"
fi
SNLI=(--text-column premise --pair-column hypothesis --label-column label --labels entailment,neutral,contradiction
      --train "$OUT/snli-train.tsv" --dev "$OUT/snli-dev.tsv")

SST2=(--freeze-layers "$FREEZE_SST2" --train "$DATA/sst2/train.txt" --dev "$DATA/sst2/dev.txt" --labels negative,positive)
# the demo model's baseline: mean pooling, the same sentences, frozen layers and first-stage budget
run sst2-mpnet-mean "$DATA/sst2/test.txt" --head mean "${SST2[@]}" --epochs 2
run sst2-mpnet-stage1 "$DATA/sst2/test.txt" "${SPAN[@]}" "${SST2[@]}" --epochs 2
# stage 2 (sst2-mpnet until the evening of 2026-12-06; the shipped one is scripts/distill_mpnet.sh sst2): one
# epoch from stage 1 that trains alpha to decide (complement and removal terms, docs/sharpness.md), stage 1 as
# its teacher, alpha sharp from the first step (no annealing)
run sst2-mpnet "$DATA/sst2/test.txt" "${SPAN[@]}" "${SST2[@]}" --epochs 1 --lr 2e-5 --anneal-temperature 1 \
  --init-from "$OUT/sst2-mpnet-stage1/best" --teacher "$OUT/sst2-mpnet-stage1/best" --complement-weight 1 --removal-weight 0.5
run sst5-mpnet-mean "$DATA/sst5/test.txt" --head mean --freeze-layers "$FREEZE" --train "$DATA/sst5/train.txt" --dev "$DATA/sst5/dev.txt" \
  --labels "$SST5_LABELS" --epochs 2
# sst5-mpnet until the evening of 2026-12-06 (the shipped one is scripts/distill_mpnet.sh sst5)
run sst5-mpnet "$DATA/sst5/test.txt" "${SPAN[@]}" --freeze-layers "$FREEZE" --train "$DATA/sst5/train.txt" --dev "$DATA/sst5/dev.txt" \
  --labels "$SST5_LABELS" --teacher "$OUT/sst5-mpnet-mean/best" --epochs 2
run snli-mpnet-mean "$DATA/snli/test.tsv" --head mean --freeze-layers "$FREEZE" "${SNLI[@]}" --epochs 3
run snli-mpnet-stage1 "$DATA/snli/test.tsv" "${SPAN[@]}" --freeze-layers "$FREEZE" "${SNLI[@]}" --pair-alpha per-segment \
  --teacher "$OUT/snli-mpnet-mean/best" --epochs 3
# stage 2 (the shipped snli-mpnet): as sst2-mpnet's, with the baseline as teacher at weight 4 (keeps its accuracy)
run snli-mpnet "$DATA/snli/test.tsv" "${SPAN[@]}" --freeze-layers "$FREEZE" "${SNLI[@]}" --pair-alpha per-segment --epochs 1 \
  --lr 2e-5 --anneal-temperature 1 --init-from "$OUT/snli-mpnet-stage1/best" --teacher "$OUT/snli-mpnet-mean/best" \
  --teacher-weight 4 --complement-weight 1 --removal-weight 0.5
echo "== $(date -u +%H:%M) done"
