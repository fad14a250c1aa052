// tANS on the encoding side: bin counts quantized to table weights, and the encoder whose states
// the decoder's table (ans/latent_table.hpp, the same spread of bins over states) walks back.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "pco/metadata.hpp"

namespace numdecode::pco {

struct QuantizedWeights {
  unsigned size_log = 0;
  std::vector<uint32_t> weights;  // each >= 1, summing to 2^size_log
};

// Weights proportional to counts (total of them) in a table of about 2^max_size_log states:
// larger when needed to give every bin a state, smaller while all weights are even.
QuantizedWeights quantize_weights(std::span<const uint32_t> counts, size_t total, unsigned max_size_log);

class AnsEncoder {
 public:
  // bins' weights sum to 2^size_log (no bins or one: a table of one state).
  AnsEncoder(unsigned size_log, const std::vector<Bin>& bins);

  unsigned size_log() const { return size_log_; }
  // States run over [2^size_log, 2^(size_log+1)); encoding starts from the lowest.
  uint32_t initial_state() const { return uint32_t{1} << size_log_; }

  // Moves state to encode bin symbol; returns how many low bits of the old state to write.
  unsigned encode(uint32_t& state, uint32_t symbol) const {
    const Symbol& s = symbols_[symbol];
    const unsigned bits = s.min_bits + (state >= s.cutoff ? 1 : 0);
    state = next_states_[s.next_start + (state >> bits) - s.weight];
    return bits;
  }

 private:
  struct Symbol {
    uint32_t weight;
    uint32_t cutoff;      // states at or above it renormalize by one more bit
    uint32_t next_start;  // its states in next_states_
    unsigned min_bits;
  };
  unsigned size_log_;
  std::vector<Symbol> symbols_;
  std::vector<uint16_t> next_states_;  // per symbol, in table order: 2^size_log + state index
};

}  // namespace numdecode::pco
