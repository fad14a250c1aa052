// One switch for the SIMD kernels: wasm SIMD128 in the browser build, SSE4.1 natively.
// Every kernel keeps a plain scalar twin; NUMDECODE_SCALAR forces the scalar path
// (the wasm "scalar" build and the tests that compare the two use it).
#pragma once

#if defined(NUMDECODE_SCALAR)
#define NUMDECODE_SIMD 0
#elif defined(__wasm_simd128__)
#define NUMDECODE_SIMD 1
#define NUMDECODE_SIMD_WASM 1
#include <wasm_simd128.h>
#elif defined(__SSE4_1__)
#define NUMDECODE_SIMD 1
#define NUMDECODE_SIMD_SSE 1
#include <smmintrin.h>
#else
#define NUMDECODE_SIMD 0
#endif

namespace numdecode {
// True when this build's kernels use vector instructions; reported by the JS API.
constexpr bool kSimdBuild = NUMDECODE_SIMD != 0;
}  // namespace numdecode
