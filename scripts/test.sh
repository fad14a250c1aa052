#!/usr/bin/env bash
# `npm test`: every check the project has, in one run.
#   1. native build + ctest (GoogleTest)
#   2. AddressSanitizer + UBSan build of native_tests, run directly
#   3. both WebAssembly builds (SIMD and scalar)
#   4. TypeScript check of the .d.ts files
#   5. Jest (JS API, CLI, static server) against both wasm builds
#   6. a short libFuzzer run of every fuzz target
# A failing step does not stop the later ones that do not depend on it. Ends with a summary and
# exits non-zero if anything failed.
# Environment: NUMDECODE_SKIP_ASAN=1 skips step 2 and NUMDECODE_SKIP_FUZZ=1 step 6 (quicker local
# runs); NUMDECODE_FUZZ_SECONDS (default 60 per target); NUMDECODE_JOBS (default 2).
set -uo pipefail
cd "$(dirname "$0")/.."
# A fresh machine needs nothing but this command: install what is missing (a no-op when present).
bash scripts/setup.sh || { echo "setup failed: see above" >&2; exit 1; }
export NODE_PATH=/usr/share/nodejs
jobs=${NUMDECODE_JOBS:-2}
mkdir -p test-output

names=() statuses=() details=()
total_passed=0 total_failed=0

record() { # name status detail
  names+=("$1") statuses+=("$2") details+=("${3:-}")
}
banner() { printf '\n==== %s ====\n' "$*"; }

# Adds one step's test counts to the totals; a step that failed without counting tests counts as one failure.
count() { # status passed failed
  total_passed=$((total_passed + $2))
  if [ "$1" = FAILED ] && [ "$3" -eq 0 ]; then
    total_failed=$((total_failed + 1))
  else
    total_failed=$((total_failed + $3))
  fi
}

configure_and_build() { # dir target cmake-args...
  local dir=$1 target=$2
  shift 2
  { [ -f "$dir/CMakeCache.txt" ] || cmake -S . -B "$dir" "$@"; } && cmake --build "$dir" -j"$jobs" --target "$target"
}

# ---- 1. native ----
banner "native build (build-native)"
if configure_and_build build-native all -DCMAKE_BUILD_TYPE=Release; then
  record "native build" ok
  banner "native tests (ctest)"
  ctest --test-dir build-native --output-on-failure -j"$jobs" 2>&1 | tee test-output/ctest.log
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^[0-9]+% tests passed' test-output/ctest.log | tail -n1)
  ran=$(sed -nE 's/.* out of ([0-9]+)$/\1/p' <<<"$line")
  failed=$(sed -nE 's/.*passed, ([0-9]+) tests? failed.*/\1/p' <<<"$line")
  ran=${ran:-0} failed=${failed:-0}
  status=ok
  { [ "$rc" -ne 0 ] || [ "$ran" -eq 0 ]; } && status=FAILED
  record "native tests (ctest)" "$status" "$((ran - failed)) passed, $failed failed"
  count "$status" $((ran - failed)) "$failed"
else
  record "native build" FAILED
  record "native tests (ctest)" skipped "build failed"
  count FAILED 0 0
fi

# ---- 2. sanitizers ----
if [ "${NUMDECODE_SKIP_ASAN:-0}" = 1 ]; then
  record "asan+ubsan tests" skipped "NUMDECODE_SKIP_ASAN=1"
else
  banner "sanitizer build (build-asan)"
  if configure_and_build build-asan native_tests -DNUMDECODE_SANITIZE=ON -DNUMDECODE_BENCH=OFF; then
    banner "sanitizer tests"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      build-asan/native_tests --gtest_brief=1 2>&1 | tee test-output/asan.log
    rc=${PIPESTATUS[0]}
    passed=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' test-output/asan.log | tail -n1)
    failed=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?, listed below.*/\1/p' test-output/asan.log | tail -n1)
    passed=${passed:-0} failed=${failed:-0}
    status=ok
    { [ "$rc" -ne 0 ] || [ "$passed" -eq 0 ]; } && status=FAILED
    record "asan+ubsan tests" "$status" "$passed passed, $failed failed"
    count "$status" "$passed" "$failed"
  else
    record "asan+ubsan tests" FAILED "build failed"
    count FAILED 0 0
  fi
fi

# ---- 3. wasm ----
banner "wasm builds"
if bash scripts/build-wasm.sh; then
  record "wasm builds" ok
  wasm_ok=1
else
  record "wasm builds" FAILED
  count FAILED 0 0
  wasm_ok=0
fi

# ---- 4. types ----
banner "TypeScript check"
if npx --no-install tsc -p tests/types && npx --no-install tsc -p tests/types/tsconfig.zarrita.json; then
  record "typescript check" ok
else
  record "typescript check" FAILED
  count FAILED 0 0
fi

# ---- 5. jest ----
if [ "$wasm_ok" = 1 ]; then
  banner "jest"
  rm -f test-output/jest.json
  NODE_OPTIONS=--experimental-vm-modules npx --no-install jest --json --outputFile=test-output/jest.json
  rc=$?
  read -r passed failed < <(node -e '
    try { const r = require("./test-output/jest.json"); console.log(r.numPassedTests, r.numFailedTests + r.numRuntimeErrorTestSuites); }
    catch { console.log("0 0"); }')
  status=ok
  { [ "$rc" -ne 0 ] || [ "$passed" -eq 0 ]; } && status=FAILED
  record "jest" "$status" "$passed passed, $failed failed"
  count "$status" "$passed" "$failed"
else
  record "jest" skipped "wasm build failed"
fi

# ---- 6. fuzz smoke ----
# Every libFuzzer target runs briefly (ASan + UBSan) from the corpus seeds: a crash, leak,
# hang or sanitizer report fails the run. Long runs: scripts/fuzz.sh SECONDS.
if [ "${NUMDECODE_SKIP_FUZZ:-0}" = 1 ]; then
  record "fuzz smoke" skipped "NUMDECODE_SKIP_FUZZ=1"
elif ! command -v clang++ >/dev/null 2>&1; then
  record "fuzz smoke" FAILED "clang++ missing (scripts/setup.sh installs it)"
  count FAILED 0 0
else
  banner "fuzz smoke (${NUMDECODE_FUZZ_SECONDS:-60} s per target)"
  n_targets=$(ls tests/fuzz/*.cpp | wc -l)
  if bash scripts/fuzz.sh "${NUMDECODE_FUZZ_SECONDS:-60}" 2>&1 | tee test-output/fuzz.log; then
    record "fuzz smoke" ok "$n_targets targets clean"
    count ok "$n_targets" 0
  else
    record "fuzz smoke" FAILED "see test-output/fuzz.log"
    count FAILED 0 0
  fi
fi

# ---- summary ----
banner "numdecode test summary"
overall=0
for i in "${!names[@]}"; do
  printf '  %-24s %-8s %s\n' "${names[$i]}" "${statuses[$i]}" "${details[$i]}"
  [ "${statuses[$i]}" = FAILED ] && overall=1
done
if [ "$overall" = 0 ]; then echo "  result: PASS"; else echo "  result: FAIL"; fi
echo "total: $total_passed passed, $total_failed failed"
exit "$overall"
