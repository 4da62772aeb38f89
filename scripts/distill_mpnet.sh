#!/usr/bin/env bash
# An MPNet span-layer student distilled from the same-encoder mean baseline with erasure targets (the recipe
# of the shipped sst5-minilm, scaled to what 2 CPU cores do in under an hour: the 8,544 SST-5 train sentences
# as texts, labels dropped, the teacher labelling them; its word-deletion effects on 3,000 of them; the
# MPNet models' read-out layer 8, width limit 4, frozen layers and bf16 autocast). docs/accuracy.md, "A
# twelve-layer encoder". Resumable: rerun after a stop and it continues from its last checkpoint (the
# teacher's probabilities and effects are cached in the run folder). best/ holds the last epoch (--keep last):
# the own-erasure epoch is the point of the recipe; the first epoch agrees more with the teacher but its alpha
# does not decide (docs/accuracy.md).
#   bash scripts/distill_mpnet.sh sst2     # teacher sst2-mpnet-mean, into runs/sst2-student (~35 min, 2 cores)
#   EXTRA="--span-edges words --complement-weight 3 --own-erasure-epoch 2" OUT=runs/sst2-ec3o2 \
#     bash scripts/distill_mpnet.sh sst2                 # the shipped sst2-mpnet (since 2026-12-07, late)
#   EXTRA="--span-edges words" OUT=runs/sst2-edges bash scripts/distill_mpnet.sh sst2   # the sst2-mpnet before it
#   bash scripts/distill_mpnet.sh sst5     # teacher sst5-mpnet-mean, into runs/sst5-student
#   bash scripts/distill_mpnet.sh snli     # teacher snli-mpnet-mean on its own 8,842 training pairs (SNLI
#                                          # validation.tsv less its last 1,000, the dev pairs), into runs/snli-student
# DEVICE=cuda trains on a GPU; SEED=43 another seed; APOSTROPHES=joined keeps "doesn't" one word (its own
# OUT, e.g. OUT=runs/sst2-joined; docs/accuracy.md, "Whole words"). EXTRA="--complement-weight 3" adds or
# overrides options of `selfexplain distill` for a candidate recipe (its own OUT, e.g. OUT=runs/sst2-comp3).
# TEXTS=phrases (sst2, sst5) lets the teacher label the SST train sentences and every treebank phrase of 10 or more
# words (41,279 texts, as sst5-minilm's recipe; about 2 h 10 min on 2 cores) instead of the 8,544 sentences (its own OUT,
# e.g. OUT=runs/sst5-phrases); PHRASES=7456 keeps a seeded sample of that many phrases (16,000 texts in all).
set -euo pipefail
cd "$(dirname "$0")/.."
TASK=${1:?usage: bash scripts/distill_mpnet.sh sst2|sst5|snli}
DATA=${DATA:-../shared/data}
OUT=${OUT:-runs/$TASK-student}
SEED=${SEED:-42}
DEVICE=${DEVICE:-auto}
APOSTROPHES=${APOSTROPHES:-split}
TEXTS=${TEXTS:-sentences}
PHRASES=${PHRASES:-}
read -r -a EXTRA_ARGS <<< "${EXTRA:-}"
mkdir -p "$OUT"
case $TASK in
  sst2|sst5)
    [ "$TASK" = sst2 ] && FREEZE=2 || FREEZE=4  # as the teacher: its lower layers stay pretrained (a small delta)
    if [ "$TEXTS" = phrases ] && [ ! -s "$OUT/texts.txt" ]; then
      python scripts/sst_texts.py "$DATA/sst_trees/train.txt" "$OUT/texts.txt" ${PHRASES:+--phrases "$PHRASES"}
    fi
    [ -s "$OUT/texts.txt" ] || cut -d' ' -f2- "$DATA/sst5/train.txt" > "$OUT/texts.txt"
    INPUT=("$OUT/texts.txt") ;;
  snli)
    FREEZE=4  # the pairs the teacher trained on (scripts/mpnet_runs.sh); the labels are dropped, the teacher's read
    [ -s "$OUT/pairs.tsv" ] || head -n -1000 "$DATA/snli/validation.tsv" > "$OUT/pairs.tsv"
    INPUT=("$OUT/pairs.tsv" --text-column premise --pair-column hypothesis) ;;
  *) echo "unknown task $TASK (sst2, sst5 or snli)" >&2; exit 2 ;;
esac
selfexplain distill --teacher "$TASK-mpnet-mean" --data "${INPUT[@]}" --holdout 0.05 --dev-fraction 0.05 \
  --seed "$SEED" --encoder-layer 8 --max-span-width 4 --freeze-layers "$FREEZE" --encoder-precision bfloat16 \
  --checkpoint-steps 50 --device "$DEVICE" --apostrophes "$APOSTROPHES" \
  --span-representation sic --normaliser entmax15 --lambda 1 --anneal-temperature 10 --epochs 3 --batch-size 32 \
  --lr 3e-5 --dropout 0 --temperature 2 --teacher-loss mse --teacher-weight 6 --complement-weight 1 \
  --sufficiency-weight 1 --removal-weight 1 --erasure-weight 1 --erasure-temperature 0.01 --erasure-texts 3000 \
  --own-erasure-epoch 3 --keep last --compact --name "$TASK-mpnet-student" --out "$OUT/distill-s$SEED" \
  ${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}
