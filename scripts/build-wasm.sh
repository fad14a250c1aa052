#!/usr/bin/env bash
# Builds the WebAssembly modules into dist/: one per format (pco, alp, bpcells, and the Pco encoder
# pco-encode), each in two builds,
# numdecode-<format>-simd.{mjs,wasm} (SIMD128 kernels) and numdecode-<format>-scalar.{mjs,wasm} (for
# engines without SIMD). CMake skips what is up to date.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emscripten runs its JS tools with the system node and needs Debian's node modules (acorn).
export NODE_PATH=/usr/share/nodejs
jobs=${NUMDECODE_JOBS:-2}

build() {
  local dir=$1
  shift
  # Configure once; later runs let the build re-run cmake itself when CMakeLists or the globs change.
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@"
  fi
  cmake --build "$dir" -j"$jobs"
}

build build-wasm-simd -DNUMDECODE_SCALAR=OFF
build build-wasm-scalar -DNUMDECODE_SCALAR=ON
ls -l dist/numdecode-{pco,alp,bpcells,pco-encode}-{simd,scalar}.{mjs,wasm}
