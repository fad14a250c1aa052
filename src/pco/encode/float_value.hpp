// The float dtypes as values for the encoder's float modes, with the reference's arithmetic:
// f32 and f64 natively, f16 through f32 with one rounding to f16 per operation (as the `half`
// crate does). FloatTraits<F> gives each the bit-level helpers the modes need.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/bytes.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

// Round-to-nearest-even f64 -> f16 in one step (no double rounding through f32).
inline uint16_t f64_to_f16_bits(double x) {
  const uint64_t b = numdecode::bit_cast<uint64_t>(x);
  const uint16_t sign = uint16_t((b >> 48) & 0x8000);
  const int exp = int((b >> 52) & 0x7ff);
  const uint64_t man = b & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) return uint16_t(sign | 0x7c00 | (man ? (0x200 | uint16_t(man >> 42)) : 0));
  const int e = exp - 1023 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00);
  // The magnitude as an integer count of 2^-24 (f16's smallest step), rounded to even.
  const uint64_t full = man | (exp ? uint64_t{1} << 52 : 0);
  const int shift = e <= 0 ? 42 + 1 - e : 42;  // bits dropped below f16's last place
  if (shift >= 64) return sign;
  uint64_t kept = full >> shift;
  const uint64_t rem = full & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (kept & 1))) ++kept;
  if (e <= 0) return uint16_t(sign | kept);                        // subnormal (may round up to normal)
  return uint16_t(sign | ((uint64_t(e) << 10) + (kept - 1024)));  // a carry may roll into inf: correct
}

struct Half {
  uint16_t bits = 0;
  static Half of(float f) { return Half{f32_to_f16_bits(f)}; }
  float f32() const { return f16_bits_to_f32(bits); }
  friend Half operator+(Half a, Half b) { return of(a.f32() + b.f32()); }
  friend Half operator-(Half a, Half b) { return of(a.f32() - b.f32()); }
  friend Half operator*(Half a, Half b) { return of(a.f32() * b.f32()); }
  friend Half operator/(Half a, Half b) { return of(a.f32() / b.f32()); }
  Half& operator+=(Half o) { return *this = *this + o; }
  friend bool operator<(Half a, Half b) { return a.f32() < b.f32(); }
  friend bool operator<=(Half a, Half b) { return a.f32() <= b.f32(); }
  friend bool operator>(Half a, Half b) { return a.f32() > b.f32(); }
  friend bool operator==(Half a, Half b) { return a.f32() == b.f32(); }
  friend bool operator!=(Half a, Half b) { return a.f32() != b.f32(); }
};

template <class L> struct FloatOfBits;
template <> struct FloatOfBits<uint16_t> { using type = Half; };
template <> struct FloatOfBits<uint32_t> { using type = float; };
template <> struct FloatOfBits<uint64_t> { using type = double; };

template <class F>
struct FloatTraits {
  using L = std::conditional_t<sizeof(F) == 2, uint16_t, std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>>;
  static constexpr unsigned kBits = sizeof(L) * 8;
  static constexpr unsigned kPrecision = float_precision_bits(kBits);  // 10 / 23 / 52
  static constexpr int kExpOffset = kBits == 16 ? 15 : kBits == 32 ? 127 : 1023;

  static L to_bits(F f) {
    if constexpr (kBits == 16) return f.bits;
    else return numdecode::bit_cast<L>(f);
  }
  static F from_bits(L b) {
    if constexpr (kBits == 16) return Half{b};
    else return numdecode::bit_cast<F>(b);
  }
  static F from_f64(double x) {
    if constexpr (kBits == 16) return Half{f64_to_f16_bits(x)};
    else return F(x);
  }
  static double to_f64(F f) {
    if constexpr (kBits == 16) return double(f.f32());
    else return double(f);
  }
  static F zero() { return from_bits(0); }
  static F abs(F f) { return from_bits(L(to_bits(f) & (kTopBit<L> - 1))); }
  static F round(F f) {  // half away from zero, as Rust's round
    if constexpr (kBits == 16) {
      return Half::of(std::round(f.f32()));
    } else {
      // trunc(|x| + the float just below 1/2) rounds halves up and nothing else, for |x| below
      // 2^precision (larger floats are integers); one instruction each, where round() is a call.
      constexpr F kBelowHalf = kBits == 32 ? 0.49999997f : 0.49999999999999994;
      constexpr F kIntegersFrom = F(L(1) << kPrecision);
      const F a = std::fabs(f);
      if (!(a < kIntegersFrom)) return f;  // integers, infinities and NaN stay
      return std::copysign(std::trunc(a + kBelowHalf), f);
    }
  }
  static F inv(F f) { return from_f64(1.0) / f; }
  static F exp2(int power) { return from_bits(L(L(kExpOffset + power) << kPrecision)); }
  static bool sign_positive(F f) { return (to_bits(f) & kTopBit<L>) == 0; }
  static bool is_normal(F f) {
    const L e = L((to_bits(f) >> kPrecision) & ((L(1) << float_exponent_bits(kBits)) - 1));
    return e != 0 && e != ((L(1) << float_exponent_bits(kBits)) - 1);
  }
  static bool is_finite(F f) {
    const L e = L((to_bits(f) >> kPrecision) & ((L(1) << float_exponent_bits(kBits)) - 1));
    return e != ((L(1) << float_exponent_bits(kBits)) - 1);
  }
  static int exponent(F f) { return int(to_bits(abs(f)) >> kPrecision) - kExpOffset; }
  static unsigned trailing_zeros(F f) { return unsigned(std::countr_zero(to_bits(f))); }
  static L to_latent_ordered(F f) { return float_to_latent_ordered<L>(to_bits(f)); }

  // An integer-valued float (or inf / NaN) -> latent, bijectively: |x| below 2^(precision+1) as
  // itself, above that counting floats; negatives below 2^(bits-1) (-0 just below +0).
  static L int_float_to_latent(F f) {
    const L gpi = L(L(1) << (kPrecision + 1));
    const F a = abs(f);
    const L gpi_bits = to_bits(from_f64(double(gpi)));
    L magnitude;
    if (to_bits(a) < gpi_bits) magnitude = L(to_f64(a));  // |f| < gpi, as bits order positive floats
    else magnitude = L(gpi + L(to_bits(a) - gpi_bits));
    return sign_positive(f) ? L(kTopBit<L> + magnitude) : L(kTopBit<L> - 1 - magnitude);
  }
};

}  // namespace numdecode::pco
