#include "pco/encode/lookback_choice.hpp"

#include <algorithm>
#include <bit>

namespace numdecode::pco {

namespace {

constexpr size_t kRecent = 6;     // lookbacks 1..6 are always candidates
constexpr size_t kRepeating = 4;  // so are the last few lookbacks chosen
constexpr unsigned kCoarsenesses[2] = {0, 8};  // values hashed as is and divided by 256
constexpr size_t kHashed = 3 * 2;              // per coarseness: the value's bucket and both neighbours

uint64_t bucket_hash(uint64_t x, uint64_t mask) {
  x = (x ^ (x >> 32)) * 11400714819323197441ull;  // ~2^64 / golden ratio
  return (x ^ (x >> 32)) & mask;
}

template <class P>
unsigned closeness(P a, P b) {
  const P d = std::min(P(a - b), P(b - a));
  return unsigned(std::countl_zero(d));
}

}  // namespace

unsigned lookback_window_log(size_t n) {
  const unsigned bits = n <= 1 ? 0 : unsigned(std::bit_width(uint32_t(n - 1)));
  return std::clamp(bits, kLookbackMinWindowLog, kLookbackMaxWindowLog);
}

template <class P>
std::vector<uint32_t> choose_lookbacks(unsigned window_n_log, size_t state_n, std::span<const P> latents) {
  if (latents.size() <= state_n) return {};
  const size_t window_n = size_t{1} << window_n_log;
  // Twice the window, but no more than a short page needs (a page may be far shorter than the
  // window of its chunk, and the table is cleared for each page).
  const unsigned page_log = unsigned(std::bit_width(latents.size()));
  const size_t table_n = size_t{1} << (std::min(window_n_log, page_log) + 1);
  // Where each hash bucket's value was last seen, per coarseness.
  std::vector<size_t> last_seen(2 * table_n, 0);
  const size_t usable = std::min(window_n, latents.size());
  // A lookback's favour: the bit width of how often it was chosen (starting from 1).
  std::vector<uint32_t> uses(usable, 1);
  std::vector<uint8_t> favour(usable, 1);
  size_t repeating[kRepeating];
  std::fill_n(repeating, kRepeating, std::min<size_t>(1, state_n));
  size_t repeat_slot = 0, prev_best = 1;
  std::vector<uint32_t> out;
  out.reserve(latents.size() - state_n);
  size_t candidates[kRecent + kRepeating + kHashed];
  for (size_t i = state_n; i < latents.size(); ++i) {
    const P l = latents[i];
    size_t c = 0;
    for (size_t k = 1; k <= kRecent; ++k) candidates[c++] = std::min(k, i);
    for (size_t k = 0; k < kRepeating; ++k) candidates[c++] = std::min(repeating[k], i);
    for (size_t level = 0; level < 2; ++level) {
      const uint64_t bucket = uint64_t(l) >> kCoarsenesses[level];
      size_t* seen = last_seen.data() + level * table_n;
      for (uint64_t b : {bucket - 1, bucket, bucket + 1}) {
        const size_t back = i - seen[bucket_hash(b, table_n - 1)];
        candidates[c++] = back >= 1 && back <= window_n ? back : 1;
      }
      seen[bucket_hash(bucket, table_n - 1)] = i;
    }
    size_t best = 1;
    unsigned best_score = 0;
    for (size_t k = 0; k < c; ++k) {
      const size_t back = candidates[k];
      if (back == 0 || back > usable) continue;
      const unsigned score = favour[back - 1] + closeness(l, latents[i - back]);
      if (score > best_score) best_score = score, best = back;
    }
    if (best != prev_best) repeat_slot = (repeat_slot + 1) % kRepeating;
    repeating[repeat_slot] = best;
    prev_best = best;
    out.push_back(uint32_t(best));
    if (std::has_single_bit(++uses[best - 1])) ++favour[best - 1];
  }
  return out;
}

template std::vector<uint32_t> choose_lookbacks(unsigned, size_t, std::span<const uint8_t>);
template std::vector<uint32_t> choose_lookbacks(unsigned, size_t, std::span<const uint16_t>);
template std::vector<uint32_t> choose_lookbacks(unsigned, size_t, std::span<const uint32_t>);
template std::vector<uint32_t> choose_lookbacks(unsigned, size_t, std::span<const uint64_t>);

}  // namespace numdecode::pco
