#!/usr/bin/env bash
# `npm run bench`: builds the native benchmark and both wasm modules, then runs bench/run.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
{ [ -f build-native/CMakeCache.txt ] || cmake -S . -B build-native -DCMAKE_BUILD_TYPE=Release >/dev/null; }
cmake --build build-native -j"${NUMDECODE_JOBS:-2}" --target native_bench
bash scripts/build-wasm.sh >/dev/null
node bench/run.mjs
node bench/pco-reference.mjs
node bench/pco-encode.mjs
node bench/bpcells-read.mjs
node bench/bpcells-fetch.mjs
node bench/bpcells-hdf5-fetch.mjs
node bench/bpcells-hdf5-fetch.mjs --concurrency 6 # as a browser sends the requests
node bench/zarr-read.mjs
node bench/zarr-http.mjs
# The same store in Chromium against fizarrita's getWorker: skipped without Chromium, or with NUMDECODE_BENCH_BROWSER=0.
[ "${NUMDECODE_BENCH_BROWSER:-1}" = 0 ] || node bench/zarr-browser.mjs
node bench/parquet-bench.mjs
node bench/memory.mjs
node bench/size-report.mjs
