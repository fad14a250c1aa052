// FloatMult: a number is int_float(l0) * base, adjusted by l1 ULPs. Scalar, SIMD128 / SSE4.1 and
// (native x86-64, checked at run time) AVX2 kernels, all exact.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/bytes.hpp"
#include "core/simd.hpp"
#include "pco/mode/float_mult_avx2.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

// L: the float's bits (u16/u32/u64), P: the primary latent type.
template <class L, class P>
struct FloatMult {
  // int_float_from_latent(l0) * base, then an adjustment of l1 ULPs in ordered-latent space.
  static void join(uint64_t base_latent, const P* p, const L* s, size_t b, L* out) noexcept {
    const L base_bits = from_latent_ordered<L, NumKind::Float>(L(base_latent));
    size_t i = 0;
  #if NUMDECODE_AVX2_DISPATCH
    if constexpr (sizeof(L) == 8 && std::is_same_v<P, L>)
      if (cpu_has_avx2()) i = float_mult_f64_avx2(base_bits, p, s, b, out);
  #endif
  #if NUMDECODE_SIMD
    if constexpr (sizeof(L) >= 4 && std::is_same_v<P, L>) i += join_simd(base_bits, p + i, s + i, b - i, out + i);
  #endif
    for (; i < b; ++i) out[i] = one(L(p[i]), s[i], base_bits);
  }

  static L one(L l0, L l1, L base_bits) noexcept {
    constexpr unsigned bits = sizeof(L) * 8;
    constexpr unsigned mant_digits = float_precision_bits(bits) + 1;
    constexpr L top = kTopBit<L>;
    constexpr L big = L(L(1) << mant_digits);  // 2^mantissa digits: ints below are exact floats
    constexpr L quiet = L(L(1) << (mant_digits - 2));
    const bool neg = l0 < top;
    const L a = neg ? L(top - 1 - l0) : L(l0 - top);
    L f = a < big ? int_to_float_bits(a) : L(int_to_float_bits(big) + (a - big));
    if (neg) f = L(f ^ top);
    L prod;
    if (is_nan(f)) prod = L(f | quiet);  // x86/ARM propagate the NaN operand, quieted; wasm would not
    else prod = mul_bits(f, base_bits);
    return from_latent_ordered<L, NumKind::Float>(L(float_to_latent_ordered<L>(prod) + l1 + top));
  }

