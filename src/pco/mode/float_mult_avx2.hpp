// Native x86-64 only: the f64 FloatMult join in 256-bit lanes where the CPU has AVX2 (checked
// at run time; the build itself targets SSE4.1). The same steps as FloatMult::join_simd.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/simd.hpp"

#if NUMDECODE_SIMD_SSE && defined(__GNUC__)
#define NUMDECODE_AVX2_DISPATCH 1
namespace numdecode::pco {

bool cpu_has_avx2();
// Stops before the first vector that needs the exact scalar path and returns how many values
// it wrote; the caller finishes the batch.
[[gnu::target("avx2")]] size_t float_mult_f64_avx2(uint64_t base_bits, const uint64_t* p, const uint64_t* s, size_t b, uint64_t* out) noexcept;

}  // namespace numdecode::pco
#endif
