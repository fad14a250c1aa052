// The unoptimized bins of a latent variable: up to 2^n_bins_log ranges of roughly equal count,
// each tight (its lower and upper are latents that occur) and never splitting equal latents.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace numdecode::pco {

template <class L>
struct HistogramBin {
  size_t count = 0;
  L lower = 0;
  L upper = 0;
};

// Reorders latents (a partial sort: exact between bins, not within them).
template <class L>
std::vector<HistogramBin<L>> histogram(std::span<L> latents, unsigned n_bins_log);

}  // namespace numdecode::pco
