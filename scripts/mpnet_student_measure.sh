#!/usr/bin/env bash
# After scripts/distill_mpnet.sh TASK: every figure docs/accuracy.md and the card quote for the MPNet student,
# against its baseline (TASK-mpnet-mean) and the model shipped as TASK-mpnet before it.
#   bash scripts/mpnet_student_measure.sh sst2          # measure into runs/TASK-student/measure
#   SHIP=1 bash scripts/mpnet_student_measure.sh sst2   # and ship it as TASK-mpnet (card, test accuracy, speed)
#   RUN=runs/sst2-joined/distill-s42 bash scripts/mpnet_student_measure.sh sst2   # another run folder
#   DEV_ONLY=1 RUN=runs/sst2-comp3/distill-s42 bash ...  # a candidate: its dev figures only (no test is read)
# Resumable: a figure already written is not measured again (delete its file to measure it again).
# The SST-2 student is also read on 300 long movie reviews (binary accuracy) and against their marked words.
set -euo pipefail
cd "$(dirname "$0")/.."
TASK=${1:?usage: bash scripts/mpnet_student_measure.sh sst2|sst5|snli}
DATA=${DATA:-../shared/data}
RUN=${RUN:-runs/$TASK-student/distill-s${SEED:-42}}
OUT="$RUN/measure"
M="$RUN/best"
OLD=${OLD:-runs/$TASK-student/old-$TASK-mpnet}  # the model shipped before (copied once, before SHIP replaces it)
# the card's "where it loses" lines (measured figures, written after reading them; --limitation TEXT each)
LIMITATIONS=()
[ -f "scripts/limitations/$TASK-mpnet.txt" ] && while IFS= read -r line; do LIMITATIONS+=(--limitation "$line"); done \
  < "scripts/limitations/$TASK-mpnet.txt"
source scripts/student_task.sh  # test, dev, trees, dev_trees, heldout, heldout_name, name; makes OUT
[ -d "$OLD" ] || { mkdir -p "$(dirname "$OLD")"; cp -r "assets/models/$TASK-mpnet" "$OLD"; }

echo "== $(date -u +%H:%M) dev (the selection rule)"
[ -s "$OUT/dev-eval.json" ] || selfexplain eval --model "$M" --data "$dev" --no-progress > "$OUT/dev-eval.json"
[ -s "$OUT/sharp-dev$dev_limit/sharpness.csv" ] || selfexplain sharpness --model "$M" --data "$dev" "${dev_trees[@]}" \
  --limit "$dev_limit" --out "$OUT/sharp-dev$dev_limit" --no-progress
if [ -n "${DEV_ONLY:-}" ]; then
  cat "$OUT/dev-eval.json" "$OUT/sharp-dev$dev_limit/sharpness.md"
  echo "== $(date -u +%H:%M) done (dev only)"; exit 0
fi

echo "== $(date -u +%H:%M) test and held-out text"
for pair in "student $M" "mean $TASK-mpnet-mean" "old $OLD"; do
  read -r tag model <<< "$pair"
  [ -s "$OUT/$tag-test.json" ] || selfexplain eval --model "$model" --data "$test" --no-progress \
    --predictions "$OUT/$tag-test.jsonl" > "$OUT/$tag-test.json"
done
selfexplain paired-test "$OUT/student-test.jsonl" "$OUT/mean-test.jsonl" | tee "$OUT/mcnemar-vs-mean.txt"
selfexplain paired-test "$OUT/student-test.jsonl" "$OUT/old-test.jsonl" | tee "$OUT/mcnemar-vs-old.txt"
[ -s "$OUT/fidelity-test.txt" ] || selfexplain fidelity --model "$M" --teacher "$TASK-mpnet-mean" --data "$test" \
  --txt labelled > "$OUT/fidelity-test.txt"
[ -s "$OUT/sharp-test$limit/sharpness.csv" ] || selfexplain sharpness --model "$M" --data "$test" "${trees[@]}" \
  --limit "$limit" --out "$OUT/sharp-test$limit" --no-progress
