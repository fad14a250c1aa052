#include "pco/mode/float_mult_avx2.hpp"

#if NUMDECODE_AVX2_DISPATCH
#include <immintrin.h>

#include "pco/numbers.hpp"

namespace numdecode::pco {

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

[[gnu::target("avx2")]] size_t float_mult_f64_avx2(uint64_t base_bits, const uint64_t* p, const uint64_t* s,
                                                  size_t b, uint64_t* out) noexcept {
  const __m256i top = _mm256_set1_epi64x(int64_t(kTopBit<uint64_t>));
  const __m256i low_bits = _mm256_set1_epi64x(int64_t(kTopBit<uint64_t> - 1));
  const __m256i beyond = _mm256_set1_epi64x(int64_t(~((uint64_t{1} << 52) - 1)));
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000);
  const __m256d base = _mm256_castsi256_pd(_mm256_set1_epi64x(int64_t(base_bits)));
  const __m256i base_neg = _mm256_set1_epi64x((base_bits >> 63) ? -1 : 0);
  const __m256i zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 4 <= b; i += 4) {
    const __m256i signed_int = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)), top);
    const __m256i neg = _mm256_cmpgt_epi64(zero, signed_int);
    const __m256i a = _mm256_xor_si256(signed_int, neg);
    if (!_mm256_testz_si256(a, beyond)) break;
    const __m256d magnitude = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(a, magic)), _mm256_castsi256_pd(magic));
    const __m256d f = _mm256_or_pd(magnitude, _mm256_castsi256_pd(_mm256_and_si256(neg, top)));
    const __m256i prod = _mm256_castpd_si256(_mm256_mul_pd(f, base));
    const __m256i latent = _mm256_xor_si256(prod, _mm256_or_si256(_mm256_xor_si256(neg, base_neg), top));
    const __m256i t = _mm256_add_epi64(latent, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    const __m256i flip = _mm256_and_si256(_mm256_cmpgt_epi64(zero, t), low_bits);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_xor_si256(t, flip));
  }
  return i;
}

}  // namespace numdecode::pco
#endif
