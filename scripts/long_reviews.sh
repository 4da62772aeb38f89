#!/usr/bin/env bash
# A binary model on the long movie reviews of ../shared/data/movie_rationales: its accuracy on 300 of them
# (the 100 test reviews with marked words and 200 without) and, on the 100 with marked words, the average
# precision of its word ranking against the marked words, beside a random ranking (selfexplain
# plausibility). Each figure is measured once: an existing output file is kept.
#   bash scripts/long_reviews.sh MODEL EVAL_JSON PLAUSIBILITY_JSON
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bash scripts/long_reviews.sh MODEL EVAL_JSON PLAUSIBILITY_JSON"
MODEL=${1:?$usage} EVAL=${2:?$usage} PLAUSIBILITY=${3:?$usage}
DATA=${DATA:-../shared/data}
if [ ! -s runs/movies/movies-300.jsonl ]; then
  selfexplain rationales "$DATA/movie_rationales" --out runs/movies
  cat runs/movies/movies-test.jsonl runs/movies/movies-unannotated.jsonl > runs/movies/movies-300.jsonl
fi
[ -s "$EVAL" ] || selfexplain eval --model "$MODEL" --data runs/movies/movies-300.jsonl --no-progress > "$EVAL"
cat "$EVAL"
[ -s "$PLAUSIBILITY" ] || selfexplain plausibility --model "$MODEL" --data runs/movies/movies-test.jsonl \
  --no-progress --out "$PLAUSIBILITY" | tail -n 12
