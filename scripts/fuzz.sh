#!/usr/bin/env bash
# Runs the libFuzzer targets (clang, ASan + UBSan) seeded from ../shared/corpus.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
# New inputs found go to build-fuzz/corpus-<target>/ (git-ignored); crashes to build-fuzz/crashes/.
# Exits non-zero if any target crashed, leaked or hung.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
dir=build-fuzz
# (Re)configure each time: new targets in tests/fuzz/ must be known before they are named.
# NUMDECODE_FUZZ_NO_BUILD=1 runs already-built targets (several runs in parallel).
if [ -z "${NUMDECODE_FUZZ_NO_BUILD:-}" ]; then
  CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUMDECODE_FUZZ=ON -DNUMDECODE_BENCH=OFF >/dev/null || exit 1
fi
mapfile -t all < <(ls tests/fuzz/*.cpp | xargs -n1 basename | sed 's/\.cpp$//')
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
if [ -z "${NUMDECODE_FUZZ_NO_BUILD:-}" ]; then
  cmake --build "$dir" -j"${NUMDECODE_JOBS:-2}" --target "${targets[@]}" || exit 1
fi

# Seeds: the corpus files of the target's format (valid and corrupt).
seeds_for() {
  case "$1" in
    *pco*) echo ../shared/corpus/pco ../shared/corpus/pco/corrupt ;;
    *alp*) echo ../shared/corpus/alp ../shared/corpus/alp/corrupt ;;
    *bpcells*) find ../shared/corpus/bpcells -type d -name matrix | head -n 40 ;;
  esac
}

mkdir -p "$dir/crashes"
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus-$t"
  echo "==== $t: ${seconds}s"
  # shellcheck disable=SC2046
  if ! "$dir/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${NUMDECODE_FUZZ_MAX_LEN:-65536}" \
      -artifact_prefix="$dir/crashes/$t-" -print_final_stats=1 "$dir/corpus-$t" $(seeds_for "$t") \
      2>"$dir/$t.log"; then
    failed+=("$t")
    tail -n 40 "$dir/$t.log"
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$dir/$t.log" | sed "s/^/  $t /"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets clean"
