# Sourced by scripts/mpnet_student_measure.sh and scripts/student_seeds.sh, with TASK, DATA and OUT set: the
# task's data files (test, dev, their SST phrase trees as --trees arguments, the held-out reviews and how the
# card names them, the task's name); an unknown task is refused before anything is written. Makes OUT.
test="$DATA/$TASK/test.txt"; dev="$DATA/$TASK/dev.txt"
case $TASK in
  sst2)  # no phrase trees for the binary sentences; the held-out reviews without their neutral ones, as two classes
    name=SST-2; trees=(); dev_trees=()
    heldout="$OUT/reviews-binary.txt"; heldout_name="32 held-out reviews, two classes (assets/heldout)" ;;
  sst5)
    name=SST-5; trees=(--trees "$DATA/sst_trees/test.txt"); dev_trees=(--trees "$DATA/sst_trees/dev.txt")
    heldout=assets/heldout/reviews.txt; heldout_name="40 held-out reviews (assets/heldout)" ;;
  *) echo "unknown task $TASK (sst2 or sst5)" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
[ "$TASK" = sst5 ] || bash scripts/heldout_binary.sh "$heldout"
