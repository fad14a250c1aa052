#include "alp/alp_kernels.hpp"

#include <algorithm>
#include <cstring>

#include "core/bytes.hpp"
#include "core/simd.hpp"

namespace numdecode::alp::kernels {
namespace {

// 8 bytes at p, zero-filled past `end` (only the last few values of a page need this).
inline uint64_t load_word_safe(const uint8_t* p, const uint8_t* end) {
  if (end - p >= 8) return load_le<uint64_t>(p);
  uint64_t w = 0;
  if (p < end) std::memcpy(&w, p, static_cast<size_t>(end - p));
  return w;
}

inline uint64_t low_mask(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

inline float scale_f32(uint32_t delta, uint32_t frame, float pow10_factor, float pow10_neg_exponent) {
  // Wrapping add, then the reference's float math: each product rounded to float, left to right.
  const float encoded = static_cast<float>(static_cast<int32_t>(delta + frame));
  return (encoded * pow10_factor) * pow10_neg_exponent;
}

inline double scale_f64(uint64_t delta, uint64_t frame, double pow10_factor, double pow10_neg_exponent) {
  const double encoded = static_cast<double>(static_cast<int64_t>(delta + frame));
  return (encoded * pow10_factor) * pow10_neg_exponent;
}

}  // namespace

void decode_f32_scalar(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                       uint32_t frame, float pow10_factor, float pow10_neg_exponent, float* out) {
  if (bit_width == 0) {
    std::fill(out, out + n, scale_f32(0, frame, pow10_factor, pow10_neg_exponent));
    return;
  }
  const size_t avail = static_cast<size_t>(readable_end - packed);
  const uint64_t mask = low_mask(bit_width);
  // Value i lives in the 64-bit word at byte (i*bw)/8, shifted by at most 7: 57 bits >= 32.
  // Values whose whole word lies inside the readable bytes take the unchecked load.
  const size_t fast_n = avail >= 8 ? std::min(n, (avail - 8) * 8 / bit_width + 1) : 0;
  size_t i = 0;
  uint64_t bit = 0;
  for (; i < fast_n; ++i, bit += bit_width) {
    const uint64_t word = load_le<uint64_t>(packed + (bit >> 3));
    out[i] = scale_f32(static_cast<uint32_t>((word >> (bit & 7)) & mask), frame, pow10_factor,
                       pow10_neg_exponent);
  }
  for (; i < n; ++i, bit += bit_width) {
    const uint64_t word = load_word_safe(packed + (bit >> 3), readable_end);
    out[i] = scale_f32(static_cast<uint32_t>((word >> (bit & 7)) & mask), frame, pow10_factor,
                       pow10_neg_exponent);
  }
}

void decode_f64_scalar(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                       uint64_t frame, double pow10_factor, double pow10_neg_exponent, double* out) {
  if (bit_width == 0) {
    std::fill(out, out + n, scale_f64(0, frame, pow10_factor, pow10_neg_exponent));
    return;
  }
  const size_t avail = static_cast<size_t>(readable_end - packed);
  const uint64_t mask = low_mask(bit_width);
  // A value may span 9 bytes (shift up to 7 plus 64 bits): the word at its first byte plus the
  // byte after that word.
  const size_t fast_n = avail >= 9 ? std::min(n, (avail - 9) * 8 / bit_width + 1) : 0;
  size_t i = 0;
  uint64_t bit = 0;
  for (; i < fast_n; ++i, bit += bit_width) {
    const uint8_t* p = packed + (bit >> 3);
    const unsigned shift = bit & 7;
    uint64_t value = load_le<uint64_t>(p) >> shift;
    if (shift + bit_width > 64) value |= uint64_t{p[8]} << (64 - shift);
    out[i] = scale_f64(value & mask, frame, pow10_factor, pow10_neg_exponent);
  }
  for (; i < n; ++i, bit += bit_width) {
    const uint8_t* p = packed + (bit >> 3);
    const unsigned shift = bit & 7;
    uint64_t value = load_word_safe(p, readable_end) >> shift;
    if (shift + bit_width > 64 && p + 8 < readable_end) value |= uint64_t{p[8]} << (64 - shift);
    out[i] = scale_f64(value & mask, frame, pow10_factor, pow10_neg_exponent);
  }
}

// Four exceptions per step from one 8-byte load of positions: a price-like page has an
// exception in every fifth value, and the one-at-a-time loop (load, check, copy, two branches)
// took a third of the f32 decode.
template <class T>
void patch_exceptions(T* out, const uint8_t* positions, const uint8_t* values, size_t count) {
  size_t j = 0;
  for (; j + 4 <= count; j += 4) {
    const uint64_t four = load_le<uint64_t>(positions + 2 * j);
    const uint8_t* v = values + j * sizeof(T);
    std::memcpy(out + (four & 0xFFFF), v, sizeof(T));
    std::memcpy(out + ((four >> 16) & 0xFFFF), v + sizeof(T), sizeof(T));
    std::memcpy(out + ((four >> 32) & 0xFFFF), v + 2 * sizeof(T), sizeof(T));
    std::memcpy(out + (four >> 48), v + 3 * sizeof(T), sizeof(T));
  }
  for (; j < count; ++j) std::memcpy(out + load_le<uint16_t>(positions + 2 * j), values + j * sizeof(T), sizeof(T));
}
template void patch_exceptions<float>(float*, const uint8_t*, const uint8_t*, size_t);
template void patch_exceptions<double>(double*, const uint8_t*, const uint8_t*, size_t);

unsigned max_u16(const uint8_t* p, size_t count) {
  unsigned largest = 0;
  size_t j = 0;
#if NUMDECODE_SIMD_WASM
  // Eight positions per step (the scalar loop was not vectorized by the wasm compiler).
  if (count >= 8) {
    v128_t m = wasm_i16x8_splat(0);
    for (; j + 8 <= count; j += 8) m = wasm_u16x8_max(m, wasm_v128_load(p + 2 * j));
    m = wasm_u16x8_max(m, wasm_i32x4_shuffle(m, m, 2, 3, 0, 1));
    m = wasm_u16x8_max(m, wasm_i32x4_shuffle(m, m, 1, 0, 3, 2));
    m = wasm_u16x8_max(m, wasm_i16x8_shuffle(m, m, 1, 0, 3, 2, 5, 4, 7, 6));
    largest = wasm_u16x8_extract_lane(m, 0);
  }
#elif NUMDECODE_SIMD_SSE
  if (count >= 8) {
    __m128i m = _mm_setzero_si128();
    for (; j + 8 <= count; j += 8) m = _mm_max_epu16(m, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * j)));
    // minpos of the complement finds the maximum.
    largest = 0xFFFFu - static_cast<unsigned>(_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, _mm_set1_epi16(-1)))) & 0xFFFF);
  }
