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

#include <cstdint>

namespace numdecode {
// True when this build's kernels use vector instructions; reported by the JS API.
constexpr bool kSimdBuild = NUMDECODE_SIMD != 0;
}  // namespace numdecode

#if NUMDECODE_SIMD
namespace numdecode::simd {
// x, through a value the compiler cannot see: vector constants made from it stay in registers.
// V8 re-creates every v128.const in each loop step that uses it (several instructions each);
// a vector built once from a runtime value is kept in a register instead. (x & an opaque all-ones,
// not x stored and loaded back: clang 14 turns a splat of a volatile load into a load-splat and
// moves it past later stores, so that every constant read the last one stored.)
inline volatile uint64_t g_all_ones64 = ~uint64_t{0};
inline uint64_t opaque(uint64_t x) { return x & g_all_ones64; }
}  // namespace numdecode::simd

// A thin 128-bit layer for kernels written once for both targets (only what they use).
namespace numdecode::simd {
#if NUMDECODE_SIMD_WASM
using V = v128_t;
inline V load(const void* p) { return wasm_v128_load(p); }
inline void store(void* p, V v) { wasm_v128_store(p, v); }
inline V splat64(uint64_t x) { return wasm_i64x2_splat(int64_t(x)); }
inline V splat32(uint32_t x) { return wasm_i32x4_splat(int32_t(x)); }
inline V and_(V a, V b) { return wasm_v128_and(a, b); }
inline V or_(V a, V b) { return wasm_v128_or(a, b); }
inline V xor_(V a, V b) { return wasm_v128_xor(a, b); }
inline V add64(V a, V b) { return wasm_i64x2_add(a, b); }
inline V add32(V a, V b) { return wasm_i32x4_add(a, b); }
// All ones where the top bit is set: the high halves' 32-bit sign masks, copied down. V8
// emulates i64x2.shr_s in six instructions, and clang turns an i64x2 compare with 0 into one.
inline V sign_mask64(V a) {
  const V high = wasm_i32x4_shr(a, 31);
  return wasm_i32x4_shuffle(high, high, 1, 1, 3, 3);
}
inline V sign_mask32(V a) { return wasm_i32x4_shr(a, 31); }
inline bool any_bits(V a) { return wasm_v128_any_true(a); }
inline V sub_f64(V a, V b) { return wasm_f64x2_sub(a, b); }
inline V mul_f64(V a, V b) { return wasm_f64x2_mul(a, b); }
inline V mul_f32(V a, V b) { return wasm_f32x4_mul(a, b); }
inline V i32_to_f32(V a) { return wasm_f32x4_convert_i32x4(a); }
#else
using V = __m128i;
inline V load(const void* p) { return _mm_loadu_si128(static_cast<const V*>(p)); }
inline void store(void* p, V v) { _mm_storeu_si128(static_cast<V*>(p), v); }
inline V splat64(uint64_t x) { return _mm_set1_epi64x(int64_t(x)); }
inline V splat32(uint32_t x) { return _mm_set1_epi32(int32_t(x)); }
inline V and_(V a, V b) { return _mm_and_si128(a, b); }
inline V or_(V a, V b) { return _mm_or_si128(a, b); }
inline V xor_(V a, V b) { return _mm_xor_si128(a, b); }
inline V add64(V a, V b) { return _mm_add_epi64(a, b); }
inline V add32(V a, V b) { return _mm_add_epi32(a, b); }
// SSE has no 64-bit arithmetic shift: spread each lane's high 32-bit sign over the lane.
inline V sign_mask64(V a) { return _mm_shuffle_epi32(_mm_srai_epi32(a, 31), _MM_SHUFFLE(3, 3, 1, 1)); }
inline V sign_mask32(V a) { return _mm_srai_epi32(a, 31); }
inline bool any_bits(V a) { return !_mm_testz_si128(a, a); }
inline V sub_f64(V a, V b) { return _mm_castpd_si128(_mm_sub_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b))); }
inline V mul_f64(V a, V b) { return _mm_castpd_si128(_mm_mul_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b))); }
inline V mul_f32(V a, V b) { return _mm_castps_si128(_mm_mul_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b))); }
inline V i32_to_f32(V a) { return _mm_castps_si128(_mm_cvtepi32_ps(a)); }
#endif
}  // namespace numdecode::simd
#endif
