#!/usr/bin/env bash
# A candidate demo model: an MPNet span-layer student distilled from sst2-mpnet-mean with erasure targets
# (the recipe of the shipped sst5-minilm, scaled to what 2 CPU cores do in an hour: the 8,544 SST-5 train
# sentences as texts, the teacher's word-deletion effects on 3,000 of them, the MPNet runs' read-out layer,
# width limit, frozen layers and bf16 autocast). Resumable: rerun after a stop and it continues from its last
# checkpoint (the teacher's probabilities and effects are cached in the run folder).
#   bash scripts/distill_sst2_mpnet.sh        # train into runs/sst2-student (DEVICE=cuda for a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-../shared/data}
OUT=${OUT:-runs/sst2-student}
SEED=${SEED:-42}
DEVICE=${DEVICE:-auto}
mkdir -p "$OUT"
# the texts, labels dropped: the teacher labels them (neutral sentences included)
[ -s "$OUT/texts.txt" ] || cut -d' ' -f2- "$DATA/sst5/train.txt" > "$OUT/texts.txt"
selfexplain distill --teacher sst2-mpnet-mean --data "$OUT/texts.txt" --holdout 0.05 --dev-fraction 0.05 \
  --seed "$SEED" --encoder-layer 8 --max-span-width 4 --freeze-layers 2 --encoder-precision bfloat16 \
  --checkpoint-steps 50 --device "$DEVICE" \
  --span-representation sic --normaliser entmax15 --lambda 1 --anneal-temperature 10 --epochs 3 --batch-size 32 \
  --lr 3e-5 --dropout 0 --temperature 2 --teacher-loss mse --teacher-weight 6 --complement-weight 1 \
  --sufficiency-weight 1 --removal-weight 1 --erasure-weight 1 --erasure-temperature 0.01 --erasure-texts 3000 \
  --own-erasure-epoch 3 --compact --name sst2-mpnet-student --out "$OUT/distill-s$SEED"
