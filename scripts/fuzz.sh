#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with Debian's clang under AddressSanitizer + UBSan and
# runs each for a bounded time, starting from the committed seed corpora (tests/fuzz/corpus/NAME).
#   scripts/fuzz.sh                      every target, ATTNSCOPE_FUZZ_SECONDS (default 15) each
#   ATTNSCOPE_FUZZ_SECONDS=3600 scripts/fuzz.sh scores     one target for an hour
# New interesting inputs go to build/fuzz/corpus/NAME (not committed); a crash is saved under
# build/fuzz/artifacts/ and fails the run. Prints, per target, the inputs executed.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$ATTNSCOPE_ROOT"
seconds="${ATTNSCOPE_FUZZ_SECONDS:-15}"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(tokenizer vocab scores imported trainer model flow transformer)

command -v clang++ >/dev/null || { echo "fuzz: clang++ missing (scripts/bootstrap.sh installs it)" >&2; exit 1; }
if [ ! -f build/fuzz/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_SANITIZE=ON \
    -DATTNSCOPE_FUZZ=ON -DATTNSCOPE_TESTS=OFF -DATTNSCOPE_BENCH=OFF >/dev/null || exit 1
fi
cmake --build build/fuzz -j"$ATTNSCOPE_JOBS" >/dev/null || { echo "fuzz: build failed" >&2; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
mkdir -p build/fuzz/artifacts
for t in "${targets[@]}"; do
  mkdir -p "build/fuzz/corpus/$t"
  log="build/fuzz/$t.log"
  # -max_len: the vocabulary seeds are ~200-byte files; the others need far less.
  ./build/fuzz/tests/fuzz/"fuzz_$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
    "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc = 0 ]; then
    echo "fuzz $t: ${runs:-?} inputs in ${seconds}s, ${cov:-cov: ?}, no crash"
  else
    echo "fuzz $t: FAILED after ${runs:-?} inputs (exit $rc); log $log, input in build/fuzz/artifacts/"
    grep -m5 -E 'ERROR|runtime error|deadly signal|SUMMARY' "$log"
    status=1
  fi
done
exit $status
