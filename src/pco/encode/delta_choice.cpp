#include "pco/encode/delta_choice.hpp"

#include <vector>

#include "pco/encode/chunk_candidate.hpp"
#include "pco/encode/chunk_config.hpp"
#include "pco/encode/lookback_choice.hpp"

namespace numdecode::pco {

namespace {

constexpr size_t kGroupSize = 200;
constexpr size_t kNPerExtraGroup = 10000;
constexpr double kLookbackSavingsPerN = 0.25;  // bytes per number Lookback must save

// The first group, then n / 10000 + 1 more spread evenly over the rest.
template <class P>
LatentVec<P> delta_sample(std::span<const P> primary) {
  const size_t n = primary.size();
  const size_t extra = 1 + n / kNPerExtraGroup;
  const size_t nominal = (extra + 1) * kGroupSize;
  const size_t gap = n > nominal ? (n - nominal) / extra : 0;
  LatentVec<P> sample(primary.begin(), primary.begin() + std::min(kGroupSize, n));
  size_t i = kGroupSize;
  for (size_t g = 0; g < extra; ++g) {
    i += gap;
    if (i < n) sample.insert(sample.end(), primary.begin() + i, primary.begin() + std::min(i + kGroupSize, n));
    i += kGroupSize;
  }
  return sample;
}

template <class P>
double sample_cost(const LatentVec<P>& sample, unsigned unoptimized_bins_log, const Delta& delta) {
  const auto c = build_candidate<P, P>(DType::U32, Mode{}, sample, {}, false, delta, {sample.size()}, unoptimized_bins_log);
  return c.estimated_bytes();
}

}  // namespace

Delta lookback_delta(size_t n) {
  Delta d;
  d.kind = DeltaKind::Lookback;
  d.window_n_log = lookback_window_log(n);
  d.state_n_log = 0;
  return d;
}

Delta consecutive_delta(unsigned order) {
  Delta d;
  if (order == 0) return d;
  d.kind = DeltaKind::Consecutive;
  d.order = order;
  return d;
}

template <class P>
Delta choose_delta(std::span<const P> primary, unsigned unoptimized_bins_log) {
  const LatentVec<P> sample = delta_sample(primary);
  Delta best;
  double best_cost = sample_cost(sample, unoptimized_bins_log, best);
  const double lookback_penalty = kLookbackSavingsPerN * double(sample.size());
  if (best_cost > lookback_penalty) {
    const double cost = sample_cost(sample, unoptimized_bins_log, lookback_delta(sample.size())) + lookback_penalty;
    if (cost < best_cost) best = lookback_delta(primary.size()), best_cost = cost;
  }
  for (unsigned order = 1; order <= kMaxConsecutiveOrder; ++order) {
    const double cost = sample_cost(sample, unoptimized_bins_log, consecutive_delta(order));
    if (!(cost < best_cost)) break;  // costs are almost always convex in the order
    best = consecutive_delta(order);
    best_cost = cost;
  }
  return best;
}

template Delta choose_delta(std::span<const uint8_t>, unsigned);
template Delta choose_delta(std::span<const uint16_t>, unsigned);
template Delta choose_delta(std::span<const uint32_t>, unsigned);
template Delta choose_delta(std::span<const uint64_t>, unsigned);

}  // namespace numdecode::pco
