#!/usr/bin/env bash
# The held-out reviews (assets/heldout/reviews.txt, SST-5 labels 0-4) as two classes for the binary models:
# the neutral ones (2) dropped, 0-1 negative (0), 3-4 positive (1). Usage: bash scripts/heldout_binary.sh DEST
set -euo pipefail
cd "$(dirname "$0")/.."
awk '$1 != 2 { print ($1 > 2 ? 1 : 0), substr($0, 3) }' assets/heldout/reviews.txt > "${1:?usage: bash scripts/heldout_binary.sh DEST}"
