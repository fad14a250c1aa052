// A latent variable's tANS decoding table, built once per chunk from its bins.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "pco/metadata.hpp"

namespace numdecode::pco {

constexpr unsigned kMaxAnsBits = 14;

// One tANS table entry: how to move to the next state, and its bin's offset width.
// 8 bytes, so the decode loop reads one small entry per symbol (the bin's lower is apart) and
// indexes it with a plain scaled address.
struct alignas(8) AnsNode {
  uint16_t next_base;  // < 2^14
  uint16_t ans_mask;   // (1 << bits_to_read) - 1: saves computing it on the decode's critical path
  uint8_t bits_to_read;
  uint8_t offset_bits;
};
static_assert(sizeof(AnsNode) == 8);

struct LatentTable {
  unsigned ans_size_log = 0;
  size_t n_bins = 0;
  unsigned max_offset_bits = 0;
  unsigned min_bits_per_latent = 0;  // a lower bound, to refuse page sizes the data cannot hold
  // 2^ans_size_log entries when n_bins > 1 (not zero-filled first: every entry is written).
  std::unique_ptr<AnsNode[]> nodes;
  // Bin lowers: per state when n_bins > 1, else single_lower. For a delta-coded variable they
  // include the centering of deltas (+2^(bits-1)), so delta decoding adds deltas as they come.
  // For latents of at most 32 bits (the decoder's W of at most 4 bytes), bits 56..63 also hold
  // the state's offset width: W(lower) drops them.
  std::unique_ptr<uint64_t[]> lowers;
  uint64_t single_lower = 0;
};

// The spread of state indices over bins (the reference's spread_state_symbols).
std::vector<uint32_t> spread_state_symbols(unsigned ans_size_log, const std::vector<Bin>& bins);
LatentTable build_latent_table(const LatentVarMeta& var);

}  // namespace numdecode::pco
