// The common deltas (consecutive, orders 1 and 2) fused with latent decoding: each delta goes into the
// running sum as it is decoded, and map(sum) to the output. Maps (mode/join.hpp) are the sums
// themselves or a simple mode's join (Classic of floats, IntMult), so numbers go from the
// offset loop straight to the output.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/bit_reader.hpp"
#include "pco/ans/latent_decoder.hpp"
#include "pco/ans/latent_table.hpp"

namespace numdecode::pco {
namespace {

template <class P, class Out, class Map>
struct PrefixSum {
  P m;
  Out* out;
  Map map;
  [[gnu::always_inline]] void operator()(P d) noexcept {
    *out++ = map(m);
    m = P(m + d);
  }
};

// kd deltas from the table's latents, b outputs (the last b - kd repeat the final sum: past the
// page's last delta). sum is the running sum, updated.
template <class P, class Out, class Map>
void decode_prefix_sums(const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd, size_t b, P& sum, Out* out,
                        Map map) noexcept {
  const auto done = decode_latents_into<P>(t, r, ans, kd, PrefixSum<P, Out, Map>{sum, out, map});
  for (size_t j = kd; j < b; ++j) out[j] = map(done.m);
  sum = done.m;
}

// Order 2: level 1's running sum feeds level 0's as each second difference arrives, so both
// levels take one pass with the latent decoding (m0 the number, m1 its first difference).
template <class P>
struct PrefixSum2 {
  P m0, m1;
  P* out;
  [[gnu::always_inline]] void operator()(P d) noexcept {
    *out++ = m0;
    m0 = P(m0 + m1);
    m1 = P(m1 + d);
  }
};

template <class P>
void decode_prefix_sums2(const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd, size_t b, P& m0, P& m1,
                         P* out) noexcept {
  auto done = decode_latents_into<P>(t, r, ans, kd, PrefixSum2<P>{m0, m1, out});
  for (size_t j = kd; j < b; ++j) done(P(0));  // past the page's last delta: differences of 0
  m0 = done.m0;
  m1 = done.m1;
}

}  // namespace
}  // namespace numdecode::pco
