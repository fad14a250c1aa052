// Number <-> latent mappings of Pco, on raw bit patterns (f16 is its 16 bits).
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/bytes.hpp"
#include "pco/dtype.hpp"

namespace numdecode::pco {

// Unsigned arithmetic of at least 32 bits for L: u8/u16 operands would be promoted to int,
// whose multiplication may overflow (undefined); the result is truncated back to L anyway.
template <class L>
using Wide = std::conditional_t<(sizeof(L) < 4), uint32_t, L>;

template <class L>
constexpr L kTopBit = L(L(1) << (sizeof(L) * 8 - 1));

// Order-preserving bijection latent -> number bits (from_latent_ordered).
template <class L, NumKind K>
inline L from_latent_ordered(L l) {
  if constexpr (K == NumKind::Unsigned) return l;
  // Adding the top bit flips it; as an add it can merge with the joins' own adds.
  else if constexpr (K == NumKind::Signed) return L(l + kTopBit<L>);
  else return (l & kTopBit<L>) ? L(l ^ kTopBit<L>) : L(~l);
}

// Float bits -> ordered latent (to_latent_ordered).
template <class L>
inline L float_to_latent_ordered(L bits) {
  return (bits & kTopBit<L>) ? L(~bits) : L(bits | kTopBit<L>);
}

// Number bits -> ordered latent (to_latent_ordered), the inverse of from_latent_ordered.
template <class L, NumKind K>
inline L to_latent_ordered(L bits) {
  if constexpr (K == NumKind::Unsigned) return bits;
  else if constexpr (K == NumKind::Signed) return L(bits ^ kTopBit<L>);
  else return float_to_latent_ordered<L>(bits);
}

// Mantissa bits stored in the float (10 / 23 / 52): FloatQuant's largest k.
constexpr unsigned float_precision_bits(unsigned bits) { return bits == 16 ? 10 : bits == 32 ? 23 : 52; }
constexpr unsigned float_exponent_bits(unsigned bits) { return bits == 16 ? 5 : bits == 32 ? 8 : 11; }

// Whether an ordered float latent of `bits` width is a finite, nonzero float.
inline bool float_latent_is_finite_nonzero(uint64_t latent, unsigned bits) {
  const uint64_t top = uint64_t{1} << (bits - 1);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t fbits = (latent & top) ? (latent ^ top) : (~latent & mask);
  const unsigned p = float_precision_bits(bits);
  const uint64_t exp_mask = ((uint64_t{1} << float_exponent_bits(bits)) - 1) << p;
  const uint64_t magnitude = fbits & (top - 1);
  return (fbits & exp_mask) != exp_mask && magnitude != 0;
}

inline float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    out = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    out = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do { man <<= 1; ++e; } while ((man & 0x400) == 0);
    out = sign | uint32_t(112 - e) << 23 | ((man & 0x3ff) << 13);
  }
  return numdecode::bit_cast<float>(out);
}

// Round-to-nearest-even f32 -> f16, as the `half` crate does.
inline uint16_t f32_to_f16_bits(float f) {
  uint32_t x = numdecode::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) return uint16_t(sign | 0x7c00 | (man ? (0x200 | (man >> 13)) : 0));
  int e = int(exp) - 127 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return sign;
    man |= 0x800000;
    unsigned shift = unsigned(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // a carry may roll into inf: correct
  return uint16_t(sign | half);
}

}  // namespace numdecode::pco