[ -s "$OUT/sharp-heldout/sharpness.csv" ] || selfexplain sharpness --model "$M" --data "$heldout" \
  --out "$OUT/sharp-heldout" --no-progress
[ -s "$OUT/heldout-eval.json" ] || selfexplain eval --model "$M" --data "$heldout" --no-progress > "$OUT/heldout-eval.json"
cat "$OUT/heldout-eval.json"

if [ "$TASK" = sst2 ]; then
  echo "== $(date -u +%H:%M) long movie reviews"
  DATA="$DATA" bash scripts/long_reviews.sh "$M" "$OUT/movies-300-eval.json" "$OUT/plausibility-movies.json"
fi

if [ "$TASK" = snli ]; then
  CARD_DATA=(--dataset stanfordnlp/snli
    --data train "the 8,842 pairs the teacher trained on (SNLI validation.tsv less its last 1,000), gold labels \
dropped, labelled by the teacher snli-mpnet-mean, less the dev and held-out pairs: 7,958 pairs (the teacher's \
word-deletion effects on 3,000 of them)"
    --data dev "442 of the same pairs (agreement with the teacher by epoch; best/ keeps the last, --keep last); \
dev accuracy on gold labels: the last 1,000 pairs of SNLI validation.tsv"
    --data "held out" "442 of the same pairs, never trained on (agreement with the teacher)")
elif [ -n "${SHIP:-}" ]; then  # the card, all that reads these: the texts the run read and its splits
  [ -s "$RUN/distill.json" ] || { echo "$RUN/distill.json is missing: the card's counts come from the run's splits" >&2
    exit 2; }
  counts=$(python -c 'import json, sys
splits = json.load(open(sys.argv[2]))
texts = sum(1 for _ in open(sys.argv[1], encoding="utf-8"))
print("{:,} {:,} {:,}".format(texts, len(splits["train"]), len(splits["dev"])))' "$(dirname "$RUN")/texts.txt" "$RUN/distill.json")
  read -r texts_n train_n split_n <<< "$counts"  # (a file that cannot be read stops the script above)
  texts="the 8,544 SST-5 train sentences"  # or with TEXTS=phrases treebank phrases too
  [ "$texts_n" = 8,544 ] || texts="$texts and treebank phrases of 10 or more words of the train trees ($texts_n texts)"
  CARD_DATA=(--dataset stanfordnlp/sst
    --data train "$texts, gold labels dropped, labelled by the teacher $TASK-mpnet-mean, less the dev and held-out \
texts: $train_n texts (the teacher's word-deletion effects on 3,000 of them)"
    --data dev "$split_n of the same texts (agreement with the teacher by epoch; best/ keeps the last, --keep last); \
dev accuracy on gold labels: $name dev"
    --data "held out" "$split_n of the same texts, never trained on (agreement with the teacher)")
fi
if [ -n "${SHIP:-}" ]; then
  echo "== $(date -u +%H:%M) ship as $TASK-mpnet"
  rm -rf "$OUT/ship" && cp -r "$M" "$OUT/ship"
  python scripts/finish_card.py "$OUT/ship" --name "$TASK-mpnet" --own-model --dev-accuracy "$OUT/dev-eval.json" \
    --baseline "assets/models/$TASK-mpnet-mean" "${CARD_DATA[@]}" \
    --sharpness "$OUT/sharp-test$limit" "$name test, first $limit" --sharpness "$OUT/sharp-heldout" "$heldout_name" \
    "${LIMITATIONS[@]}"
  rm -rf "assets/models/$TASK-mpnet" && cp -r "$OUT/ship" "assets/models/$TASK-mpnet"
  selfexplain eval --model "$TASK-mpnet" --data "$test" --record --no-progress
  python benchmarks/model_speed.py "$TASK-mpnet" --document --record
  du -sh "assets/models/$TASK-mpnet"
fi
echo "== $(date -u +%H:%M) done"
