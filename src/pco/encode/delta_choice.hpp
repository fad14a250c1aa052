// Chooses a chunk's delta encoding as pcodec's Auto does: on a sample of the primary latents
// (runs of 200 from across the chunk), the cheapest of none, Lookback (which must save a quarter
// byte per number) and Consecutive orders 1, 2, ... while each order keeps getting cheaper.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "pco/metadata.hpp"

namespace numdecode::pco {

template <class P>
Delta choose_delta(std::span<const P> primary, unsigned unoptimized_bins_log);

// The Lookback encoding pcodec writes for a chunk of n numbers.
Delta lookback_delta(size_t n);
Delta consecutive_delta(unsigned order);

}  // namespace numdecode::pco