#endif
  for (; j < count; ++j) largest = std::max<unsigned>(largest, load_le<uint16_t>(p + 2 * j));
  return largest;
}

#if NUMDECODE_SIMD
namespace {

// ---- the few vector operations the kernels need, for SSE4.1 and wasm SIMD128 ----
#if NUMDECODE_SIMD_SSE
using V = __m128i;
inline V load(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline V shuffle_bytes(V v, V mask) { return _mm_shuffle_epi8(v, mask); }
inline V mul_u32(V a, V b) { return _mm_mullo_epi32(a, b); }
inline V shr_u32(V v, int n) { return _mm_srl_epi32(v, _mm_cvtsi32_si128(n)); }
inline V add_u32(V a, V b) { return _mm_add_epi32(a, b); }
inline V splat_u32(uint32_t x) { return _mm_set1_epi32(static_cast<int>(x)); }
inline V splat_u64(uint64_t x) { return _mm_set1_epi64x(static_cast<long long>(x)); }
inline V or_(V a, V b) { return _mm_or_si128(a, b); }
inline V and_(V a, V b) { return _mm_and_si128(a, b); }
inline V add_u64(V a, V b) { return _mm_add_epi64(a, b); }
// Lane 0 shifted by n0, lane 1 by n1 (SSE4.1 has no per-lane 64-bit shift: two shifts and a blend).
inline V shr_u64_lanes(V v, int n0, int n1) {
  return _mm_blend_epi16(_mm_srl_epi64(v, _mm_cvtsi32_si128(n0)), _mm_srl_epi64(v, _mm_cvtsi32_si128(n1)), 0xF0);
}
inline V shl_u64_lanes(V v, int n0, int n1) {
  return _mm_blend_epi16(_mm_sll_epi64(v, _mm_cvtsi32_si128(n0)), _mm_sll_epi64(v, _mm_cvtsi32_si128(n1)), 0xF0);
}
inline void store_f32x4(float* out, V encoded, float f10, float f10neg) {
  const __m128 x = _mm_cvtepi32_ps(encoded);  // round to nearest, like static_cast<float>(int32_t)
  _mm_storeu_ps(out, _mm_mul_ps(_mm_mul_ps(x, _mm_set1_ps(f10)), _mm_set1_ps(f10neg)));
}
// int64 -> double, correctly rounded: hi*2^32 (exact) + lo (exact) rounds once, like cvtsi2sd.
inline void store_f64x2(double* out, V encoded, double f10, double f10neg) {
  const V magic = _mm_set1_epi64x(0x4330000000000000LL);  // 2^52 as a double
  const __m128d lo = _mm_sub_pd(_mm_castsi128_pd(_mm_blend_epi16(encoded, magic, 0xCC)), _mm_set1_pd(4503599627370496.0));
  const __m128d hi = _mm_cvtepi32_pd(_mm_shuffle_epi32(encoded, _MM_SHUFFLE(3, 1, 3, 1)));
  const __m128d x = _mm_add_pd(_mm_mul_pd(hi, _mm_set1_pd(4294967296.0)), lo);
  _mm_storeu_pd(out, _mm_mul_pd(_mm_mul_pd(x, _mm_set1_pd(f10)), _mm_set1_pd(f10neg)));
}
// Four int32 lanes -> four doubles (exact), scaled.
inline void store_f64x4_from_i32(double* out, V encoded, double f10, double f10neg) {
  const __m128d lo = _mm_cvtepi32_pd(encoded);
  const __m128d hi = _mm_cvtepi32_pd(_mm_unpackhi_epi64(encoded, encoded));
  const __m128d m1 = _mm_set1_pd(f10), m2 = _mm_set1_pd(f10neg);
  _mm_storeu_pd(out, _mm_mul_pd(_mm_mul_pd(lo, m1), m2));
  _mm_storeu_pd(out + 2, _mm_mul_pd(_mm_mul_pd(hi, m1), m2));
}
#else  // NUMDECODE_SIMD_WASM
using V = v128_t;
inline V load(const void* p) { return wasm_v128_load(p); }
inline V shuffle_bytes(V v, V mask) { return wasm_i8x16_swizzle(v, mask); }
inline V mul_u32(V a, V b) { return wasm_i32x4_mul(a, b); }
inline V shr_u32(V v, int n) { return wasm_u32x4_shr(v, n); }
inline V add_u32(V a, V b) { return wasm_i32x4_add(a, b); }
inline V splat_u32(uint32_t x) { return wasm_i32x4_splat(static_cast<int32_t>(x)); }
inline V splat_u64(uint64_t x) { return wasm_i64x2_splat(static_cast<int64_t>(x)); }
inline V or_(V a, V b) { return wasm_v128_or(a, b); }
inline V and_(V a, V b) { return wasm_v128_and(a, b); }
inline V add_u64(V a, V b) { return wasm_i64x2_add(a, b); }
inline V shr_u64_lanes(V v, int n0, int n1) {
  return wasm_i64x2_shuffle(wasm_u64x2_shr(v, n0), wasm_u64x2_shr(v, n1), 0, 3);
}
inline V shl_u64_lanes(V v, int n0, int n1) {
  return wasm_i64x2_shuffle(wasm_i64x2_shl(v, n0), wasm_i64x2_shl(v, n1), 0, 3);
}
inline void store_f32x4(float* out, V encoded, float f10, float f10neg) {
  const V x = wasm_f32x4_convert_i32x4(encoded);
  wasm_v128_store(out, wasm_f32x4_mul(wasm_f32x4_mul(x, wasm_f32x4_splat(f10)), wasm_f32x4_splat(f10neg)));
}
inline void store_f64x2(double* out, V encoded, double f10, double f10neg) {
  const V lo_bits = wasm_v128_or(wasm_v128_and(encoded, wasm_i64x2_splat(0xFFFFFFFFLL)),
                                 wasm_i64x2_splat(0x4330000000000000LL));
  const V lo = wasm_f64x2_sub(lo_bits, wasm_f64x2_splat(4503599627370496.0));
  const V hi = wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(encoded, encoded, 1, 3, 1, 3));
  const V x = wasm_f64x2_add(wasm_f64x2_mul(hi, wasm_f64x2_splat(4294967296.0)), lo);
  wasm_v128_store(out, wasm_f64x2_mul(wasm_f64x2_mul(x, wasm_f64x2_splat(f10)), wasm_f64x2_splat(f10neg)));
}
inline void store_f64x4_from_i32(double* out, V encoded, double f10, double f10neg) {
  const V lo = wasm_f64x2_convert_low_i32x4(encoded);
  const V hi = wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(encoded, encoded, 2, 3, 2, 3));
  const V m1 = wasm_f64x2_splat(f10), m2 = wasm_f64x2_splat(f10neg);
  wasm_v128_store(out, wasm_f64x2_mul(wasm_f64x2_mul(lo, m1), m2));
  wasm_v128_store(out + 2, wasm_f64x2_mul(wasm_f64x2_mul(hi, m1), m2));
}
#endif

