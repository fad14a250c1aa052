// The ALP hot loop: unpack bit_width-bit deltas (LSB-first stream), add the frame of reference
// (wrapping), reinterpret as signed, convert to T and multiply by 10^f then by 10^-e, in T.
//
// Each kernel has a scalar twin; the SIMD kernel handles whole groups of 8 values and hands the rest
// to the scalar one. Kernels may read past the packed section (never past `readable_end`): the
// caller passes the end of the page, and the bytes past the packed data are masked away.
#pragma once
#include <cstddef>
#include <cstdint>

namespace numdecode::alp::kernels {

// out[i] = (float)(int32_t)(unpack(i) + frame) * pow10_factor * pow10_neg_exponent, for i < n.
void decode_f32_scalar(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                       uint32_t frame, float pow10_factor, float pow10_neg_exponent, float* out);
void decode_f32_simd(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                     uint32_t frame, float pow10_factor, float pow10_neg_exponent, float* out);

void decode_f64_scalar(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                       uint64_t frame, double pow10_factor, double pow10_neg_exponent, double* out);
void decode_f64_simd(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                     uint64_t frame, double pow10_factor, double pow10_neg_exponent, double* out);

// The largest of `count` little-endian u16 at p (exception positions), 0 when count is 0.
unsigned max_u16(const uint8_t* p, size_t count);

// out[position j] = exception value j for j in order (a repeated position keeps the last value),
// copied as raw bytes (NaN payloads kept). The caller has checked every position (max_u16).
template <class T>
void patch_exceptions(T* out, const uint8_t* positions, const uint8_t* values, size_t count);

}  // namespace numdecode::alp::kernels
