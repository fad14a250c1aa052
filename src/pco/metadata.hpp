// Pco wrapped-format metadata: the header and a chunk's metadata, parsed and validated.
#pragma once
#include <cstdint>
#include <vector>

#include "core/bit_reader.hpp"
#include "pco/dtype.hpp"

namespace numdecode::pco {

struct FormatVersion {
  unsigned major = 0;
  unsigned minor = 0;
};

// Reads the wrapped header (1 byte, or 2 from major 4 on). Rejects majors this decoder cannot read.
FormatVersion read_header(BitReader& r);

enum class ModeKind : uint8_t { Classic = 0, IntMult = 1, FloatMult = 2, FloatQuant = 3, Dict = 4 };
enum class DeltaKind : uint8_t { None = 0, Consecutive = 1, Lookback = 2, Conv1 = 3 };

struct Mode {
  ModeKind kind = ModeKind::Classic;
  uint64_t base = 0;           // IntMult: the multiplier; FloatMult: the base as an ordered latent
  unsigned k = 0;              // FloatQuant
  std::vector<uint64_t> dict;  // Dict: ordered latents of the distinct values
};

struct Delta {
  DeltaKind kind = DeltaKind::None;
  unsigned order = 0;  // Consecutive and Conv1
  bool secondary_uses_delta = false;
  unsigned window_n_log = 0, state_n_log = 0;  // Lookback
  unsigned quantization = 0;                   // Conv1
  int64_t bias = 0;
  std::vector<int64_t> weights;

  // Latents stored in each delta-coded variable's page state.
  size_t state_n() const {
    switch (kind) {
      case DeltaKind::Consecutive: return order;
      case DeltaKind::Lookback: return size_t{1} << state_n_log;
      case DeltaKind::Conv1: return weights.size();
      default: return 0;
    }
  }
};

struct Bin {
  uint32_t weight = 0;
  uint64_t lower = 0;
  unsigned offset_bits = 0;
};

// Bits that encode a bin's offset-bit count: 4/5/6/7 for 8/16/32/64-bit latents.
inline unsigned offset_bits_field(unsigned latent_bits) {
  switch (latent_bits) {
    case 8: return 4;
    case 16: return 5;
    case 32: return 6;
    default: return 7;
  }
}

enum class VarKey : uint8_t { Delta, Primary, Secondary };

struct LatentVarMeta {
  VarKey key = VarKey::Primary;
  unsigned latent_bits = 0;  // 32 for the lookback and Dict variables, else the dtype's bits
  unsigned ans_size_log = 0;
  std::vector<Bin> bins;
  bool delta_coded = false;  // carries page state and n - state_n latents
};

struct ChunkMeta {
  DType dtype = DType::U32;
  Mode mode;
  Delta delta;
  std::vector<LatentVarMeta> vars;  // [delta (Lookback only)], primary, [secondary]

  const LatentVarMeta* var(VarKey key) const {
    for (auto& v : vars)
      if (v.key == key) return &v;
    return nullptr;
  }
};

// Reads and validates chunk metadata, ending with its zero padding to a byte boundary.
ChunkMeta read_chunk_meta(BitReader& r, DType dtype, FormatVersion version);

const char* mode_name(ModeKind m);
const char* delta_name(DeltaKind d);
const char* var_key_name(VarKey k);

}  // namespace numdecode::pco