// 8 values of bw bits occupy exactly bw bytes, so the bit layout of every group of 8 is the same:
// the shuffle masks and shift amounts below are computed once per vector.
//
// f32: a group is two halves of 4 lanes; half h starts at byte floor(h*bw/2) with bit offset
// (4*h*bw) mod 8. Lane i takes the 4 bytes holding its first bit (shift = its bit offset, <= 7).
// SSE4.1/SIMD128 have no per-lane shift, but they have a per-lane multiply: times 2^(8-shift)
// puts every lane's value at bit 8, and one constant right shift by 8 brings it down. Up to 24
// bits the value still fits the lane after that multiply; wider values ("spanning") also take
// the 4 bytes starting one byte later: value = (later << (8-shift)) | (first << (8-shift)) >> 8,
// both shifts done by the same multiply. The shift stays a constant: LLVM 14 turns a wasm
// shift by a loop-invariant amount into four scalar shifts.
struct F32Plan {
  alignas(16) uint8_t shuffle[2][16];
  alignas(16) uint32_t multiplier[2][4];
  bool spanning = false;
};

F32Plan plan_f32(unsigned bw) {
  F32Plan plan{};
  for (unsigned h = 0; h < 2; ++h) {
    const unsigned half_bit = (4 * h * bw) & 7;
    for (unsigned lane = 0; lane < 4; ++lane) {
      const unsigned bit = half_bit + lane * bw;
      for (unsigned b = 0; b < 4; ++b) plan.shuffle[h][4 * lane + b] = static_cast<uint8_t>((bit >> 3) + b);
      plan.multiplier[h][lane] = 1u << (8 - (bit & 7));
    }
  }
  plan.spanning = bw > 24;
  return plan;
}

