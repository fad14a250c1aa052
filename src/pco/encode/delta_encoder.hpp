// Delta encoding of one page's primary latents, in place: the inverse of delta/delta_decoder.hpp.
// Each function leaves the page's stored deltas in latents[state_n..] (centered: the decoder adds
// 2^(bits-1) back through its bin lowers), junk in the first state_n slots, and returns the page
// state the page meta carries.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "pco/metadata.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

template <class P>
void center_deltas(std::span<P> deltas) {
  for (P& d : deltas) d = P(d ^ kTopBit<P>);
}

// Consecutive: order rounds of differences; the state holds each round's first value.
template <class P>
std::vector<P> encode_consecutive(unsigned order, std::span<P> latents) {
  std::vector<P> moments;
  std::span<P> rest = latents;
  for (unsigned round = 0; round < order; ++round) {
    moments.push_back(rest.empty() ? P(0) : rest[0]);
    for (size_t i = rest.size(); i-- > 1;) rest[i] = P(rest[i] - rest[i - 1]);
    rest = rest.subspan(std::min<size_t>(1, rest.size()));
  }
  center_deltas(rest);
  return moments;
}

// Lookback: each latent minus the one lookbacks[i - state_n] before it; the state holds the
// first state_n latents (zeros before them when the page is shorter).
template <class P>
std::vector<P> encode_lookback(size_t state_n, std::span<const uint32_t> lookbacks, std::span<P> latents) {
  const size_t real_state_n = std::min(state_n, latents.size());
  for (size_t i = latents.size(); i-- > real_state_n;) latents[i] = P(latents[i] - latents[i - lookbacks[i - state_n]]);
  std::vector<P> state(state_n, P(0));
  std::copy_n(latents.begin(), real_state_n, state.end() - real_state_n);
  center_deltas(latents.subspan(real_state_n));
  return state;
}

// Conv1: each latent minus the prediction from the order latents before it (as the decoder
// computes it, in 64-bit arithmetic that the chunk meta's bounds keep from overflowing); the
// state holds the first order latents (zeros after them when the page is shorter).
template <class P>
std::vector<P> encode_conv1(const Delta& d, std::span<P> latents) {
  const size_t order = d.weights.size();
  std::vector<P> state(order, P(0));
  std::copy_n(latents.begin(), std::min(order, latents.size()), state.begin());
  for (size_t i = latents.size(); i-- > order;) {
    int64_t sum = d.bias;
    for (size_t j = 0; j < order; ++j) sum += d.weights[j] * int64_t(latents[i - order + j]);
    latents[i] = P(latents[i] - P(uint64_t(std::max<int64_t>(sum, 0) >> d.quantization)));
  }
  center_deltas(latents.subspan(std::min(order, latents.size())));
  return state;
}

}  // namespace numdecode::pco
