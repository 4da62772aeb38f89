#!/usr/bin/env bash
# Runs every benchmark and writes its JSON under benchmarks/results/ (about 10 minutes on 2 cores).
# Usage: bash benchmarks/run_all.sh [SST5_TRAIN_FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/sst5/train.txt}
OUT=benchmarks/results
mkdir -p "$OUT"
python benchmarks/forward_overhead.py --repeats 5 --json "$OUT/forward_overhead.json"
python benchmarks/span_layer.py --repeats 3 --json "$OUT/span_layer.json"
python benchmarks/long_inputs.py --json "$OUT/long_inputs.json"
python benchmarks/long_inputs.py --fused --json "$OUT/long_inputs_fused.json"
python benchmarks/training_throughput.py --data "$DATA" --steps 8 --json "$OUT/training_throughput.json"
python benchmarks/app_latency.py --repeats 10 --json "$OUT/app_latency.json"
python -m selfexplain.batch.benchmark --data "$(dirname "$DATA")/test.txt" > "$OUT/batch.json"