template <bool kSpanning>
inline V unpack_f32_half(const uint8_t* p, V shuffle, V multiplier, V mask) {
  const V first = shuffle_bytes(load(p), shuffle);
  if constexpr (!kSpanning) {
    return and_(shr_u32(mul_u32(first, multiplier), 8), mask);
  } else {
    const V later = shuffle_bytes(load(p + 1), shuffle);
    return and_(or_(mul_u32(later, multiplier), shr_u32(mul_u32(first, multiplier), 8)), mask);
  }
}

// Four decoded integers to values: f32 lanes, or (f64 narrow path) int32 -> double.
inline void store_x4(float* out, V encoded, float f10, float f10neg) { store_f32x4(out, encoded, f10, f10neg); }
inline void store_x4(double* out, V encoded, double f10, double f10neg) {
  store_f64x4_from_i32(out, encoded, f10, f10neg);
}

// Groups of 8 integers of at most 32 bits, 4 per vector register: every f32 vector, and f64
// vectors whose encoded integers all fit in int32 (bit width <= 32 and frame..frame+2^bw-1 inside
// the int32 range; typical for decimal data), converted with the exact int32 -> double
// instruction. Returns how many values (a multiple of 8) the SIMD loop decoded.
template <bool kSpanning, class T>
size_t decode_narrow_groups(const uint8_t* packed, size_t groups, unsigned bw, const F32Plan& plan, uint32_t frame,
                            T f10, T f10neg, T* out) {
  const V shuffle0 = load(plan.shuffle[0]), shuffle1 = load(plan.shuffle[1]);
  const V mult0 = load(plan.multiplier[0]), mult1 = load(plan.multiplier[1]);
  const V mask = splat_u32(static_cast<uint32_t>(low_mask(bw)));
  const V frame_v = splat_u32(frame);
  const size_t second_half = bw / 2;
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* base = packed + g * bw;
    const V d0 = unpack_f32_half<kSpanning>(base, shuffle0, mult0, mask);
    const V d1 = unpack_f32_half<kSpanning>(base + second_half, shuffle1, mult1, mask);
    store_x4(out + 8 * g, add_u32(d0, frame_v), f10, f10neg);
    store_x4(out + 8 * g + 4, add_u32(d1, frame_v), f10, f10neg);
  }
  return groups * 8;
}