  #if NUMDECODE_SIMD
  // The same in 128-bit lanes, branch-free, for vectors whose |int| is below 2^(mantissa bits):
  // those convert exactly (and never to NaN, as the base is finite). Other vectors go scalar.
  static size_t join_simd(L base_bits, const P* p, const L* s, size_t b, L* out) noexcept {
    using namespace simd;
    constexpr bool wide = sizeof(L) == 8;
    constexpr size_t lanes = 16 / sizeof(L);
    // Constants through opaque(), so that V8 keeps them in registers (see simd.hpp).
    const V top = wide ? splat64(opaque(kTopBit<uint64_t>)) : splat32(uint32_t(opaque(kTopBit<uint32_t>)));
    const V all = splat32(uint32_t(opaque(~0u)));
    // Bits at or above the mantissa: a lane with any set takes the scalar path.
    const V beyond =
        wide ? splat64(opaque(~((uint64_t{1} << 52) - 1))) : splat32(uint32_t(opaque(~((uint32_t{1} << 24) - 1))));
    const V magic = splat64(opaque(0x4330000000000000));  // 2^52: (bits(2^52) | a) - 2^52 == a for a < 2^52
    const V base = wide ? splat64(base_bits) : splat32(uint32_t(base_bits));
    // A product's sign is its factors' signs xor-ed (zeros and infinities too; no NaN here).
    const V base_neg = (base_bits >> (sizeof(L) * 8 - 1)) ? all : splat32(0);
    const V low_bits = xor_(top, all);
    auto sign_mask = [](V x) { return wide ? sign_mask64(x) : sign_mask32(x); };
    auto add = [](V x, V y) { return wide ? add64(x, y) : add32(x, y); };
    // One vector of lanes, given |int| below 2^(mantissa bits) in every lane.
    auto lanes_of = [&](V neg, V a, V l1) {
      const V magnitude = wide ? sub_f64(or_(a, magic), magic) : i32_to_f32(a);
      const V f = or_(magnitude, and_(neg, top));
      const V prod = wide ? mul_f64(f, base) : mul_f32(f, base);
      const V latent = xor_(prod, or_(xor_(neg, base_neg), top));  // float_to_latent_ordered
      // from_latent_ordered(latent + l1 + top) = t if t's top bit is clear, else t with all
      // other bits flipped, where t = latent + l1.
      const V t = add(latent, l1);
      return xor_(t, and_(sign_mask(t), low_bits));
    };
    size_t i = 0;
    // Two vectors a step: V8 re-creates constants and checks for interrupts once per loop step.
    for (; i + 2 * lanes <= b; i += 2 * lanes) {
      const V si0 = xor_(load(p + i), top), si1 = xor_(load(p + i + lanes), top);  // l0 - 2^(bits-1)
      const V neg0 = sign_mask(si0), neg1 = sign_mask(si1);
      const V a0 = xor_(si0, neg0), a1 = xor_(si1, neg1);  // |int|: top - 1 - l0 for negatives
      if (any_bits(and_(or_(a0, a1), beyond))) {
        for (size_t j = i; j < i + 2 * lanes; ++j) out[j] = one(L(p[j]), s[j], base_bits);
        continue;
      }
      store(out + i, lanes_of(neg0, a0, load(s + i)));
      store(out + i + lanes, lanes_of(neg1, a1, load(s + i + lanes)));
    }
    for (; i + lanes <= b; i += lanes) {
      const V si = xor_(load(p + i), top);
      const V neg = sign_mask(si);
      const V a = xor_(si, neg);
      if (any_bits(and_(a, beyond))) {
        for (size_t j = i; j < i + lanes; ++j) out[j] = one(L(p[j]), s[j], base_bits);
        continue;
      }
      store(out + i, lanes_of(neg, a, load(s + i)));
    }
    return i;
  }
  #endif

  static bool is_nan(L f) {
    constexpr unsigned bits = sizeof(L) * 8;
    constexpr unsigned p = float_precision_bits(bits);
    constexpr L exp_mask = L(((L(1) << float_exponent_bits(bits)) - 1) << p);
    return (f & exp_mask) == exp_mask && (f & L((L(1) << p) - 1)) != 0;
  }

  // Only called with a <= 2^mantissa digits, so the signed conversions (one instruction,
  // where unsigned 64-bit ones are a branchy sequence in wasm and on x86) are exact.
  static L int_to_float_bits(L a) {
    if constexpr (sizeof(L) == 2) return f32_to_f16_bits(float(int32_t(a)));
    else if constexpr (sizeof(L) == 4) return numdecode::bit_cast<uint32_t>(float(int32_t(a)));
    else return numdecode::bit_cast<uint64_t>(double(int64_t(a)));
  }

  static L mul_bits(L x, L y) {
    if constexpr (sizeof(L) == 2) {
      // f16 x f16 is exact in f32; one rounding to f16 matches a native f16 multiply.
      return f32_to_f16_bits(f16_bits_to_f32(x) * f16_bits_to_f32(y));
    } else if constexpr (sizeof(L) == 4) {
      return numdecode::bit_cast<uint32_t>(numdecode::bit_cast<float>(x) * numdecode::bit_cast<float>(y));
    } else {
      return numdecode::bit_cast<uint64_t>(numdecode::bit_cast<double>(x) * numdecode::bit_cast<double>(y));
    }
  }
};

}  // namespace numdecode::pco
