// Merges a histogram's bins where fewer, wider bins cost fewer bits: an exact dynamic program
// over the estimated cost of each run of consecutive bins (its metadata, tANS and offset bits).
#pragma once
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "pco/encode/histogram.hpp"

namespace numdecode::pco {

template <class L>
struct OptimizedBin {
  uint32_t count = 0;  // latents in the bin (its tANS weight before quantization)
  L lower = 0;
  L upper = 0;
  unsigned offset_bits = 0;
};

// Bits of the offset of a latent in [lower, lower + range]: 0 for a single value.
template <class L>
unsigned offset_bits_for_range(L range) {
  return unsigned(std::bit_width(uint64_t(range)));
}

template <class L>
std::vector<OptimizedBin<L>> optimize_bins(std::span<const HistogramBin<L>> bins, unsigned ans_size_log);

}  // namespace numdecode::pco
