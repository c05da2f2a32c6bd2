#!/usr/bin/env bash
# Runs the kernel benchmarks natively and as wasm under node, the attend() timing in node, the lab's training step (bench/lab.mjs),
# package sizes, attnscope against TF.js and plain JS (bench/attention-node.mjs) the demo page in headless Chromium (keystroke → plots redrawn) and the model page (file dropped → grid drawn); records them as JSON under bench/results/ (one current file per benchmark) and rewrites every table the docs generate from them (bench/tables.mjs).   scripts/bench.sh [--quick]
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ATTNSCOPE_ROOT"
bash scripts/build.sh >/dev/null
mkdir -p bench/results
./build/native/bench/attnscope_bench "$@" > build/bench-native.json
# --no-liftoff: V8 never tiers up a hot loop inside a function that is called once (the peak
# microbenchmark inlined into main would stay in the ~3x slower baseline code): compile with the
# optimizing tier from the start, the steady state a long-running page reaches.
node --no-experimental-fetch --no-liftoff build/wasm/bench/attnscope_bench.js "$@" > build/bench-wasm.json
node bench/attend-node.mjs > bench/results/attend-node.json
node bench/attention-node.mjs "$@" > bench/results/attention-node.json
node bench/dist-sizes.mjs > bench/results/dist-sizes.json
node bench/page.mjs "$@" > bench/results/page.json
node bench/page-scale.mjs "$@" > bench/results/page-scale.json   # long documents (issue 11)
node bench/paste.mjs "$@" > bench/results/paste.json   # a 2,000-word paste against a 7-token key sentence: long tasks and where their time goes (docs/benchmarks.md)
node bench/limits.mjs > bench/results/limits.json   # the largest accepted calls and refusals (docs/limits.md)
node bench/flow.mjs > bench/results/flow.json   # attention flow beside rollout (docs/flow.md)
node bench/model-page.mjs > bench/results/model-page.json   # the demo with the trained model: keystroke → every layer and head redrawn (docs/demo.md)
node bench/lab.mjs "$@" > /dev/null   # writes bench/results/lab.json: ms per training step, held-out accuracy per score and task (docs/benchmarks.md, "The lab")
node bench/lab-compare.mjs > /dev/null   # writes bench/results/lab-compare.json: the lab's Compare (every score, per rule and per seed; docs/benchmarks.md, "The lab")
node bench/lab-page.mjs > bench/results/lab-page.json   # the lab page in Chromium: click Train to 500 steps, a full Compare, longest main-thread task
node bench/lab-prototypes.mjs "$@" > /dev/null   # writes bench/results/lab-prototypes.json: lab part 3: ms per step, the comparison per score and data set, the page's longest task
node bench/element.mjs   # writes bench/results/element.json: load to first figure from file://, file size
node bench/model.mjs "$@" > bench/results/model.json   # the model page: 12x12x512 file dropped -> grid drawn
node bench/use-lite.mjs "$@" > bench/results/use-lite.json   # the trained model: encode() vs TF.js-wasm on the original graph
node scripts/bench-report.mjs build/bench-native.json build/bench-wasm.json   # native.json, wasm-node.json, then every generated table (bench/tables.mjs)
echo "bench: results in bench/results/ (attend() in node: $(node -e "const r=JSON.parse(require('fs').readFileSync('bench/results/attend-node.json'));console.log(r.results[0].median_ms+' ms median')"))"
