#!/usr/bin/env bash
# Runs the kernel benchmarks natively and as wasm under node, records them as JSON under
# bench/results/ and rewrites the benchmark table in README.md.   scripts/bench.sh [--quick]
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ATTNSCOPE_ROOT"
bash scripts/build.sh >/dev/null
mkdir -p bench/results
./build/native/bench/attnscope_bench "$@" > build/bench-native.json
node --no-experimental-fetch build/wasm/bench/attnscope_bench.js "$@" > build/bench-wasm.json
node scripts/bench-report.mjs build/bench-native.json build/bench-wasm.json
