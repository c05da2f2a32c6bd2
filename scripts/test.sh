#!/usr/bin/env bash
# Runs every test suite: the Catch2 suite natively under AddressSanitizer + UBSan and as wasm under node
# (CTest), the fuzzers, the JS API tests (node:test) and the browser tests. Prints each suite's wall
# time (the whole run should stay under 15 minutes on 2 cores) and one closing line: "suites: N passed,
# N failed".
#
# What ships is the wasm build, and its suite runs at -O3 (ctest in build/wasm). Natively the suite runs
# once, instrumented: the same test cases at -O1 under the sanitizers, which also catch the undefined
# behaviour an optimised build would only sometimes show. The native Release build (for the native
# benchmarks: npm run bench) is not built here; `bash scripts/build.sh native && ctest --test-dir
# build/native` runs the suite on it (about a minute to build).
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$ATTNSCOPE_ROOT"
start=$SECONDS
bash scripts/build.sh web || { echo "tests: 0 passed, 1 failed"; exit 1; }
echo "=== build: $((SECONDS - start)) s"

passed=0; failed=0
run() {  # run NAME COMMAND...
  local name="$1"; shift
  echo "=== $name"
  local t0=$SECONDS
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "!!! $name failed"; fi
  echo "=== $name: $((SECONDS - t0)) s"
}
# The Catch2 suite under AddressSanitizer + UBSan: the vocabulary loader's damaged-file tests must
# not over-read, and no kernel may touch memory outside its matrices. Every test case runs here, the
# float64 finite-difference sweeps included: the whole run takes ~40 s of CPU, those sweeps under 2 s
# of it. The time went into building it: at -O2 -g, GCC spent ~730 s of CPU on this build, 161 s of
# them on catch_main.cpp (Catch2's own implementation). So it is built at -O1 (the level the
# sanitizers' documentation recommends) with line tables only (-g1: reports still give file:line),
# and catch_main.cpp is not instrumented (tests/cpp/CMakeLists.txt): ~230 s of CPU, and the run takes
# as long as before. Configured on every run (quick) so that an older build/asan takes the flags.
asan_build() {
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_BENCH=OFF >/dev/null &&
    cmake --build build/asan -j"$ATTNSCOPE_JOBS" --target attnscope_tests >/dev/null
}
asan() {
  [ "$asan_built" = 1 ] || { echo "the ASan build failed (above)"; return 1; }
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ./build/asan/tests/cpp/attnscope_tests
}
echo "=== C++ suite under AddressSanitizer + UBSan: build"
asan_t0=$SECONDS
asan_built=0
asan_build && asan_built=1
echo "=== C++ suite under AddressSanitizer + UBSan: build: $((SECONDS - asan_t0)) s"

# libFuzzer (clang, ASan + UBSan): tokenizer, vocabulary loader, scores + softmax, from the committed
# seed corpora, ATTNSCOPE_FUZZ_SECONDS (default 15) per target. Longer runs: docs/limits.md, "Fuzzing".
# (15 s: eight targets now, and the fuzz stage should end about when the JS tests do, or they share a core.)
# Fuzzing runs for a fixed time on one core, so it runs in the background while the suites that
# mostly keep one core busy (the ASan run, CTest wasm, the JS API tests) run in the
# foreground. Its output is printed, and its result counted, when it ends: before the browser tests,
# which get both cores to themselves.
fuzz_name="fuzz (libFuzzer + ASan + UBSan, ${ATTNSCOPE_FUZZ_SECONDS:-15} s per target)"
fuzz_log="$(mktemp)"
fuzz_t0=$SECONDS
bash scripts/fuzz.sh >"$fuzz_log" 2>&1 &
fuzz_pid=$!
trap '[ -z "$fuzz_pid" ] || kill "$fuzz_pid" 2>/dev/null' EXIT   # an interrupted run leaves no fuzzer behind
echo "=== $fuzz_name: started in the background"

run "C++ suite, native under AddressSanitizer + UBSan" asan
run "C++ suite, wasm under node (ctest)" ctest --test-dir build/wasm --output-on-failure
if compgen -G "tests/js/*.test.mjs" >/dev/null; then
  run "JS API (node:test)" node --test tests/js/
fi

echo "=== $fuzz_name"
wait "$fuzz_pid"
fuzz_rc=$?
fuzz_pid=""
cat "$fuzz_log"
rm -f "$fuzz_log"
if [ "$fuzz_rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "!!! $fuzz_name failed"; fi
echo "=== $fuzz_name: $((SECONDS - fuzz_t0)) s (in the background)"

# Two test files at a time: one file leaves a core idle about a third of the time (waiting on pages,
# workers and the server), and two take 30% less wall time (283 s against 401 s, the same 201 tests,
# on this 2-core machine). Each file has its own Chromium; no test times anything.
if compgen -G "tests/e2e/*.test.mjs" >/dev/null; then
  run "browser (playwright-core + chromium)" node --test --test-concurrency=2 tests/e2e/
fi
echo "suites: $passed passed, $failed failed ($((SECONDS - start)) s in all)"
[ "$failed" = 0 ]
