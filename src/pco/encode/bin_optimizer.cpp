#include "pco/encode/bin_optimizer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "core/bytes.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {

namespace {

// Speeds worth paying bits for, per number (the reference's choices): one bin needs no tANS
// decoding, and bins of single values need no offsets.
constexpr float kSingleBinSpeedupBits = 0.1f;
constexpr float kTrivialOffsetSpeedupBits = 0.1f;

// log2(x) for x >= 1 within 0.005: the exponent, plus a quadratic in the mantissa taken to
// [1/sqrt(2), sqrt(2)) (exact at its ends and at 1). The optimizer calls it for every pair of
// bins, and a call to log2 costs more than the rest of the cost in wasm.
float approx_log2(float x) {
  constexpr float kSqrt2 = 1.41421356f;
  const uint32_t bits = numdecode::bit_cast<uint32_t>(x);
  float exponent = float(int(bits >> 23) - 127);
  float m = numdecode::bit_cast<float>((bits & 0x7fffffu) | 0x3f800000u);  // in [1, 2)
  if (m > kSqrt2) m *= 0.5f, exponent += 1.0f;
  // q(m) = a + m (b + c m) with q(1) = 0, q(sqrt(2)) = 1/2, q(1/sqrt(2)) = -1/2 (to within 0.005).
  constexpr float kB = 2.0f * kSqrt2, kC = -2.0f / 3.0f, kA = -kB - kC;
  return exponent + kA + m * (kB + kC * m);
}

template <class L>
float bin_cost(float meta_cost, L lower, L upper, uint32_t count, float total_log2) {
  const float c = float(count);
  const float ans_bits = total_log2 - approx_log2(c);
  return meta_cost + (ans_bits + float(offset_bits_for_range<L>(L(upper - lower)))) * c;
}

}  // namespace

template <class L>
std::vector<OptimizedBin<L>> optimize_bins(std::span<const HistogramBin<L>> bins, unsigned ans_size_log) {
  const size_t n = bins.size();
  if (n == 0) return {};
  // Each bin costs its metadata: weight, lower, offset width.
  const unsigned latent_bits = sizeof(L) * 8;
  const float meta_cost = float(ans_size_log + latent_bits + offset_bits_field(latent_bits));
  std::vector<uint32_t> cumulative(n + 1, 0);
  for (size_t i = 0; i < n; ++i) cumulative[i + 1] = cumulative[i] + uint32_t(bins[i].count);
  const uint32_t total = cumulative[n];
  const float total_log2 = approx_log2(float(total));

  // best[i + 1]: the cheapest partition of bins 0..i; first[i]: where its last group starts.
  std::vector<float> best(n + 1, 0.0f);
  std::vector<size_t> first(n, 0);
  for (size_t i = 0; i < n; ++i) {
    float best_cost = FLT_MAX;
    size_t best_j = 0;
    for (size_t j = i + 1; j-- > 0;) {
      const float cost = best[j] + bin_cost<L>(meta_cost, bins[j].lower, bins[i].upper, cumulative[i + 1] - cumulative[j], total_log2);
      if (cost < best_cost) {
        best_cost = cost;
        best_j = j;
      }
    }
    best[i + 1] = best_cost;
    first[i] = best_j;
  }

  auto group = [&](size_t j, size_t i) {
    OptimizedBin<L> b;
    b.count = cumulative[i + 1] - cumulative[j];
    b.lower = bins[j].lower;
    b.upper = bins[i].upper;
    b.offset_bits = offset_bits_for_range<L>(L(b.upper - b.lower));
    return b;
  };

  const float optimal = best[n];
  const float single_cost = bin_cost<L>(meta_cost, bins[0].lower, bins[n - 1].upper, total, total_log2);
  if (single_cost < optimal + kSingleBinSpeedupBits * float(total)) return {group(0, n - 1)};

  bool all_single_values = true;
  float trivial_cost = 0;
  for (size_t i = 0; i < n; ++i) {
    all_single_values = all_single_values && bins[i].lower == bins[i].upper;
    trivial_cost += bin_cost<L>(meta_cost, bins[i].lower, bins[i].upper, uint32_t(bins[i].count), total_log2);
  }
  std::vector<OptimizedBin<L>> out;
  if (all_single_values && trivial_cost < optimal + kTrivialOffsetSpeedupBits * float(total)) {
    for (size_t i = 0; i < n; ++i) out.push_back(group(i, i));
    return out;
  }
  for (size_t i = n; i > 0;) {
    const size_t j = first[i - 1];
    out.push_back(group(j, i - 1));
    i = j;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

template std::vector<OptimizedBin<uint8_t>> optimize_bins(std::span<const HistogramBin<uint8_t>>, unsigned);
template std::vector<OptimizedBin<uint16_t>> optimize_bins(std::span<const HistogramBin<uint16_t>>, unsigned);
template std::vector<OptimizedBin<uint32_t>> optimize_bins(std::span<const HistogramBin<uint32_t>>, unsigned);
template std::vector<OptimizedBin<uint64_t>> optimize_bins(std::span<const HistogramBin<uint64_t>>, unsigned);

}  // namespace numdecode::pco
