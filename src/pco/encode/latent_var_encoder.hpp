// One latent variable of a chunk on the encoding side: trained bins and tANS table (from all of
// the chunk's latents of that variable), then each page's latents dissected into bins, offsets
// and tANS bits, written batch by batch.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/bit_writer.hpp"
#include "core/bytes.hpp"
#include "pco/encode/ans_encoder.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {

struct TrainedVar {
  LatentVarMeta meta;
  std::vector<uint32_t> counts;  // latents per bin (weights before quantization)
  std::vector<uint64_t> lowers;  // per bin, ascending: where each latent's bin is looked up
  AnsEncoder ans{0, {}};
  double avg_bits_per_latent = 0;  // the entropy estimate of the quantized weights

  // No body bits at all: no bins, or one bin of one value.
  bool trivial() const { return meta.bins.empty() || (meta.bins.size() == 1 && meta.bins[0].offset_bits == 0); }
  // Bits a latent of bin i can take at most: its offset and its tANS bits.
  unsigned worst_bits(size_t i) const;
};

// The largest tANS table the encoder builds (the reference keeps tables L1-sized).
constexpr unsigned kMaxEncoderAnsSizeLog = 12;

// Trains on latents (reordered in place). unoptimized_bins_log: the histogram's resolution.
template <class L>
TrainedVar train_var(VarKey key, std::span<L> latents, unsigned unoptimized_bins_log);

// The variable the reference falls back to: one bin spanning every latent, written verbatim.
TrainedVar verbatim_var(unsigned latent_bits);

// One page of a variable, dissected: per latent its bin and tANS bits, packed in 32 bits (the
// bits' value in 0-13, their count in 14-17, the bin in 18-31; empty for one bin: no tANS), and
// the final tANS states the page meta carries. Offsets are taken from the latents when written.
struct DissectedVar {
  std::vector<uint32_t, DefaultInitAllocator<uint32_t>> codes;
  std::array<uint32_t, 4> final_states{};
};

template <class L>
DissectedVar dissect_page(const TrainedVar& var, std::span<const L> latents);

// The page's latents [start, start + 256) (none when start is past its end): their tANS bits, then
// their offsets.
template <class L>
void write_batch(const TrainedVar& var, const DissectedVar& page, std::span<const L> latents, size_t start, BitWriter& w);

}  // namespace numdecode::pco