// f64: a group of 8 is four pairs; pair p starts at byte floor(2*p*bw/8). Each 64-bit lane takes
// the 8 bytes holding its first bit and is shifted right by its bit offset. Widths where a value
// can straddle 9 bytes ("spanning") also OR in the 8 bytes one further on, shifted left by 8-shift.
// Value i's bit offset is (i*bw) mod 8, which depends on bw mod 8 only: the kernel is instantiated
// per residue so that every shift is a constant (LLVM 14 turns a wasm shift by a variable amount
// in a loop into per-lane extracts and scalar shifts).
struct F64Plan {
  alignas(16) uint8_t shuffle[4][16];
  unsigned pair_byte[4];
  bool spanning = false;
};

F64Plan plan_f64(unsigned bw) {
  F64Plan plan{};
  for (unsigned p = 0; p < 4; ++p) {
    const unsigned first_bit = 2 * p * bw;
    plan.pair_byte[p] = first_bit >> 3;
    for (unsigned lane = 0; lane < 2; ++lane) {
      const unsigned bit = (first_bit & 7) + lane * bw;
      for (unsigned b = 0; b < 8; ++b) plan.shuffle[p][8 * lane + b] = static_cast<uint8_t>((bit >> 3) + b);
      if ((bit & 7) + bw > 64) plan.spanning = true;
    }
  }
  return plan;
}

// The two values of pair P (values 2P and 2P+1 of a group) for bit widths = R mod 8.
template <bool kSpanning, unsigned R, unsigned P>
inline V unpack_f64_pair(const uint8_t* at, V shuffle) {
  constexpr int kShift0 = static_cast<int>((2 * P * R) & 7), kShift1 = static_cast<int>(((2 * P + 1) * R) & 7);
  V d = shr_u64_lanes(shuffle_bytes(load(at), shuffle), kShift0, kShift1);
  if constexpr (kSpanning) d = or_(d, shl_u64_lanes(shuffle_bytes(load(at + 1), shuffle), 8 - kShift0, 8 - kShift1));
  return d;
}

template <bool kSpanning, unsigned R>
size_t decode_f64_groups(const uint8_t* packed, size_t groups, unsigned bw, const F64Plan& plan,
                         uint64_t frame, double f10, double f10neg, double* out) {
  const V shuffle[4] = {load(plan.shuffle[0]), load(plan.shuffle[1]), load(plan.shuffle[2]), load(plan.shuffle[3])};
  const V mask = splat_u64(low_mask(bw));
  const V frame_v = splat_u64(frame);
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* base = packed + g * bw;
    double* o = out + 8 * g;
    store_f64x2(o, add_u64(and_(unpack_f64_pair<kSpanning, R, 0>(base + plan.pair_byte[0], shuffle[0]), mask), frame_v), f10, f10neg);
    store_f64x2(o + 2, add_u64(and_(unpack_f64_pair<kSpanning, R, 1>(base + plan.pair_byte[1], shuffle[1]), mask), frame_v), f10, f10neg);
    store_f64x2(o + 4, add_u64(and_(unpack_f64_pair<kSpanning, R, 2>(base + plan.pair_byte[2], shuffle[2]), mask), frame_v), f10, f10neg);
    store_f64x2(o + 6, add_u64(and_(unpack_f64_pair<kSpanning, R, 3>(base + plan.pair_byte[3], shuffle[3]), mask), frame_v), f10, f10neg);
  }
  return groups * 8;
}

template <bool kSpanning>
size_t decode_f64_groups_any(const uint8_t* packed, size_t groups, unsigned bw, const F64Plan& plan,
                             uint64_t frame, double f10, double f10neg, double* out) {
  switch (bw & 7) {
    case 0: return decode_f64_groups<kSpanning, 0>(packed, groups, bw, plan, frame, f10, f10neg, out);
    case 1: return decode_f64_groups<kSpanning, 1>(packed, groups, bw, plan, frame, f10, f10neg, out);
    case 2: return decode_f64_groups<kSpanning, 2>(packed, groups, bw, plan, frame, f10, f10neg, out);
    case 3: return decode_f64_groups<kSpanning, 3>(packed, groups, bw, plan, frame, f10, f10neg, out);
    case 4: return decode_f64_groups<kSpanning, 4>(packed, groups, bw, plan, frame, f10, f10neg, out);
    case 5: return decode_f64_groups<kSpanning, 5>(packed, groups, bw, plan, frame, f10, f10neg, out);
    case 6: return decode_f64_groups<kSpanning, 6>(packed, groups, bw, plan, frame, f10, f10neg, out);
    default: return decode_f64_groups<kSpanning, 7>(packed, groups, bw, plan, frame, f10, f10neg, out);
  }
}

}  // namespace

