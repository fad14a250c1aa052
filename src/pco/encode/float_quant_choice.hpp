// Finds a FloatQuant k as pcodec's Auto does: the first k where more trailing zero bits stop
// paying, from the sampled numbers' trailing zeros, scored by the bits it saves over Classic.
#pragma once
#include <optional>
#include <span>

namespace numdecode::pco {

struct FloatQuantBid {
  unsigned k;
  double bits_saved_per_num;
};

template <class F>
std::optional<FloatQuantBid> float_quant_bid(std::span<const F> sample);

}  // namespace numdecode::pco
