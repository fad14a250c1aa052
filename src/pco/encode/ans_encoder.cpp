#include "pco/encode/ans_encoder.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "pco/ans/latent_table.hpp"

namespace numdecode::pco {

namespace {

// Weights summing to 2^size_log, each at least 1, the rest shared in proportion to counts.
std::vector<uint32_t> quantize_to(std::span<const uint32_t> counts, size_t total, unsigned size_log) {
  if (size_log == 0) return {1};
  const uint32_t required = uint32_t{1} << size_log;
  const float scale = float(required) / float(total);
  std::vector<float> surplus(counts.size());
  float desired = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    surplus[i] = std::max(float(counts[i]) * scale - 1.0f, 0.0f);
    desired += surplus[i];
  }
  const float available = float(required - uint32_t(counts.size()));
  const float share = desired == 0.0f ? 0.0f : available / desired;
  std::vector<float> ideal(counts.size());
  std::vector<uint32_t> weights(counts.size());
  uint32_t sum = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    ideal[i] = 1.0f + surplus[i] * share;
    weights[i] = uint32_t(std::lround(ideal[i]));
    sum += weights[i];
  }
  // Rounding missed the sum: take from weights rounded up, give to weights rounded down.
  for (size_t i = 0; sum > required; i = (i + 1) % weights.size()) {
    if (weights[i] > 1 && float(weights[i]) > ideal[i]) --weights[i], --sum;
  }
  for (size_t i = 0; sum < required; i = (i + 1) % weights.size()) {
    if (float(weights[i]) < ideal[i]) ++weights[i], ++sum;
  }
  return weights;
}

}  // namespace

QuantizedWeights quantize_weights(std::span<const uint32_t> counts, size_t total, unsigned max_size_log) {
  QuantizedWeights q;
  if (counts.size() <= 1) {
    q.weights = {1};
    return q;
  }
  const unsigned min_size_log = unsigned(std::bit_width(counts.size() - 1));
  q.size_log = std::max(min_size_log, max_size_log);
  q.weights = quantize_to(counts, total, q.size_log);
  unsigned shared_zeros = 32;
  for (uint32_t w : q.weights) shared_zeros = std::min(shared_zeros, unsigned(std::countr_zero(w)));
  q.size_log -= shared_zeros;
  for (uint32_t& w : q.weights) w >>= shared_zeros;
  return q;
}

AnsEncoder::AnsEncoder(unsigned size_log, const std::vector<Bin>& bins) : size_log_(size_log) {
  const uint32_t table_size = uint32_t{1} << size_log;
  symbols_.resize(std::max<size_t>(bins.size(), 1));
  uint32_t start = 0;
  for (size_t s = 0; s < bins.size(); ++s) {
    const uint32_t w = bins[s].weight;
    // x = state >> bits must land in [w, 2w): 2w - 1 has the fewest bits to spare.
    const unsigned min_bits = size_log - unsigned(std::bit_width(2 * w - 1) - 1);
    symbols_[s] = Symbol{w, (2 * w) << min_bits, start, min_bits};
    start += w;
  }
  if (bins.empty()) symbols_[0] = Symbol{1, 2, 0, 0};
  next_states_.resize(std::max<uint32_t>(start, 1), uint16_t(table_size));
  if (bins.size() <= 1) return;
  std::vector<uint32_t> filled(bins.size(), 0);
  const std::vector<uint32_t> state_bins = spread_state_symbols(size_log, bins);
  for (uint32_t idx = 0; idx < table_size; ++idx) {
    const uint32_t s = state_bins[idx];
    next_states_[symbols_[s].next_start + filled[s]++] = uint16_t(table_size + idx);
  }
}

}  // namespace numdecode::pco