void decode_f32_simd(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                     uint32_t frame, float pow10_factor, float pow10_neg_exponent, float* out) {
  if (bit_width == 0) return decode_f32_scalar(packed, readable_end, n, 0, frame, pow10_factor, pow10_neg_exponent, out);
  const size_t avail = static_cast<size_t>(readable_end - packed);
  const F32Plan plan = plan_f32(bit_width);
  // The last group's second half loads 16 bytes (17 when spanning) from byte g*bw + bw/2.
  const size_t reach = bit_width / 2 + 16 + (plan.spanning ? 1 : 0);
  const size_t groups = avail >= reach ? std::min(n / 8, (avail - reach) / bit_width + 1) : 0;
  const size_t done = plan.spanning
                          ? decode_narrow_groups<true>(packed, groups, bit_width, plan, frame, pow10_factor, pow10_neg_exponent, out)
                          : decode_narrow_groups<false>(packed, groups, bit_width, plan, frame, pow10_factor, pow10_neg_exponent, out);
  // Groups end on byte boundaries, so the scalar kernel continues from a whole byte.
  decode_f32_scalar(packed + groups * bit_width, readable_end, n - done, bit_width, frame, pow10_factor,
                    pow10_neg_exponent, out + done);
}

void decode_f64_simd(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                     uint64_t frame, double pow10_factor, double pow10_neg_exponent, double* out) {
  if (bit_width == 0) return decode_f64_scalar(packed, readable_end, n, 0, frame, pow10_factor, pow10_neg_exponent, out);
  const size_t avail = static_cast<size_t>(readable_end - packed);
  const auto first = static_cast<int64_t>(frame);
  const bool narrow = bit_width <= 32 && first >= INT32_MIN &&
                      first <= INT32_MAX - static_cast<int64_t>(low_mask(bit_width));
  if (narrow) {
    const F32Plan plan = plan_f32(bit_width);
    const size_t reach = bit_width / 2 + 16 + (plan.spanning ? 1 : 0);
    const size_t groups = avail >= reach ? std::min(n / 8, (avail - reach) / bit_width + 1) : 0;
    const auto frame32 = static_cast<uint32_t>(frame);
    const size_t done =
        plan.spanning
            ? decode_narrow_groups<true>(packed, groups, bit_width, plan, frame32, pow10_factor, pow10_neg_exponent, out)
            : decode_narrow_groups<false>(packed, groups, bit_width, plan, frame32, pow10_factor, pow10_neg_exponent, out);
    return decode_f64_scalar(packed + groups * bit_width, readable_end, n - done, bit_width, frame, pow10_factor,
                             pow10_neg_exponent, out + done);
  }
  const F64Plan plan = plan_f64(bit_width);
  const size_t reach = plan.pair_byte[3] + 16 + (plan.spanning ? 1 : 0);
  const size_t groups = avail >= reach ? std::min(n / 8, (avail - reach) / bit_width + 1) : 0;
  const size_t done = plan.spanning
                          ? decode_f64_groups_any<true>(packed, groups, bit_width, plan, frame, pow10_factor, pow10_neg_exponent, out)
                          : decode_f64_groups_any<false>(packed, groups, bit_width, plan, frame, pow10_factor, pow10_neg_exponent, out);
  decode_f64_scalar(packed + groups * bit_width, readable_end, n - done, bit_width, frame, pow10_factor,
                    pow10_neg_exponent, out + done);
}

#else  // scalar-only build: the "SIMD" entry points are the scalar kernels

void decode_f32_simd(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                     uint32_t frame, float pow10_factor, float pow10_neg_exponent, float* out) {
  decode_f32_scalar(packed, readable_end, n, bit_width, frame, pow10_factor, pow10_neg_exponent, out);
}
void decode_f64_simd(const uint8_t* packed, const uint8_t* readable_end, size_t n, unsigned bit_width,
                     uint64_t frame, double pow10_factor, double pow10_neg_exponent, double* out) {
  decode_f64_scalar(packed, readable_end, n, bit_width, frame, pow10_factor, pow10_neg_exponent, out);
}

#endif

}  // namespace numdecode::alp::kernels
