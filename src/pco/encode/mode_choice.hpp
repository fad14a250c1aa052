// The mode of a chunk: the one the spec names (checked against the number type), or Auto's choice
// as pcodec makes it (IntMult or Classic for integers; the best bid of Classic, FloatMult and
// FloatQuant for floats); then the numbers split by it.
#pragma once
#include <span>
#include <vector>

#include "pco/dtype.hpp"
#include "pco/encode/chunk_config.hpp"
#include "pco/encode/mode_split.hpp"

namespace numdecode::pco {

// A mode to try: Auto may offer two (FloatMult and FloatQuant both bidding), the better bid first.
struct ModeCandidate {
  ModeKind kind = ModeKind::Classic;
  uint64_t base = 0;      // IntMult: the base; FloatMult: the base's float bits
  uint64_t inv_base = 0;  // FloatMult: the bits of the reciprocal numbers are divided by
  unsigned k = 0;         // FloatQuant
};

// Throws std::invalid_argument for a mode the number type cannot take.
template <class L, NumKind K>
std::vector<ModeCandidate> mode_candidates(std::span<const L> nums, const ModeSpec& spec, unsigned level);

template <class L, NumKind K>
SplitLatents<L> split_by(const ModeCandidate& mode, std::span<const L> nums);

}  // namespace numdecode::pco
