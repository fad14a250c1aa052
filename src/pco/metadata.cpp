#include "pco/metadata.hpp"

#include <cstring>

#include "pco/numbers.hpp"

namespace numdecode::pco {

namespace {

constexpr unsigned kMaxAnsSizeLog = 14;
constexpr unsigned kMaxLookbackWindowLog = 24;

LatentVarMeta read_latent_var(BitReader& r, VarKey key, unsigned latent_bits) {
  LatentVarMeta v;
  v.key = key;
  v.latent_bits = latent_bits;
  const char* name = var_key_name(key);
  v.ans_size_log = static_cast<unsigned>(r.read(4, "latent variable ans_size_log"));
  if (v.ans_size_log > kMaxAnsSizeLog)
    fail("corrupt chunk meta: ", name, " latent ans_size_log ", v.ans_size_log, " exceeds ", kMaxAnsSizeLog);
  size_t n_bins = r.read(15, "latent variable bin count");
  if (n_bins > (size_t{1} << v.ans_size_log))
    fail("corrupt chunk meta: ", name, " latent has ", n_bins, " bins, more than its tANS table size ",
         size_t{1} << v.ans_size_log);
  if (n_bins == 1 && v.ans_size_log != 0)
    fail("corrupt chunk meta: ", name, " latent has one bin but ans_size_log ", v.ans_size_log, " (must be 0)");
  const unsigned ob_field = offset_bits_field(latent_bits);
  const size_t bits_per_bin = v.ans_size_log + latent_bits + ob_field;
  if (n_bins * bits_per_bin > r.bits_left())
    fail("insufficient data: ", name, " latent claims ", n_bins, " bins but only ", r.bits_left(),
         " bits remain in the chunk meta");
  v.bins.resize(n_bins);
  uint64_t weight_sum = 0;
  for (size_t i = 0; i < n_bins; ++i) {
    Bin& b = v.bins[i];
    b.weight = static_cast<uint32_t>(r.read_wide_unchecked(v.ans_size_log)) + 1;
    b.lower = r.read_wide_unchecked(latent_bits);
    b.offset_bits = static_cast<unsigned>(r.read_wide_unchecked(ob_field));
    if (b.offset_bits > latent_bits)
      fail("corrupt chunk meta: ", name, " latent bin ", i, " has ", b.offset_bits,
           " offset bits, more than the ", latent_bits, "-bit latent");
    weight_sum += b.weight;
  }
  r.check_in_bounds("latent variable bins");
  if (n_bins > 0 && weight_sum != (uint64_t{1} << v.ans_size_log))
    fail("corrupt chunk meta: ", name, " latent bin weights sum to ", weight_sum, ", not the tANS size ",
         uint64_t{1} << v.ans_size_log);
  return v;
}

Mode read_mode(BitReader& r, DType dtype, FormatVersion version) {
  Mode m;
  const unsigned bits = dtype_bits(dtype);
  const NumKind kind = info(dtype).kind;
  uint64_t variant = r.read(4, "mode");
  switch (variant) {
    case 0: m.kind = ModeKind::Classic; break;
    case 1:
      if (version.major == 0)
        fail("corrupt chunk meta: mode 1 in format 0 is the yanked GCD mode, which cannot be decoded");
      m.kind = ModeKind::IntMult;
      m.base = r.read(bits, "IntMult base");
      if (kind == NumKind::Float) fail("corrupt chunk meta: IntMult mode applied to float type ", dtype_name(dtype));
      if (m.base == 0) fail("corrupt chunk meta: IntMult base is 0");
      break;
    case 2: {
      m.kind = ModeKind::FloatMult;
      m.base = r.read(bits, "FloatMult base");
      if (kind != NumKind::Float) fail("corrupt chunk meta: FloatMult mode applied to integer type ", dtype_name(dtype));
      if (!float_latent_is_finite_nonzero(m.base, bits))
        fail("corrupt chunk meta: FloatMult base is not a finite nonzero float");
      break;
    }
    case 3: {
      m.kind = ModeKind::FloatQuant;
      m.k = static_cast<unsigned>(r.read(8, "FloatQuant k"));
      if (kind != NumKind::Float) fail("corrupt chunk meta: FloatQuant mode applied to integer type ", dtype_name(dtype));
      unsigned precision = float_precision_bits(bits);
      if (m.k == 0 || m.k > precision)
        fail("corrupt chunk meta: FloatQuant k = ", m.k, " is outside 1..", precision, " for ", dtype_name(dtype));
      break;
    }
    case 4: {
      m.kind = ModeKind::Dict;
      size_t len = r.read(25, "Dict length");
      r.align_zero("Dict length");
      if (len * bits > r.bits_left())
        fail("insufficient data: Dict claims ", len, " values but only ", r.bits_left(), " bits remain");
      m.dict.resize(len);
      for (auto& v : m.dict) v = r.read_wide_unchecked(bits);
      r.check_in_bounds("Dict values");
      break;
    }
    default: fail("corrupt chunk meta: unknown mode ", variant);
  }
  return m;
}

Delta read_delta(BitReader& r, FormatVersion version) {
  Delta d;
  if (version.major < 3) {  // before format 3 only a 3-bit consecutive order existed
    d.order = static_cast<unsigned>(r.read(3, "delta order"));
    d.kind = d.order == 0 ? DeltaKind::None : DeltaKind::Consecutive;
    return d;
  }
  uint64_t variant = r.read(4, "delta encoding");
  switch (variant) {
    case 0: break;
    case 1:
      d.kind = DeltaKind::Consecutive;
      d.order = static_cast<unsigned>(r.read(3, "Consecutive order"));
      if (d.order == 0) fail("corrupt chunk meta: Consecutive delta order is 0");
      d.secondary_uses_delta = r.read(1, "Consecutive secondary flag") != 0;
      break;
    case 2:
      d.kind = DeltaKind::Lookback;
      d.window_n_log = 1 + static_cast<unsigned>(r.read(5, "Lookback window"));
      d.state_n_log = static_cast<unsigned>(r.read(4, "Lookback state size"));
      d.secondary_uses_delta = r.read(1, "Lookback secondary flag") != 0;
      if (d.window_n_log > kMaxLookbackWindowLog)
        fail("corrupt chunk meta: Lookback window_n_log ", d.window_n_log, " exceeds ", kMaxLookbackWindowLog);
      if (d.state_n_log > d.window_n_log)
        fail("corrupt chunk meta: Lookback state_n_log ", d.state_n_log, " exceeds window_n_log ", d.window_n_log);
      break;
    case 3: {
      d.kind = DeltaKind::Conv1;
      d.quantization = static_cast<unsigned>(r.read(5, "Conv1 quantization"));
      d.bias = static_cast<int64_t>(r.read(64, "Conv1 bias") ^ (uint64_t{1} << 63));
      d.order = 1 + static_cast<unsigned>(r.read(5, "Conv1 order"));
      d.weights.resize(d.order);
      for (auto& w : d.weights)
        w = static_cast<int32_t>(static_cast<uint32_t>(r.read(32, "Conv1 weight")) ^ 0x80000000u);
      break;
    }
    default: fail("corrupt chunk meta: unknown delta encoding ", variant);
  }
  return d;
}

void check_conv1(const Delta& d, unsigned latent_bits) {
  if (latent_bits > 32)
    fail("corrupt chunk meta: Conv1 delta encoding is not defined for ", latent_bits, "-bit latents");
  const unsigned conv_bits = 2 * latent_bits;
  unsigned max_q = conv_bits - 1 < 31 ? conv_bits - 1 : 31;
  if (d.quantization > max_q)
    fail("corrupt chunk meta: Conv1 quantization ", d.quantization, " exceeds ", max_q);
  // |bias| + 2^latent_bits * sum|w| must stay below 2^(conv_bits-1) so the sums cannot overflow.
  using u128 = unsigned __int128;
  u128 bound = d.bias < 0 ? u128(0) - u128(static_cast<__int128>(d.bias)) : u128(d.bias);
  u128 wsum = 0;
  for (int64_t w : d.weights) wsum += w < 0 ? u128(-w) : u128(w);
  bound += wsum << latent_bits;
  if (bound >= (u128(1) << (conv_bits - 1)))
    fail("corrupt chunk meta: Conv1 bias and weights could overflow ", conv_bits, "-bit arithmetic");
}

}  // namespace

FormatVersion read_header(BitReader& r) {
  FormatVersion v;
  v.major = static_cast<unsigned>(r.read(8, "format version"));
  if (v.major >= 4) v.minor = static_cast<unsigned>(r.read(8, "format minor version"));
  if (v.major > 4)
    fail_unsupported("unsupported format: Pco format version ", v.major, ".", v.minor, " is newer than 4.x");
  return v;
}

ChunkMeta read_chunk_meta(BitReader& r, DType dtype, FormatVersion version) {
  ChunkMeta c;
  c.dtype = dtype;
  c.mode = read_mode(r, dtype, version);
  c.delta = read_delta(r, version);
  const unsigned bits = dtype_bits(dtype);
  const unsigned primary_bits = c.mode.kind == ModeKind::Dict ? 32 : bits;
  const bool has_secondary = c.mode.kind == ModeKind::IntMult || c.mode.kind == ModeKind::FloatMult ||
                             c.mode.kind == ModeKind::FloatQuant;
  if (c.delta.kind == DeltaKind::Conv1) check_conv1(c.delta, primary_bits);

  if (c.delta.kind == DeltaKind::Lookback) {
    c.vars.push_back(read_latent_var(r, VarKey::Delta, 32));
    const uint64_t window_n = uint64_t{1} << c.delta.window_n_log;
    for (size_t i = 0; i < c.vars[0].bins.size(); ++i) {
      uint64_t lower = c.vars[0].bins[i].lower;
      if (lower < 1 || lower > window_n)
        fail("corrupt chunk meta: lookback bin ", i, " lower bound ", lower, " is outside 1..", window_n);
    }
  }
  c.vars.push_back(read_latent_var(r, VarKey::Primary, primary_bits));
  c.vars.back().delta_coded = c.delta.kind != DeltaKind::None;
  if (has_secondary) {
    c.vars.push_back(read_latent_var(r, VarKey::Secondary, bits));
    c.vars.back().delta_coded = c.delta.secondary_uses_delta &&
                                (c.delta.kind == DeltaKind::Consecutive || c.delta.kind == DeltaKind::Lookback);
  }
  r.align_zero("chunk meta");
  return c;
}

const char* mode_name(ModeKind m) {
  static const char* names[] = {"Classic", "IntMult", "FloatMult", "FloatQuant", "Dict"};
  return names[static_cast<int>(m)];
}
const char* delta_name(DeltaKind d) {
  static const char* names[] = {"None", "Consecutive", "Lookback", "Conv1"};
  return names[static_cast<int>(d)];
}
const char* var_key_name(VarKey k) {
  static const char* names[] = {"delta", "primary", "secondary"};
  return names[static_cast<int>(k)];
}

}  // namespace numdecode::pco
