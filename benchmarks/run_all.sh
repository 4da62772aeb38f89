#!/usr/bin/env bash
# Runs every benchmark and writes its JSON under benchmarks/results/ (or $BENCH_OUT), printing how long
# each took: issue 5's four benchmarks take about 5 minutes on 2 cores, all of them about 7.
# Usage: bash benchmarks/run_all.sh [SST5_TRAIN_FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/sst5/train.txt}
OUT=${BENCH_OUT:-benchmarks/results}
mkdir -p "$OUT"
step() {  # step NAME COMMAND...: run it and say how long it took
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "== $name: $((SECONDS - start)) s (total $SECONDS s)"
}
step forward_overhead python benchmarks/forward_overhead.py --repeats 7 --json "$OUT/forward_overhead.json"
step span_layer python benchmarks/span_layer.py --repeats 5 --json "$OUT/span_layer.json"
step long_inputs python benchmarks/long_inputs.py --json "$OUT/long_inputs.json"
step long_inputs_native python benchmarks/long_inputs.py --fused --json "$OUT/long_inputs_fused.json"
step training_throughput python benchmarks/training_throughput.py --data "$DATA" --steps 8 --json "$OUT/training_throughput.json"
step app_latency python benchmarks/app_latency.py --repeats 10 --json "$OUT/app_latency.json"
step batch sh -c "python -m selfexplain.batch.benchmark --data '$(dirname "$DATA")/test.txt' > '$OUT/batch.json'"
