#!/usr/bin/env bash
# The recipe rows of docs/accuracy.md: equal-budget baselines (seeds 42, 43, 44), every recipe at seed
# 42 measured on the first 300 SST-5 dev sentences, and each round's choice (kd-sic, then scratch-kd-sic)
# at seeds 43 and 44.
# One budget: SST-5 train sentences, 1 epoch, batch 32. A finished run (metrics.json) is skipped.
# About 4-8 minutes a run on 2 idle cores.
# Usage: bash scripts/recipe_runs.sh [DATA_DIR] [RUNS_DIR]   (defaults: ../shared/data, runs)
#        ONLY="mean scratch-kd-sic-comp" bash scripts/recipe_runs.sh   (only these rows, every seed)
set -euo pipefail
ONLY=${ONLY:-}
DATA=${1:-../shared/data}
RUNS=${2:-runs}
mkdir -p "$RUNS"
head -300 "$DATA/sst5/dev.txt" > "$RUNS/dev300.txt"
COMMON=(--encoder all-MiniLM-L6-v2 --train "$DATA/sst5/train.txt" --dev "$DATA/sst5/dev.txt"
        --labels "very negative,negative,neutral,positive,very positive" --epochs 1 --batch-size 32 --compact --no-progress)
run() {  # NAME SEED [train options]
  local name=$1 seed=$2; shift 2
  if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then return 0; fi
  local out="$RUNS/sst5s-$name-s$seed"
  [ -f "$out/metrics.json" ] || python -m selfexplain.cli train "${COMMON[@]}" --seed "$seed" "$@" --name sst5-minilm --out "$out"
  if [[ "$name" != mean* ]] && [ "$seed" = 42 ] && [ ! -f "$RUNS/sharp-dev300-$name-s$seed/sharpness.csv" ]; then
    python -m selfexplain.cli sharpness --model "$out/best" --data "$RUNS/dev300.txt" \
      --trees "$DATA/sst_trees/dev.txt" --out "$RUNS/sharp-dev300-$name-s$seed" --no-progress
  fi
}
for seed in 42 43 44; do run mean "$seed" --head mean --lr 3e-5; done
run mean2ep 42 --head mean --lr 3e-5 --epochs 2  # the equal-budget baseline of the 2-epoch row
warm() { echo --init-from "$RUNS/sst5s-mean-s$1/best" --teacher "$RUNS/sst5s-mean-s$1/best" --lr 1e-5; }
SPARSE="--normaliser sparsemax --anneal-temperature 10"
# shellcheck disable=SC2046,SC2086
{
  run kd-sic 42 $(warm 42) $SPARSE --lambda 1
  run kd-mean-w4 42 $(warm 42) $SPARSE --lambda 1 --span-representation mean --max-span-width 4
  run kd-mean-w4-l0-suff 42 $(warm 42) $SPARSE --lambda 0 --span-representation mean --max-span-width 4 --sufficiency-weight 1
  run scratch-kd-mean-w4-l0 42 --teacher "$RUNS/sst5s-mean-s42/best" --lr 3e-5 $SPARSE --lambda 0 \
    --span-representation mean --max-span-width 4
  for seed in 43 44; do run kd-sic "$seed" $(warm "$seed") $SPARSE --lambda 1; done
  # second round: no warm start (the encoder keeps each span's own words), KL to the baseline, SIC spans
  run scratch-kd-sic 42 --teacher "$RUNS/sst5s-mean-s42/best" --lr 3e-5 $SPARSE --lambda 1
  run scratch-kd-sic-w4 42 --teacher "$RUNS/sst5s-mean-s42/best" --lr 3e-5 $SPARSE --lambda 1 --max-span-width 4
  # the second round's choice at seeds 43 and 44, each distilled from the baseline of its own seed
  for seed in 43 44; do run scratch-kd-sic "$seed" --teacher "$RUNS/sst5s-mean-s$seed/best" --lr 3e-5 $SPARSE --lambda 1; done
  # third round: the second round's choice with each remaining lever of the issue, one at a time
  KD42="--teacher $RUNS/sst5s-mean-s42/best --lr 3e-5"
  run scratch-kd-sic-comp 42 $KD42 $SPARSE --lambda 1 --complement-weight 1
  run scratch-kd-sic-entmax 42 $KD42 --normaliser entmax15 --anneal-temperature 10 --lambda 1
  run scratch-kd-sic-suff 42 $KD42 $SPARSE --lambda 1 --sufficiency-weight 1
  run scratch-kd-sic-2ep 42 $KD42 $SPARSE --lambda 1 --epochs 2
  run scratch-kd-sic-layer3 42 $KD42 $SPARSE --lambda 1 --encoder-layer 3
  run scratch-kd-sic-prior02 42 $KD42 $SPARSE --lambda 1 --span-length-prior 0.2
  # fourth round: the third round's choice (span vectors from layer 3) with the levers that shortened spans
  L3="$SPARSE --lambda 1 --encoder-layer 3"
  run scratch-kd-sic-layer3-comp 42 $KD42 $L3 --complement-weight 1
  run scratch-kd-sic-layer3-w4 42 $KD42 $L3 --max-span-width 4
  # fifth round: the fourth round's choice with the levers that spread weight or raise causality
  W4="--encoder-layer 3 --max-span-width 4"
  run scratch-kd-sic-layer3-w4-entmax 42 $KD42 --normaliser entmax15 --anneal-temperature 10 --lambda 1 $W4
  run scratch-kd-sic-layer3-w4-l0 42 $KD42 $SPARSE --lambda 0 $W4
  run scratch-kd-sic-layer3-w4-comp 42 $KD42 $L3 --max-span-width 4 --complement-weight 1
  run scratch-kd-sic-layer4-w4 42 $KD42 $SPARSE --lambda 1 --encoder-layer 4 --max-span-width 4
  # the fifth round's choice at seeds 43 and 44, each distilled from the baseline of its own seed
  for seed in 43 44; do
    run scratch-kd-sic-layer3-w4-entmax "$seed" --teacher "$RUNS/sst5s-mean-s$seed/best" --lr 3e-5 \
      --normaliser entmax15 --anneal-temperature 10 --lambda 1 $W4
  done
  # the fourth round's choice at seeds 43 and 44, each distilled from the baseline of its own seed
  for seed in 43 44; do
    run scratch-kd-sic-layer3-w4 "$seed" --teacher "$RUNS/sst5s-mean-s$seed/best" --lr 3e-5 $L3 --max-span-width 4
  done
}
