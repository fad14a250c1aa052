// ALP encoder, following the encoding section of the spec:
//   encoded = round(value * 10^e * 10^-f); a value is an exception unless it decodes back to the
//   same bits (this also catches NaN, +-inf, -0.0 and magnitudes past the integer range);
//   exception slots hold the first regular encoded value; deltas from the minimum are bit-packed.
// (e, f) is chosen by two-level sampling: a few sampled vectors of the page vote for their best
// combinations (at most 5 are kept), then each vector picks the best of those on 256 of its values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "alp/alp.hpp"

namespace numdecode::alp {
namespace {

constexpr size_t kSampledVectors = 8;          // level 1: vectors sampled from the page
constexpr size_t kSamplesPerSampledVector = 32;
constexpr size_t kMaxCombinations = 5;         // level 1 keeps at most this many (e, f)
constexpr size_t kSamplesPerVector = 256;      // level 2: values sampled from each vector

template <class T>
using SignedOf = typename AlpTraits<T>::Signed;
template <class T>
using UnsignedOf = typename AlpTraits<T>::Unsigned;

template <class T>
UnsignedOf<T> bits_of(T v) {
  UnsignedOf<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The integer for v at (e, f), or false when v cannot come back bit-exactly through the decoder.
template <class T>
bool encode_value(T v, unsigned e, unsigned f, SignedOf<T>& out) {
  using Traits = AlpTraits<T>;
  const T scaled = std::nearbyint((v * Traits::kPow10[e]) * Traits::kPow10Neg[f]);
  if (!(std::fabs(scaled) <= Traits::kMaxEncodable)) return false;  // also NaN and +-inf
  const auto encoded = static_cast<SignedOf<T>>(scaled);
  // Exactly the decoder's arithmetic; comparing bits also rejects -0.0 (it decodes as +0.0).
  const T decoded = (static_cast<T>(encoded) * Traits::kPow10[f]) * Traits::kPow10Neg[e];
  if (bits_of(decoded) != bits_of(v)) return false;
  out = encoded;
  return true;
}

inline unsigned bit_length(uint64_t x) {
  unsigned n = 0;
  while (x != 0) {
    ++n;
    x >>= 1;
  }
  return n;
}

struct Combination {
  unsigned exponent = 0, factor = 0;
  bool operator<(const Combination& o) const {
    return exponent != o.exponent ? exponent < o.exponent : factor < o.factor;
  }
};

// Estimated size in bits of `count` values taken every `step` from values[] at (e, f):
// bit-packed range of the regular values plus the exceptions' position and raw value.
template <class T>
uint64_t estimate_bits(const T* values, size_t count, size_t step, Combination c) {
  int64_t lo = 0, hi = 0;
  bool any = false;
  uint64_t exceptions = 0;
  for (size_t i = 0; i < count; ++i) {
    SignedOf<T> enc;
    if (!encode_value(values[i * step], c.exponent, c.factor, enc)) {
      ++exceptions;
      continue;
    }
    const auto e64 = static_cast<int64_t>(enc);
    if (!any) lo = hi = e64, any = true;
    lo = std::min(lo, e64);
    hi = std::max(hi, e64);
  }
  const uint64_t width = any ? bit_length(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) : 0;
  return width * count + exceptions * (16 + 8 * sizeof(T));
}

// Best combination for a sample; ties go to the larger exponent, then the larger factor.
template <class T>
Combination best_of(const T* values, size_t count, size_t step, const std::vector<Combination>& candidates) {
  Combination best = candidates.front();
  uint64_t best_bits = UINT64_MAX;
  for (const Combination& c : candidates) {
    const uint64_t bits = estimate_bits(values, count, step, c);
    if (bits < best_bits || (bits == best_bits && best < c)) best = c, best_bits = bits;
  }
  return best;
}

template <class T>
std::vector<Combination> all_combinations() {
  std::vector<Combination> all;
  for (unsigned e = 0; e <= AlpTraits<T>::kMaxExponent; ++e)
    for (unsigned f = 0; f <= e; ++f) all.push_back({e, f});
  return all;
}

// Level 1: the best combinations of a few evenly spaced vectors, most frequent first.
template <class T>
std::vector<Combination> page_candidates(std::span<const T> values, size_t vector_size) {
  const size_t num_vectors = (values.size() + vector_size - 1) / vector_size;
  const size_t sampled = std::min(num_vectors, kSampledVectors);
  const std::vector<Combination> all = all_combinations<T>();
  std::map<Combination, size_t> votes;
  for (size_t s = 0; s < sampled; ++s) {
    const size_t k = s * num_vectors / sampled;
    const size_t start = k * vector_size;
    const size_t n = std::min(vector_size, values.size() - start);
    const size_t count = std::min(n, kSamplesPerSampledVector);
    ++votes[best_of(values.data() + start, count, n / count, all)];
  }
  std::vector<std::pair<Combination, size_t>> ranked(votes.begin(), votes.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : b.first < a.first;
  });
  std::vector<Combination> out;
  for (size_t i = 0; i < ranked.size() && i < kMaxCombinations; ++i) out.push_back(ranked[i].first);
  return out;
}

// Appends the LSB-first bit stream the decoder reads: value i at bits [i*width, (i+1)*width).
template <class U>
void pack_bits(const U* deltas, size_t n, unsigned width, std::vector<uint8_t>& out) {
  const size_t packed_bytes = (n * width + 7) / 8;
  const size_t at = out.size();
  out.resize(at + packed_bytes + 8);  // slack for whole-word stores, trimmed below
  uint8_t* p = out.data() + at;
  uint64_t word = 0;
  unsigned filled = 0;
  if (width != 0) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = deltas[i];
      word |= v << filled;
      if (filled + width >= 64) {
        std::memcpy(p, &word, 8);
        p += 8;
        word = filled == 0 ? 0 : v >> (64 - filled);  // the bits that did not fit
        filled = filled + width - 64;
      } else {
        filled += width;
      }
    }
    if (filled != 0) std::memcpy(p, &word, 8);
  }
  out.resize(at + packed_bytes);
}

