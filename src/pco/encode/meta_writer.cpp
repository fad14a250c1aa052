#include "pco/encode/meta_writer.hpp"

namespace numdecode::pco {

namespace {

constexpr unsigned kDictLenBits = 25;
// The reference's size bounds: a mode of up to 4 + 128 bits, a delta encoding of up to
// 4 + 5 + 5 + 64 bits plus 32 per Conv1 weight.
constexpr size_t kModeMaxBits = 4 + 128;
constexpr size_t kDeltaMaxBits = 4 + 5 + 5 + 64 + 32 * 32;

void write_mode(BitWriter& w, const Mode& m, unsigned bits) {
  w.write(unsigned(m.kind), 4);
  switch (m.kind) {
    case ModeKind::IntMult:
    case ModeKind::FloatMult: w.write(m.base, bits); break;
    case ModeKind::FloatQuant: w.write(m.k, 8); break;
    case ModeKind::Dict:
      w.write(m.dict.size(), kDictLenBits);
      w.align();
      for (uint64_t v : m.dict) w.write(v, bits);
      break;
    case ModeKind::Classic: break;
  }
}

void write_delta(BitWriter& w, const Delta& d) {
  w.write(unsigned(d.kind), 4);
  switch (d.kind) {
    case DeltaKind::Consecutive:
      w.write(d.order, 3);
      w.write(d.secondary_uses_delta, 1);
      break;
    case DeltaKind::Lookback:
      w.write(d.window_n_log - 1, 5);
      w.write(d.state_n_log, 4);
      w.write(d.secondary_uses_delta, 1);
      break;
    case DeltaKind::Conv1:
      w.write(d.quantization, 5);
      w.write(uint64_t(d.bias) ^ (uint64_t{1} << 63), 64);
      w.write(d.weights.size() - 1, 5);
      for (int64_t weight : d.weights) w.write(uint32_t(int32_t(weight)) ^ 0x80000000u, 32);
      break;
    case DeltaKind::None: break;
  }
}

void write_latent_var(BitWriter& w, const LatentVarMeta& var) {
  w.write(var.ans_size_log, 4);
  w.write(var.bins.size(), 15);
  const unsigned ob_bits = offset_bits_field(var.latent_bits);
  for (const Bin& b : var.bins) {
    w.write(b.weight - 1, var.ans_size_log);
    w.write(b.lower, var.latent_bits);
    w.write(b.offset_bits, ob_bits);
  }
}

}  // namespace

void write_wrapped_header(BitWriter& w) {
  w.write(kWriteFormatMajor, 8);
  w.write(kWriteFormatMinor, 8);
}

void write_chunk_meta(BitWriter& w, const ChunkMeta& meta) {
  write_mode(w, meta.mode, dtype_bits(meta.dtype));
  write_delta(w, meta.delta);
  for (const LatentVarMeta& var : meta.vars) write_latent_var(w, var);
  w.align();
}

size_t latent_var_meta_bits(const LatentVarMeta& var) {
  return 4 + 15 + var.bins.size() * (var.ans_size_log + var.latent_bits + offset_bits_field(var.latent_bits));
}

size_t page_meta_bytes(const ChunkMeta& meta) {
  size_t bits = 0;
  for (const LatentVarMeta& var : meta.vars) {
    bits += 4 * size_t(var.ans_size_log);
    if (var.delta_coded) bits += meta.delta.state_n() * var.latent_bits;
  }
  return (bits + 7) / 8;
}

size_t chunk_meta_max_bytes(const ChunkMeta& meta) {
  // A dictionary is part of the mode (as pcodec's Mode::max_bit_size counts it): without it, a
  // dictionary of many values passed for smaller than the numbers written verbatim.
  const size_t mode_bits = meta.mode.kind == ModeKind::Dict
                               ? 4 + kDictLenBits + 7 + meta.mode.dict.size() * size_t(dtype_bits(meta.dtype))
                               : kModeMaxBits;
  size_t bits = mode_bits + kDeltaMaxBits;
  for (const LatentVarMeta& var : meta.vars) bits += latent_var_meta_bits(var);
  return (bits + 7) / 8;
}

}  // namespace numdecode::pco
