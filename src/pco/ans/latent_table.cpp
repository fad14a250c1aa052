#include "pco/ans/latent_table.hpp"

#include <algorithm>
#include <bit>

namespace numdecode::pco {

namespace {

// Calls put(state, bin) for every state: the reference's spread of bins over the table.
template <class Put>
void spread(unsigned ans_size_log, const std::vector<Bin>& bins, Put put) {
  const uint32_t size = uint32_t{1} << ans_size_log;
  uint32_t stride = size * 3 / 5;
  if (stride % 2 == 0) stride += 1;  // odd stride visits every slot of a power-of-two table
  const uint32_t mask = size - 1;
  uint32_t step = 0;
  for (uint32_t s = 0; s < bins.size(); ++s)
    for (uint32_t w = 0; w < bins[s].weight; ++w, ++step) put((stride * step) & mask, s);
}

}  // namespace

std::vector<uint32_t> spread_state_symbols(unsigned ans_size_log, const std::vector<Bin>& bins) {
  std::vector<uint32_t> symbols(size_t{1} << ans_size_log, 0);
  spread(ans_size_log, bins, [&](uint32_t state, uint32_t bin) { symbols[state] = bin; });
  return symbols;
}

LatentTable build_latent_table(const LatentVarMeta& var) {
  LatentTable t;
  t.ans_size_log = var.ans_size_log;
  t.n_bins = var.bins.size();
  unsigned min_offset_bits = var.bins.empty() ? 0 : 64;
  for (const Bin& b : var.bins) {
    t.max_offset_bits = std::max(t.max_offset_bits, b.offset_bits);
    min_offset_bits = std::min(min_offset_bits, b.offset_bits);
  }
  t.min_bits_per_latent = min_offset_bits;
  const uint64_t bias = var.delta_coded ? uint64_t{1} << (var.latent_bits - 1) : 0;  // delta centering
  if (t.n_bins == 1) t.single_lower = var.bins[0].lower + bias;
  if (t.n_bins <= 1) return t;
  const bool pack_width = var.latent_bits <= 32;  // lower + bias < 2^33: bits 56.. are free
  const uint32_t size = uint32_t{1} << var.ans_size_log;
  t.nodes.reset(new AnsNode[size]);
  t.lowers.reset(new uint64_t[size]);
  AnsNode* nodes = t.nodes.get();
  uint64_t* lowers = t.lowers.get();
  // First each state's bin, parked in its node (bins < 2^14 fit next_base)...
  spread(var.ans_size_log, var.bins, [&](uint32_t state, uint32_t bin) { nodes[state].next_base = uint16_t(bin); });
  // ...then per bin: the next state's x (x runs from weight to 2 * weight - 1 over the bin's
  // states, in table order), its offset width and its lower, so that the loop below touches small arrays.
  struct BinState {
    uint32_t x;
    uint32_t offset_bits;
    uint64_t lower;
  };
  std::vector<BinState> bins(var.bins.size());
  unsigned min_ans_bits = kMaxAnsBits;
  for (size_t s = 0; s < bins.size(); ++s) {
    const Bin& b = var.bins[s];
    bins[s] = BinState{b.weight, b.offset_bits, b.lower + bias};
    // A bin's fewest bits are read in its last state, x = 2 * weight - 1.
    min_ans_bits = std::min<unsigned>(min_ans_bits, var.ans_size_log - (31 - std::countl_zero(2 * b.weight - 1)));
  }
  for (uint32_t i = 0; i < size; ++i) {
    BinState& b = bins[nodes[i].next_base];
    const uint32_t x = b.x++;
    const unsigned bits = var.ans_size_log - (31 - std::countl_zero(x));
    nodes[i] = AnsNode{uint16_t((x << bits) - size), uint16_t((1u << bits) - 1), uint8_t(bits), uint8_t(b.offset_bits)};
    lowers[i] = b.lower | (pack_width ? uint64_t{b.offset_bits} << 56 : 0);
  }
  t.min_bits_per_latent += min_ans_bits;
  return t;
}

}  // namespace numdecode::pco