template <class T>
void put_le(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

// Buffers reused across vectors.
template <class T>
struct VectorScratch {
  std::vector<SignedOf<T>> encoded;
  std::vector<uint16_t> positions;
  std::vector<UnsignedOf<T>> deltas;
};

template <class T>
void encode_vector(const T* values, size_t n, Combination c, VectorScratch<T>& scratch, std::vector<uint8_t>& out) {
  using S = SignedOf<T>;
  using U = UnsignedOf<T>;
  std::vector<S>& encoded = scratch.encoded;
  std::vector<uint16_t>& positions = scratch.positions;
  encoded.resize(n);
  positions.clear();
  bool have_placeholder = false;
  S placeholder = 0;
  for (size_t i = 0; i < n; ++i) {
    if (encode_value(values[i], c.exponent, c.factor, encoded[i])) {
      if (!have_placeholder) placeholder = encoded[i], have_placeholder = true;
    } else {
      positions.push_back(static_cast<uint16_t>(i));
    }
  }
  // Exception slots take a regular value, so they do not widen the frame.
  for (uint16_t p : positions) encoded[p] = placeholder;
  S lo = n ? encoded[0] : 0, hi = lo;
  for (size_t i = 0; i < n; ++i) lo = std::min(lo, encoded[i]), hi = std::max(hi, encoded[i]);
  const U frame = static_cast<U>(lo);
  const unsigned width = bit_length(static_cast<U>(static_cast<U>(hi) - frame));

  out.push_back(static_cast<uint8_t>(c.exponent));
  out.push_back(static_cast<uint8_t>(c.factor));
  put_le<uint16_t>(out, static_cast<uint16_t>(positions.size()));
  put_le<U>(out, frame);
  out.push_back(static_cast<uint8_t>(width));
  std::vector<U>& deltas = scratch.deltas;
  deltas.resize(n);
  for (size_t i = 0; i < n; ++i) deltas[i] = static_cast<U>(static_cast<U>(encoded[i]) - frame);
  pack_bits(deltas.data(), n, width, out);
  for (uint16_t p : positions) put_le<uint16_t>(out, p);
  for (uint16_t p : positions) out.insert(out.end(), reinterpret_cast<const uint8_t*>(values + p),
                                          reinterpret_cast<const uint8_t*>(values + p) + sizeof(T));
}

}  // namespace

