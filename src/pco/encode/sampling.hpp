// Samples for the Auto mode choice, and the reference's estimate of what a two-variable mode saves:
// only primaries too rare for Classic's bins to memorize count.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace numdecode::pco {

constexpr size_t kMinSample = 10;

// Indices of about 10 + (n - 10) / r numbers (r from 100 at level 0 to 25 at level 12), drawn
// without replacement from a fixed seed; none when n < 10.
std::vector<size_t> sample_indices(size_t n, unsigned level);

// Mean bits saved per sampled number: the savings of samples whose primary occurs at most
// max(1, size / 256) times. Reorders its argument.
double bits_saved_per_num(std::vector<std::pair<uint64_t, double>>& primary_and_savings);

}  // namespace numdecode::pco
