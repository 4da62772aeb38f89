# Sourced by scripts/mpnet_student_measure.sh and scripts/student_seeds.sh, with TASK, DATA and OUT set: the
# task's data files (test, dev, their SST phrase trees as --trees arguments, the held-out text and how the
# card names it, the task's name, how many test inputs the alpha measures read, and dev_limit: how many dev
# inputs the selection rule's alpha figures read, DEV_LIMIT to override); an unknown task is refused before
# anything is written. Makes OUT.
test="$DATA/$TASK/test.txt"; dev="$DATA/$TASK/dev.txt"; limit=300
dev_limit=${DEV_LIMIT:-300}
case $TASK in
  sst2)  # no phrase trees for the binary sentences; the held-out reviews without their neutral ones, as two classes
    name=SST-2; trees=(); dev_trees=()
    dev_limit=${DEV_LIMIT:-872}  # all of SST-2 dev (the rule's fifth amendment; 300 before it)
    heldout="$OUT/reviews-binary.txt"; heldout_name="32 held-out reviews, two classes (assets/heldout)" ;;
  sst5)
    name=SST-5; trees=(--trees "$DATA/sst_trees/test.txt"); dev_trees=(--trees "$DATA/sst_trees/dev.txt")
    heldout=assets/heldout/reviews.txt; heldout_name="40 held-out reviews (assets/heldout)" ;;
  snli)  # SNLI has no train split here: the models trained on validation.tsv less its last 1,000 pairs (dev)
    name=SNLI; trees=(); dev_trees=(); test="$DATA/snli/test.tsv"; dev="$OUT/snli-dev.tsv"; limit=1000
    heldout=assets/heldout/pairs.tsv; heldout_name="24 held-out pairs (assets/heldout)" ;;
  *) echo "unknown task $TASK (sst2, sst5 or snli)" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
if [ "$TASK" = sst2 ]; then bash scripts/heldout_binary.sh "$heldout"; fi
if [ "$TASK" = snli ]; then { head -n 1 "$DATA/snli/validation.tsv"; tail -n 1000 "$DATA/snli/validation.tsv"; } > "$dev"; fi