template <class T>
std::vector<uint8_t> encode(std::span<const T> values, const EncodeOptions& options) {
  using Traits = AlpTraits<T>;
  if (options.log_vector_size < kMinLogVectorSize || options.log_vector_size > kMaxLogVectorSize)
    throw std::invalid_argument("ALP encode: log_vector_size " + std::to_string(options.log_vector_size) +
                                " out of range [3, 15]");
  if (options.force_exponent_factor &&
      (options.exponent > Traits::kMaxExponent || options.factor > options.exponent))
    throw std::invalid_argument("ALP encode: forced exponent " + std::to_string(options.exponent) + " / factor " +
                                std::to_string(options.factor) + " invalid for " + Traits::kName);
  const uint64_t max_count = options.layout == Layout::kMerged ? INT32_MAX : UINT32_MAX;
  if (values.size() > max_count)
    throw std::invalid_argument("ALP encode: " + std::to_string(values.size()) + " values exceed the " +
                                layout_name(options.layout) + " layout's limit of " + std::to_string(max_count));

  const size_t vector_size = size_t{1} << options.log_vector_size;
  const size_t num_vectors = (values.size() + vector_size - 1) / vector_size;
  std::vector<Combination> candidates;
  if (options.force_exponent_factor)
    candidates.push_back({options.exponent, options.factor});
  else if (!values.empty())
    candidates = page_candidates(values, vector_size);

  std::vector<uint8_t> page;
  // Typical pages are smaller than the plain values; bigger ones grow the usual way.
  page.reserve(8 + num_vectors * (kOffsetBytes + kAlpInfoBytes + Traits::kForInfoBytes) + values.size() * sizeof(T));
  VectorScratch<T> scratch;
  if (options.layout == Layout::kDraft) page.push_back(1);  // version
  page.push_back(0);                                         // compression mode: ALP
  page.push_back(0);                                         // integer encoding: FOR + bit-pack
  page.push_back(static_cast<uint8_t>(options.log_vector_size));
  put_le<uint32_t>(page, static_cast<uint32_t>(values.size()));
  const size_t offsets_start = page.size();
  page.resize(offsets_start + num_vectors * kOffsetBytes);

  for (size_t k = 0; k < num_vectors; ++k) {
    const size_t start = k * vector_size;
    const size_t n = std::min(vector_size, values.size() - start);
    Combination c = candidates.front();
    if (candidates.size() > 1) {
      const size_t count = std::min(n, kSamplesPerVector);
      c = best_of(values.data() + start, count, n / count, candidates);
    }
    const size_t offset = page.size() - offsets_start;
    if (offset > UINT32_MAX) throw std::invalid_argument("ALP encode: page exceeds the 4 GiB offset range");
    const auto offset32 = static_cast<uint32_t>(offset);
    std::memcpy(page.data() + offsets_start + k * kOffsetBytes, &offset32, sizeof offset32);
    encode_vector(values.data() + start, n, c, scratch, page);
  }
  return page;
}

template std::vector<uint8_t> encode<float>(std::span<const float>, const EncodeOptions&);
template std::vector<uint8_t> encode<double>(std::span<const double>, const EncodeOptions&);

}  // namespace numdecode::alp
