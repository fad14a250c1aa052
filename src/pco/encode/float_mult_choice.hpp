// Finds a FloatMult base as pcodec's Auto does: from numbers that are multiples of a power of 2
// (trailing zeros), else from an approximate Euclidean GCD of sampled pairs, snapped to 1/integer
// or a power of 10 when close; then scored by the bits it saves over Classic.
#pragma once
#include <optional>
#include <span>

namespace numdecode::pco {

template <class F>
struct FloatMultConfig {
  F base;
  F inv_base;
};

template <class F>
struct FloatMultBid {
  FloatMultConfig<F> config;
  double bits_saved_per_num;
};

// sample: |x| of normal sampled numbers up to half the largest float.
template <class F>
std::optional<FloatMultBid<F>> float_mult_bid(std::span<const F> sample);

}  // namespace numdecode::pco
